"""skcomplex.models: interaction models."""

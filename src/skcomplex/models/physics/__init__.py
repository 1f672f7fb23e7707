"""skcomplex.models.physics: interaction models."""

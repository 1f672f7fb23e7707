"""skcomplex.models.physics.common: interaction models."""

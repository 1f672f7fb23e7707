"""skcomplex package."""

"""maddening package."""

"""maddening.core.simulation: advancing nodes in time."""

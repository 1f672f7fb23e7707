"""The event-locating engine: the simulation, its trajectories and the crossing finder."""

from skcomplex.engine._stepper import VERTEX_SWEEPS
from skcomplex.engine.events import locate_crossing
from skcomplex.engine.runtime import Simulation
from skcomplex.engine.trajectory import Event, Trajectory

__all__ = ["VERTEX_SWEEPS", "Event", "Simulation", "Trajectory", "locate_crossing"]

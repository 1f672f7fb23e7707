"""The event-locating engine: the simulation, its trajectories and the crossing finder."""

from skcomplex.engine.events import locate_crossing
from skcomplex.engine.runtime import Simulation
from skcomplex.engine.trajectory import Event, Trajectory

__all__ = ["Event", "Simulation", "Trajectory", "locate_crossing"]

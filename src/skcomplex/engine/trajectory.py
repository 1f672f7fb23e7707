"""The results of a run: states over the output times, and the located events."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from skcomplex.exceptions import ValidationError

__all__ = ["Event", "Trajectory"]


@dataclass(frozen=True)
class Event:
    """One located crossing (or several simultaneous ones, at a corner).

    Attributes:
        time: The time of the crossing.
        interactions: The labels of the crossing interactions that crossed then.
        acted: The labels of those that acted (a reflection whose region held).
        states: The states just after the event, ``{'label.state': array}``.
    """

    time: float
    interactions: tuple[str, ...]
    acted: tuple[str, ...]
    states: dict[str, np.ndarray] = field(repr=False)


class Trajectory:
    """The states of a run at its output times, and its events.

    ``times`` holds the output times ``0, dt, 2 dt, ..., until`` (the last step
    is shortened when ``until`` is not a multiple of ``dt``); ``values(path)``
    returns the state at ``path = 'label.state'`` over those times, an array of
    shape ``(len(times),) + state shape``; ``events`` lists the located
    crossings in time order.
    """

    def __init__(self, times: np.ndarray, values: dict[str, np.ndarray], events: list[Event]) -> None:
        where = "Trajectory"
        raw = np.asarray(times) if not isinstance(times, (str, bytes)) else np.asarray(None)
        if raw.dtype.kind not in "iuf" or raw.ndim != 1 or not np.all(np.isfinite(raw)) or np.any(np.diff(raw) < 0):
            raise ValidationError(f"{where}: times must be a 1-D array of finite, non-decreasing times, got {times!r}")
        if not isinstance(values, dict) or not all(isinstance(k, str) for k in values):
            raise ValidationError(f"{where}: values must be a dict of state paths ('label.state') to arrays, "
                                  f"got {values!r}")
        if not isinstance(events, (list, tuple)) or not all(isinstance(e, Event) for e in events):
            raise ValidationError(f"{where}: events must be a list of Event, got {events!r}")
        self.times = raw.astype(np.float64)
        self._values = values
        self.events = list(events)

    @property
    def paths(self) -> list[str]:
        """The state paths ``'label.state'`` that ``values`` accepts."""
        return sorted(self._values)

    def values(self, path: str) -> np.ndarray:
        """The values of the state ``path`` (``'label.state'``) at ``times``."""
        if not isinstance(path, str) or path not in self._values:
            raise ValidationError(f"path must be one of {self.paths}, got {path!r}")
        return self._values[path]

    def event_times(self, interaction: str | None = None) -> np.ndarray:
        """The times of the events, of one interaction's crossings when ``interaction`` is given."""
        return np.array(
            [e.time for e in self.events if interaction is None or interaction in e.interactions]
        )

    def __repr__(self) -> str:
        return f"Trajectory({len(self.times)} times, {len(self.events)} events, paths={self.paths})"

"""The errors of skcomplex.

``ValidationError`` is the documented error for bad input: every constructor,
``Simulation.check()`` and ``Simulation.run()`` raise it, with a message that
names the argument, the value it got and what is allowed.
``EventLimitError`` is raised when a step needs more crossings than the
simulation's bound allows, and ``RestingContactError`` when a point held on a
wall is pressed into it, which a reflection cannot hold.
"""

from __future__ import annotations

__all__ = ["EventLimitError", "RestingContactError", "ValidationError"]


class ValidationError(ValueError):
    """Bad input: the message names the argument, the value and what is allowed.

    >>> raise ValidationError("dt must be > 0, got -1.0")
    Traceback (most recent call last):
    ...
    skcomplex.exceptions.ValidationError: dt must be > 0, got -1.0
    """


class EventLimitError(RuntimeError):
    """A step needed more crossings than ``max_events`` allows.

    The run stops instead of silently dropping the rest of the step; the message
    names the time of the step, the bound and how to change it.
    """


class RestingContactError(RuntimeError):
    """A point held on a wall is pressed into it, and a reflection cannot hold it there.

    A reflection only changes a velocity at a crossing. Restitution 0 (or one so small that the
    point slides) leaves a point on the wall with no normal speed, as does a start at rest on it;
    when its acceleration (or the curve of the wall) then moves it into the wall, or a reflection turns
    it in at a corner, or a point starts on a wall moving into it, no force keeps it out and no crossing
    is left to find. The run stops instead of letting the point pass through;
    the message names the wall and the step.

    Attributes:
        wall: The label of the wall.
        start: The start time of the step, in the simulation's time unit.
        end: The end time of the step.
    """

    def __init__(self, message: str, *, wall: str, start: float, end: float) -> None:
        super().__init__(message)
        self.wall, self.start, self.end = wall, start, end

"""The errors of skcomplex.

``ValidationError`` is the documented error for bad input: every constructor,
``Simulation.check()`` and ``Simulation.run()`` raise it, with a message that
names the argument, the value it got and what is allowed.
``EventLimitError`` is raised when a step needs more crossings than the
simulation's bound allows.
"""

from __future__ import annotations

__all__ = ["EventLimitError", "ValidationError"]


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

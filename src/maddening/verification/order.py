"""Observed order of accuracy from an error ladder.

For errors ``E_i`` measured at steps ``dt_i``, the observed order between two
successive rungs is ``p_i = log(E_i / E_{i+1}) / log(dt_i / dt_{i+1})``. For a
scheme of order ``p`` in its asymptotic range, ``E ~ C dt^p`` and every ``p_i``
approaches ``p``; the finest pair is the best estimate.

>>> ladder = observed_orders([0.1, 0.05, 0.025], [1e-2, 2.5e-3, 6.25e-4])
>>> [round(p, 6) for p in ladder.pairwise], round(ladder.finest, 6)
([2.0, 2.0], 2.0)
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from maddening.errors import finite_number, invalid, whole_number

__all__ = ["LadderRung", "OrderLadder", "observed_orders"]


@dataclass(frozen=True)
class LadderRung:
    """One rung of a ladder: its step, its error, and the observed order from the rung above."""

    steps: int | None
    dt: float
    error: float
    order: float | None


@dataclass(frozen=True)
class OrderLadder:
    """An error ladder and the observed orders it implies.

    Attributes:
        dts: The time steps, coarsest first.
        errors: The error at each step.
        pairwise: The observed order of each successive pair.
        steps: The number of steps of each rung, when known.
    """

    dts: tuple[float, ...]
    errors: tuple[float, ...]
    pairwise: tuple[float, ...]
    steps: tuple[int, ...] | None = None

    @property
    def finest(self) -> float:
        """The observed order over the finest pair."""
        return self.pairwise[-1]

    def rungs(self) -> list[LadderRung]:
        """The ladder as rows: steps, dt, error, and the order from the coarser rung."""
        steps = self.steps or (None,) * len(self.dts)
        orders = (None, *self.pairwise)
        return [LadderRung(n, dt, err, p) for n, dt, err, p in zip(steps, self.dts, self.errors, orders)]


def _is_sequence(values: Any) -> bool:
    """Whether ``values`` is a sequence or an array of entries (text is neither)."""
    return not isinstance(values, (str, bytes)) and (isinstance(values, Sequence) or hasattr(values, "__array__"))


def _numbers(values: Any, name: str) -> tuple[float, ...]:
    """A ladder's ``values`` as floats: a sequence of real numbers (text and bools are never read as numbers)."""
    allowed = "a sequence of positive finite numbers"
    if not _is_sequence(values):
        raise invalid(name, values, allowed, where="observed_orders")
    return tuple(finite_number(v, name, allowed, where="observed_orders", kind=numbers.Real, above=0.0)
                 for v in list(values))


def observed_orders(dts: Sequence[float], errors: Sequence[float], steps: Sequence[int] | None = None) -> OrderLadder:
    """The observed order of every successive pair of an error ladder.

    Args:
        dts: At least two distinct, positive, finite time steps.
        errors: The positive, finite error measured at each step.
        steps: Optionally, the number of steps of each rung (for display).

    Raises:
        maddening.ValidationError: Fewer than two rungs, mismatched lengths, or a step or
            error that is not positive and finite.
    """
    dts = _numbers(dts, "dts")
    errors = _numbers(errors, "errors")
    if len(dts) < 2 or len(dts) != len(errors):
        raise invalid("errors", errors, f"one error per step for at least two steps (steps: {dts})",
                      where="observed_orders")
    for name, values in (("dts", dts), ("errors", errors)):
        if not all(math.isfinite(x) and x > 0 for x in values):
            raise invalid(name, values, "positive finite numbers", where="observed_orders")
    if len(set(dts)) != len(dts):
        raise invalid("dts", dts, "distinct time steps", where="observed_orders")
    pairwise = tuple(
        math.log(errors[i] / errors[i + 1]) / math.log(dts[i] / dts[i + 1]) for i in range(len(dts) - 1)
    )
    if steps is not None:
        if not _is_sequence(steps) or len(steps) != len(dts):
            raise invalid("steps", steps, f"None or one whole number of steps per rung ({len(dts)})",
                          where="observed_orders")
        steps = tuple(int(whole_number(n, "steps", "whole numbers of steps, each at least 1", where="observed_orders",
                                       kind=numbers.Integral)) for n in steps)
    return OrderLadder(dts, errors, pairwise, steps)

"""The registry of verification benchmarks: what each verifies, against what, and where.

>>> b = get("MADD-VER-010")
>>> b.verifies, b.declared
('maddening.nodes.ball.BallNode.meta.order.temporal', 1.0)
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from maddening.errors import finite_number, invalid

__all__ = ["Benchmark", "all_benchmarks", "get", "half_unit_of_last_digit", "register"]


@dataclass(frozen=True)
class Benchmark:
    """A verification benchmark.

    Attributes:
        id: Stable identifier, such as ``MADD-VER-010``.
        verifies: Dotted name of the declaration it checks.
        declared: The declared value, read from that declaration.
        measured_by: How the value is measured, in words.
        test_file: The test file that runs it.
        tolerance: Absolute tolerance on ``|measured - declared|``.
        reference: Reference figures stated when the benchmark was first run
            (with ``source``); a page compares its live run against them.
        source: Where ``reference`` comes from.
        measure: Optional callable returning the measured value now.
    """

    id: str
    verifies: str
    declared: float
    measured_by: str
    test_file: str
    tolerance: float = 0.0
    reference: Mapping[str, float] = field(default_factory=dict)
    source: str = ""
    measure: Callable[[], float] | None = field(default=None, compare=False, repr=False)

    def reference_tolerance(self, name: str) -> float:
        """How far a live value may lie from ``reference[name]`` and still round to it as printed.

        >>> get("MADD-VER-010").reference_tolerance("observed_order_finest")
        0.0005
        """
        if name not in self.reference:
            raise invalid("name", name, f"one of {sorted(self.reference)}", where=f"{self.id}.reference_tolerance")
        return half_unit_of_last_digit(self.reference[name])


def half_unit_of_last_digit(value: float) -> float:
    """Half a unit in the last decimal digit of ``value`` as Python prints it (its shortest repr).

    A figure stated as ``1.002`` stands for anything in ``[1.0015, 1.0025]``; a whole number
    stated as ``12`` (an ``int``) for anything in ``[11.5, 12.5]``. A figure Python prints with
    an exponent has its last digit in the scale the exponent gives: ``1.5e-05`` stands for
    anything in ``[1.45e-05, 1.55e-05]``, so half a unit is ``5e-07``.

    >>> half_unit_of_last_digit(1.002), half_unit_of_last_digit(3.0), half_unit_of_last_digit(12)
    (0.0005, 0.05, 0.5)
    >>> half_unit_of_last_digit(1.5e-05), half_unit_of_last_digit(2e20)
    (5e-07, 5e+19)

    Raises:
        maddening.ValidationError: ``value`` is not a finite number (it has no last digit).
    """
    if isinstance(value, int) and not isinstance(value, bool):
        return 0.5
    number = finite_number(value, "value", "a finite number, as its source prints it", where="half_unit_of_last_digit",
                           kind=numbers.Real)
    mantissa, _, exponent = repr(number).partition("e")
    digits = len(mantissa.partition(".")[2])
    return 0.5 * 10.0 ** (int(exponent or 0) - digits)


_REGISTRY: dict[str, Benchmark] = {}


def register(benchmark: Benchmark) -> Benchmark:
    """Add ``benchmark``; the same record again is a no-op, a different one under a taken id raises."""
    if not isinstance(benchmark, Benchmark):
        raise invalid("benchmark", benchmark, "a maddening.verification.Benchmark")
    existing = _REGISTRY.get(benchmark.id)
    if existing is not None and existing != benchmark:
        raise invalid("benchmark.id", benchmark.id, "an id not already registered with a different record")
    _REGISTRY[benchmark.id] = benchmark
    return benchmark


def get(id: str) -> Benchmark:
    """The benchmark with ``id``; an unknown id raises ``maddening.ValidationError``."""
    try:
        return _REGISTRY[id]
    except (KeyError, TypeError):
        raise invalid("id", id, f"one of {sorted(_REGISTRY)}") from None


def all_benchmarks() -> list[Benchmark]:
    """Every registered benchmark, in registration order."""
    return list(_REGISTRY.values())

"""Claims: a declared value, a measurement and a tolerance, checked while the page runs.

A claim that does not hold raises :class:`ClaimError`, so the build stops at the first false
claim. In *record mode* (``SPECBOOK_RECORD=1``, in the environment the page's kernel
inherits) a false claim is recorded instead and the page goes on, so that one run of a page
under a fault (:mod:`specbook.faults`) shows every claim the fault breaks. Claims made inside
:func:`raising` raise in both modes: a page that demonstrates a failure on purpose uses it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from specbook._glue import glue_raw, as_float
from specbook._mode import RECORD_ENV, raising, record_mode, reset_notes
from specbook._numbers import allowed as _allowed
from specbook._quiet import HOLDS, Measured

__all__ = [
    "Claim", "ClaimError", "RECORD_ENV", "Source", "all_claims", "check", "claim", "closed_form", "declared",
    "example", "failed_claim", "forget", "independent", "raising", "record_mode", "recorded_failures",
    "reset_claims", "seed_figure",
]


class ClaimError(AssertionError):
    """A claim of a page does not hold: the code and the page disagree.

    The message names the claim, the measured value, the expected value and the
    tolerance. Its attribute ``key`` holds the claim's name.
    """

    def __init__(self, message: str, key: str) -> None:
        super().__init__(message)
        self.key = key


_FAILED = re.compile(r"ClaimError: claim '([^']+)' failed[^\n]*")
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def failed_claim(output: str) -> tuple[str, str] | None:
    """Find a raised ``ClaimError`` in a traceback or a log: ``(claim name, its message line)``, else None.

    Terminal colour codes are ignored. This is how a test run or a page run names the
    claim that broke.

    >>> failed_claim("...\\nClaimError: claim 'ball_order' failed: measured 2 against expected 1\\n")
    ('ball_order', "ClaimError: claim 'ball_order' failed: measured 2 against expected 1")
    >>> failed_claim("ValueError: something else") is None
    True
    """
    found = _FAILED.search(ANSI.sub("", output))
    return (found.group(1), found.group(0)) if found else None


SOURCE_KINDS = ("declaration", "closed form", "independent implementation", "seed figure")


@dataclass(frozen=True)
class Source:
    """Where a claim's expected value comes from.

    ``kind`` is one of ``SOURCE_KINDS``; ``ref`` names it: a dotted name for a
    declaration or a seed's figure (kept in a declaration with its source), the
    implementation used (``scipy.integrate.solve_ivp``), or a short statement of the
    closed form computed on the page. Build one with :func:`declared`,
    :func:`closed_form`, :func:`independent` or :func:`seed_figure`.
    """

    kind: str
    ref: str

    def __post_init__(self) -> None:
        if self.kind not in SOURCE_KINDS:
            raise ValueError(f"kind must be one of {SOURCE_KINDS}, got {self.kind!r}")
        if not isinstance(self.ref, str) or not self.ref.strip():
            raise ValueError(f"ref must be a non-empty string naming the source, got {self.ref!r}")


def declared(dotted: str) -> Source:
    """The expected value is a declaration kept in the code, named by its dotted path.

    >>> declared("maddening.nodes.ball.BallNode.meta")
    Source(kind='declaration', ref='maddening.nodes.ball.BallNode.meta')
    """
    return Source("declaration", dotted)


def closed_form(statement: str) -> Source:
    """The expected value is a closed form computed on the page, independently of the code under test."""
    return Source("closed form", statement)


def independent(implementation: str) -> Source:
    """The expected value comes from an independent implementation (SciPy, Diffrax, a direct solve)."""
    return Source("independent implementation", implementation)


def seed_figure(dotted: str) -> Source:
    """The expected value is a figure a seed states, kept once in the declaration named here."""
    return Source("seed figure", dotted)


@dataclass(frozen=True)
class Claim:
    """One recorded claim of a page."""

    key: str
    measured: float
    expected: float
    rtol: float | None
    atol: float | None
    unit: str
    passed: bool
    description: str = ""
    source: Source | None = None
    example: bool = False

    @property
    def tolerance(self) -> str:
        """Return the tolerance as a reader sees it (``exact``, an absolute band, a relative one, or both)."""
        parts = []
        if self.atol:  # three significant digits at most: a computed tolerance (0.300133) reads as 0.3
            parts.append(f"±{self.atol:.3g}" + (f" {self.unit}" if self.unit else ""))
        if self.rtol:
            parts.append(f"{self.rtol:.2g} relative")
        return " + ".join(parts) if parts else "exact"


_CLAIMS: dict[str, Claim] = {}
_FAILURES: dict[str, Claim] = {}  # record mode: the first failure of each claim, kept if it is made again


def reset_claims() -> None:
    """Forget every claim recorded so far in this process (a page is one process)."""
    _CLAIMS.clear()
    _FAILURES.clear()
    reset_notes()


def forget(key: str) -> None:
    """Drop one recorded claim: for a page that shows or probes a failing claim on purpose.

    In record mode a failure recorded for it is kept (:func:`recorded_failures`): the build
    would have stopped there. A claim that fails on purpose is made inside :func:`raising`.
    Raises ``KeyError`` naming the claim if it was never made.
    """
    if key not in _CLAIMS:
        raise KeyError(f"no claim {key!r} was made on this page")
    del _CLAIMS[key]


def recorded_failures() -> list[Claim]:
    """Record mode: every claim that failed on this page (its first failure), in the order they failed.

    A claim made again after a failure, or forgotten after it, keeps its failure here: in the
    normal build the page would have stopped at it.
    """
    return list(_FAILURES.values())


def all_claims() -> list[Claim]:
    """The claims recorded so far, in the order they were first made."""
    return list(_CLAIMS.values())


def _check_tolerance(name: str, value: float | None) -> float | None:
    if value is None:
        return None
    number = as_float(value, name=name)
    if not math.isfinite(number) or number < 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    return number


def claim(
    key: str,
    measured: Any,
    expected: Any,
    *,
    rtol: float | None = None,
    atol: float | None = None,
    unit: str = "",
    source: Source | None = None,
    example: bool = False,
) -> float:
    """Check a measured value against a declared one, glue both, and record the claim.

    The claim holds when ``|measured - expected| <= atol + rtol * |expected|``
    (missing tolerances count as zero, so with neither the values must be equal).
    A NaN or infinite measurement never holds.

    The measured value is glued under ``key`` and the expected value under
    ``key + "_expected"``, so the prose can show both with ``{glue:text}``.

    Args:
        key: The claim's name, an identifier; also its glue key.
        measured: The value the page measured (a Python, NumPy or JAX scalar).
        expected: The value the code declares.
        rtol: Relative tolerance, a fraction of ``|expected|``.
        atol: Absolute tolerance, in ``unit``.
        unit: The unit of both values, shown in the claims table.
        source: Where ``expected`` comes from (:class:`Source`).
        example: Page arithmetic or a reference formula with no product code under test
            (see :func:`example`): shown and checked, kept outside the claims' counts.

    Returns:
        The measured value, as a Python float.

    Raises:
        ClaimError: The measurement is outside the tolerance (in record mode, the failure
            is recorded and nothing is raised).

    >>> claim("doc_order", 1.002, 1.0, atol=0.02)
    1.002
    >>> claim("doc_bad", 2.0, 1.0, atol=0.02)
    Traceback (most recent call last):
    ...
    specbook.ClaimError: claim 'doc_bad' failed: measured 2 against expected 1 (tolerance ±0.02): off by 1, allowed 0.02
    """
    if not isinstance(key, str) or not key.isidentifier():
        raise ValueError(f"key must be an identifier-like string, got {key!r}")
    rtol = _check_tolerance("rtol", rtol)
    atol = _check_tolerance("atol", atol)
    m = as_float(measured, name="measured")
    e = as_float(expected, name="expected")
    allowed = _allowed(e, atol, rtol)
    diff = abs(m - e)
    passed = math.isfinite(m) and math.isfinite(e) and diff <= allowed
    if source is not None and not isinstance(source, Source):
        raise TypeError(f"source must be a specbook.Source, got {source!r}")
    record = Claim(key=key, measured=m, expected=e, rtol=rtol, atol=atol, unit=unit, passed=passed,
                   source=source, example=bool(example))
    _CLAIMS[key] = record
    glue_raw(key, m)
    glue_raw(key + "_expected", e)
    if not passed:
        _fail(record, f"claim {key!r} failed: measured {m:.10g} against expected {e:.10g}"
                      f" (tolerance {record.tolerance}): off by {diff:.3g}, allowed {allowed:.3g}")
    return Measured(m)  # a float that a cell ending with this claim does not display


def _fail(record: Claim, message: str) -> None:
    """Raise the claim's failure, or in record mode keep it (the first one) and go on."""
    if record_mode():
        _FAILURES.setdefault(record.key, record)
        return
    raise ClaimError(message, record.key)


def example(
    key: str,
    measured: Any,
    expected: Any,
    *,
    rtol: float | None = None,
    atol: float | None = None,
    unit: str = "",
    source: Source | None = None,
) -> float:
    """An example: page arithmetic or a reference formula, with no product code under test.

    It is made, glued and checked exactly as :func:`claim` makes a claim (a false example
    still fails the build: the page's own arithmetic is wrong), but it is no claim about
    the product: no fault of the code can break it, so the kill matrix does not ask for
    one, and the book lists it apart, outside the claims' counts. ``source`` says where the
    expected value comes from, as for a claim.

    >>> example("doc_forward_difference_order", 1.001, 1.0, atol=0.01,
    ...         source=closed_form("forward differences are first order"))
    1.001
    """
    return claim(key, measured, expected, rtol=rtol, atol=atol, unit=unit, source=source, example=True)


def check(key: str, condition: Any, description: str, *, source: Source | None = None,
          example: bool = False) -> bool:
    """Record an exact claim, a condition that must hold (``bitwise equal``, ``raises``).

    It shows in the claims table with its description, and raises
    :class:`ClaimError` when the condition is false (in record mode it records the
    failure and returns ``False``). ``example=True`` marks a condition about the page's
    own arithmetic, as :func:`example` does for a number.

    >>> check("doc_bits", 0.1 + 0.2 == 0.30000000000000004, "rounding is IEEE")
    True
    """
    if not isinstance(key, str) or not key.isidentifier():
        raise ValueError(f"key must be an identifier-like string, got {key!r}")
    if not isinstance(description, str) or not description:
        raise ValueError("description must be a non-empty string saying what is checked")
    ok = bool(condition)
    record = _CLAIMS[key] = Claim(
        key=key, measured=float(ok), expected=1.0, rtol=None, atol=None, unit="",
        passed=ok, description=description, source=source, example=bool(example),
    )
    glue_raw(key, "holds" if ok else "fails")
    if not ok:
        _fail(record, f"claim {key!r} failed: {description} does not hold")
        return False
    return HOLDS  # equal to True; a cell ending with this check does not display it


ClaimError.__module__ = "specbook"

"""Comparing two claim ledgers: which measured values moved, which claims came and went.

A claim is the same claim in both when its page and key match. It is listed as *moved* when
its measured value changed by more than a tenth of its tolerance (``atol + rtol * |expected|``;
for an exact claim, any change at all), and it is always listed when it stopped or started
holding. A claim that some fault broke in the old ledger and none breaks in the new one is
listed as *unproven* (both ledgers must hold a kill matrix). ``python -m specbook.diff``
prints them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from specbook import _numbers

__all__ = ["MOVE_FRACTION", "LedgerDiff", "diff_ledgers"]

MOVE_FRACTION = 0.1
"""A measured value has *moved* when it changed by more than this fraction of the claim's tolerance."""


@dataclass
class LedgerDiff:
    """What changed between two ledgers: lists of ``(page, key, ...)`` rows."""

    moved: list[tuple[str, str, Any, Any, float]] = field(default_factory=list)
    added: list[tuple[str, str]] = field(default_factory=list)
    removed: list[tuple[str, str]] = field(default_factory=list)
    unproven: list[tuple[str, str, tuple[str, ...]]] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.moved or self.added or self.removed or self.unproven)

    def lines(self) -> list[str]:
        """The differences as lines a person reads, most telling first."""
        out = [f"moved    {page}: {key}: {old} -> {new} ({share:.3g} of its tolerance)"
               if math.isfinite(share) else f"moved    {page}: {key}: {old} -> {new}"
               for page, key, old, new, share in self.moved]
        out += [f"added    {page}: {key}" for page, key in self.added]
        out += [f"removed  {page}: {key}" for page, key in self.removed]
        out += [f"unproven {page}: {key}: no fault breaks it any more (was {', '.join(was)})"
                for page, key, was in self.unproven]
        return out


def _float(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def _allowed(entry: dict[str, Any]) -> float:
    return _numbers.allowed(_float(entry.get("expected")), entry.get("atol"), entry.get("rtol"))


def diff_ledgers(old: dict[str, Any], new: dict[str, Any], fraction: float = MOVE_FRACTION) -> LedgerDiff:
    """The claims of ``new`` whose measured value moved beyond ``fraction`` of their tolerance, and those added or removed.

    >>> a = {"claims": [{"page": "p.md", "key": "x", "measured": 1.0, "expected": 1.0, "atol": 0.1, "holds": True}]}
    >>> b = {"claims": [{"page": "p.md", "key": "x", "measured": 1.02, "expected": 1.0, "atol": 0.1, "holds": True}]}
    >>> diff_ledgers(a, b).lines()
    ['moved    p.md: x: 1.0 -> 1.02 (0.2 of its tolerance)']
    >>> diff_ledgers(a, a)
    LedgerDiff(moved=[], added=[], removed=[], unproven=[])
    """
    before = {(c["page"], c["key"]): c for c in old.get("claims", [])}
    after = {(c["page"], c["key"]): c for c in new.get("claims", [])}
    result = LedgerDiff()
    for name, entry in after.items():
        if name not in before:
            result.added.append(name)
            continue
        previous = before[name]
        m_old, m_new = _float(previous.get("measured")), _float(entry.get("measured"))
        allowed = _allowed(entry)
        change = abs(m_new - m_old)
        same = m_old == m_new or (math.isnan(m_old) and math.isnan(m_new))
        flipped = bool(previous.get("holds")) != bool(entry.get("holds"))
        if flipped or (not same and (allowed == 0.0 or not change <= fraction * allowed)):
            share = change / allowed if allowed > 0 and math.isfinite(change) else math.inf
            result.moved.append((*name, previous.get("measured"), entry.get("measured"), share))
    result.removed = [name for name in before if name not in after]
    if old.get("faults") and new.get("faults"):
        result.unproven = [(*name, tuple(before[name]["killed_by"])) for name, entry in after.items()
                           if name in before and before[name].get("killed_by") and not entry.get("killed_by")]
    return result


LedgerDiff.__module__ = "specbook.diff"  # documented, and imported, from there

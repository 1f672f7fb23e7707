"""The anomaly registry: known defects, each pinned by a test and shown in the book.

An anomaly is a record (``Anomaly``) in code, a test that shows it (strict xfail
while it is open) and a live row in the book. Packages register their records
at import; ``all_records()`` returns them in registration order.

>>> rec = get("MADD-ANO-011")
>>> rec.status, rec.affects[0]
('open', 'maddening.nodes.ball.BallNode.meta')
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from maddening.errors import invalid

__all__ = ["Anomaly", "FigureRow", "STATUSES", "all_records", "figure_rows", "get", "register"]

STATUSES = ("open", "resolved")


@dataclass(frozen=True)
class Anomaly:
    """A known defect.

    Attributes:
        id: Stable identifier, such as ``MADD-ANO-011``.
        title: One line saying what is wrong.
        affects: Dotted names of the affected objects.
        status: ``"open"`` or ``"resolved"``.
        resolved_in: The framework version that resolved it (``None`` while open).
        pinned_by: The pytest node id of the test that shows it.
        figures: Reference figures stated when the anomaly was recorded (with
            ``source``); a page compares its live measurement against them.
        summary: What happens, in a few sentences.
        source: Where ``figures`` come from.
        measure: Optional callable returning figures measured now, keyed like
            ``figures``. A stated figure with no live counterpart is shown as
            stated only; a live figure with no stated one is shown as measured.
        tolerance: Absolute tolerance for comparing ``measure()`` with ``figures``: one
            number for every figure, or a mapping from each stated figure to its own (figures
            of different units or sizes; a figure the mapping leaves out is compared exactly).
    """

    id: str
    title: str
    affects: tuple[str, ...]
    status: str
    resolved_in: str | None
    pinned_by: str
    figures: Mapping[str, float] = field(default_factory=dict)
    summary: str = ""
    source: str = ""
    measure: Callable[[], Mapping[str, float]] | None = field(default=None, compare=False, repr=False)
    tolerance: float | Mapping[str, float] = 0.0

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise invalid("status", self.status, f"one of {list(STATUSES)}", where=self.id)
        if (self.status == "resolved") != (self.resolved_in is not None):
            raise invalid(
                "resolved_in", self.resolved_in,
                "a version when status is 'resolved', and None when it is 'open'", where=self.id,
            )
        bounds = dict(self.tolerance) if isinstance(self.tolerance, Mapping) else {"*": self.tolerance}
        for name, bound in bounds.items():
            if isinstance(bound, bool) or not isinstance(bound, (int, float)) or not bound >= 0.0:
                raise invalid("tolerance", self.tolerance, "a number >= 0, or a mapping of stated figures to numbers >= 0",
                              where=self.id)
            if name != "*" and name not in self.figures:
                raise invalid("tolerance", self.tolerance, f"bounds for stated figures only ({sorted(self.figures)})",
                              where=self.id)

    def tolerance_for(self, figure: str) -> float:
        """The absolute tolerance of one figure (the record's one number, or the figure's own)."""
        if isinstance(self.tolerance, Mapping):
            return float(self.tolerance.get(figure, 0.0))
        return float(self.tolerance)


_REGISTRY: dict[str, Anomaly] = {}


def register(record: Anomaly) -> Anomaly:
    """Add ``record`` to the registry; registering the same record again is a no-op.

    A different record under an id already taken raises ``maddening.ValidationError``.
    """
    if not isinstance(record, Anomaly):
        raise invalid("record", record, "a maddening.anomalies.Anomaly")
    existing = _REGISTRY.get(record.id)
    if existing is not None and existing != record:
        raise invalid("record.id", record.id, "an id not already registered with a different record")
    _REGISTRY[record.id] = record
    return record


def get(id: str) -> Anomaly:
    """The record with ``id``; an unknown id raises ``maddening.ValidationError``."""
    try:
        return _REGISTRY[id]
    except (KeyError, TypeError):
        raise invalid("id", id, f"one of {sorted(_REGISTRY)}") from None


def all_records() -> list[Anomaly]:
    """Every registered record, in registration order."""
    return list(_REGISTRY.values())


@dataclass(frozen=True)
class FigureRow:
    """One figure of an anomaly: as stated when recorded, and as measured now (``None`` if absent)."""

    anomaly: str
    figure: str
    stated: float | None
    measured: float | None
    tolerance: float

    @property
    def compared(self) -> bool:
        """Whether both a stated and a measured value exist."""
        return self.stated is not None and self.measured is not None


def figure_rows(record: Anomaly, *, measure: bool = True) -> list[FigureRow]:
    """The record's figures side by side with ``record.measure()`` (run now, if the record has one).

    ``measure=False`` lists the stated figures alone, none measured: for a page that shows
    records whose figures are measured, and claimed, on another page.
    """
    live = dict(record.measure()) if measure and record.measure is not None else {}
    names = list(record.figures) + [k for k in live if k not in record.figures]
    return [
        FigureRow(record.id, name, record.figures.get(name), live.get(name), record.tolerance_for(name))
        for name in names
    ]

"""What a node declares about itself: its algorithm, order, regimes, references and history.

These are plain frozen dataclasses. The package never renders them; the book does.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

__all__ = [
    "ChangelogEntry",
    "DiscretizationOrder",
    "NodeMeta",
    "Reference",
    "Stability",
    "ValidatedRegime",
]


class Stability(str, enum.Enum):
    """How settled a node's interface and behaviour are."""

    EXPERIMENTAL = "experimental"
    STABLE = "stable"
    DEPRECATED = "deprecated"


@dataclass(frozen=True)
class DiscretizationOrder:
    """The declared order of accuracy of a discretization.

    The global error of a scheme of order ``p`` in time falls as ``dt**p``.
    ``None`` means the node claims no order in that direction (an ODE node has no
    spatial discretization).

    >>> DiscretizationOrder(spatial=None, temporal=1.0).temporal
    1.0
    """

    spatial: float | None = None
    temporal: float | None = None


@dataclass(frozen=True)
class ValidatedRegime:
    """A parameter range over which the node has been checked.

    ``low`` and ``high`` bound the range (inclusive), in ``units``.
    """

    parameter: str
    low: float
    high: float
    units: str = ""
    notes: str = ""


@dataclass(frozen=True)
class Reference:
    """A published work the node rests on: its bibliography key and what it is cited for."""

    key: str
    note: str = ""


@dataclass(frozen=True)
class ChangelogEntry:
    """One change in a node's history: its version, the date (ISO 8601) and what changed."""

    version: str
    date: str
    change: str


@dataclass(frozen=True)
class NodeMeta:
    """Everything a node declares about its algorithm.

    Attributes:
        algorithm_id: Stable identifier, such as ``MADD-NODE-001``.
        version: The node's own version (not the framework's).
        stability: How settled the node is.
        discretization: The name of the time-stepping scheme the node declares.
        order: The declared order of accuracy.
        assumptions: Modelling simplifications, one sentence each.
        validated_regimes: Parameter ranges that have been checked.
        references: Bibliography keys and what each is cited for.
        changelog: The node's history, oldest first.
    """

    algorithm_id: str
    version: str
    stability: Stability
    discretization: str
    order: DiscretizationOrder
    assumptions: tuple[str, ...] = ()
    validated_regimes: tuple[ValidatedRegime, ...] = ()
    references: tuple[Reference, ...] = ()
    changelog: tuple[ChangelogEntry, ...] = field(default_factory=tuple)

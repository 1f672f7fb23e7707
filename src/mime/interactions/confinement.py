"""What a contact's projection plan builds: a :class:`Confinement`, public typed data.

``Contact.plan`` (and ``CentreContact.plan``) return a ``Confinement``: the entry's
settings as built, the build's :class:`BuildReport`, and the ``hold``, the pytree
the body's step takes as its input (``StepInputs.hold``; a
:class:`~mime.interactions._hold.HullHold` or a :class:`~mime.interactions._centre.CentreHold`).
The built experiment hands it to the body's step (``BuiltExperiment.step_inputs``);
nothing is attached to the body, so building twice gives the same result.

A plan's result says which of the body's inputs it feeds with ``feeds``: a
confinement feeds ``body.confinement``, the penalty rung's springs
``body.applied_wrench``, as the rungs' Requires rows name them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from mime.errors import OneOf, invalid
from mime.geometry import Hull

__all__ = ["Confinement", "BuildReport", "RULES", "RULE", "checked_hull"]

RULES = ("remove_outward",)
"""The rules a contact may take."""
RULE = OneOf("one of " + ", ".join(RULES), choices=RULES)
"""The declared check of a contact's ``rule``."""


@dataclass(frozen=True)
class BuildReport:
    """What the build counted.

    Attributes:
        mode: ``"hull"`` (held by points of the hull) or ``"centre"`` (the centre held at an extent).
        spacing: the sampling spacing, m (``None`` for the centre hold).
        samples: how many samples of the hull.
        group_sizes: the samples in each group.
        starts: each group's count of search starts.
        shortfall: how far the hull's samples may fall short of its surface, m.
        held_by_samples: whether some part of the hull is held at its samples (no support query).
    """

    mode: str
    spacing: float | None
    samples: int
    group_sizes: tuple[int, ...]
    starts: tuple[int, ...]
    shortfall: float
    held_by_samples: bool


@dataclass(frozen=True, eq=False)
class Confinement:
    """A built confinement: the settings it was built with, its ``hold`` and the build's ``report``.

    Attributes:
        version: the entry's version that built it (``"0.4.0"``, ``"0.1.0"``).
        rule: the velocity rule (``"remove_outward"``).
        surface: the surface the body is held against.
        spacing: the hull's sampling spacing, m (``None`` where no hull is sampled).
        hold: what the body's step takes (``StepInputs.hold``), a JAX pytree.
        report: what the build counted (:class:`BuildReport`).
    """

    version: str
    rule: str
    surface: Any
    spacing: float | None
    hold: Any
    report: BuildReport

    feeds: ClassVar[str] = "body.confinement"
    """The body's input this plan feeds (the projection rung's Requires row)."""

    @property
    def margin(self) -> float:
        """How far each hull point is held from the surface, m (read from the hold, where it is kept)."""
        return float(self.hold.margin)

    @property
    def reads_orientation(self) -> bool:
        """Whether the hold reads the body's orientation (0.1.0's centre hold never does)."""
        return bool(self.hold.reads_orientation)


def checked_hull(rule: Any, body: Any, surface: Any, where: str) -> Hull:
    """The body's hull, after checking the rule, the surface and the body.

    The margin is checked once, by the entry's ``margin`` setting (a positive length),
    before the plan converts it to metres.
    """
    RULE.check(rule, "rule", where=where)
    if not callable(getattr(surface, "distance_and_normal", None)):
        raise invalid("surface", surface, "a mime.scene surface such as tube.inner_surface or floor.surface",
                      where=where)
    hull = getattr(body, "hull", None)
    if not isinstance(hull, Hull):
        raise invalid("body", body, "a body with a mime.geometry.Hull (a RigidInertialNode)", where=where)
    return hull

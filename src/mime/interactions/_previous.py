"""Kept earlier versions of MIME's interactions.

``CentreContact`` is ``contact`` 0.1.0. It holds the body's centre at the body's
extent about its own axis from the surface and never reads the orientation, so a
long body turned across a narrow tube passes through the wall. It stays
registered so that a saved document naming 0.1.0 loads and reproduces; a script
that writes ``Contact`` gets the current version. Its hold, the centre's one row,
is ``mime.interactions._centre.CentreHold``.

>>> from mime.units import mm
>>> CentreContact(rung="projection", margin=mm(0.1)).version
'0.1.0'
"""

from __future__ import annotations

from typing import Any, ClassVar

from mime.interactions.contact import CONTACT_FAMILY, Contact
from mime.registry import (
    Family,
    GradientStatus,
    Interaction,
    Role,
    Rung,
    Setting,
    Switch,
    ValidityLine,
    register,
    resolve_settings,
)
from mime.units import Length

__all__ = ["CentreContact"]

_BY_NAME = {s.name: s for s in Contact.switches}


@register
class CentreContact(Interaction):
    """``contact`` 0.1.0: hold the body's centre at its extent from the surface (orientation unread)."""

    namespace: ClassVar[str] = "mime"
    name: ClassVar[str] = "contact"
    version: ClassVar[str] = "0.1.0"
    description: ClassVar[str] = (
        "A rigid body's centre held at the body's extent about its own axis from a fixed surface, "
        "the orientation never read."
    )
    family: ClassVar[Family] = CONTACT_FAMILY
    notes: ClassVar[str | None] = "centre_contact_notes.md"
    references: ClassVar[tuple[str, ...]] = ("StewartTrinkle1996",)

    holds_off: ClassVar[str | None] = "margin"  # id_roles, moving, includes_lubrication: Interaction's defaults

    CONTACT_ULPS: ClassVar[int] = Contact.CONTACT_ULPS
    constants: ClassVar[dict[str, str]] = {"CONTACT_ULPS": Contact.constants["CONTACT_ULPS"]}

    settings: ClassVar[tuple[Setting, ...]] = Contact.settings[:3]  # margin, rule, rung
    roles: ClassVar[tuple[Role, ...]] = Contact.roles
    rungs: ClassVar[tuple[Rung, ...]] = (
        Contact.rungs[0],  # projection, as 0.4.0 declares it
        Rung("penalty", built=False,
             note="0.1.0 holds the centre by projection alone; the penalty rung is built from version 0.4.0 on "
                  "(Contact.Penalty)"),
    )
    """Projection alone is built. The penalty rung, which 0.4.0 builds, is reserved here, so that a
    ``CentreContact(rung="penalty")`` is refused when it is made instead of holding the centre by projection."""
    gradient: ClassVar[GradientStatus] = GradientStatus.PIECEWISE_JUMP
    switches: ClassVar[tuple[Switch, ...]] = tuple(
        _BY_NAME[n]
        for n in (
            "contact.band",
            "contact.outward",
            "contact.hold",
            "contact.closing",
            "contact.scale",
            "contact.project",
            "contact.rule",
            "contact.rule_outward",
        )
    )
    validity: ClassVar[tuple[ValidityLine, ...]] = (
        ValidityLine(
            "projection",
            "the body's centre is held at the body's extent about its own axis from the surface, "
            "plus the margin; the orientation is never read, so the hold is exact for a sphere and "
            "a body turned across a narrow tube passes through the wall by as much as it reaches "
            "past that extent",
        ),
        ValidityLine(
            "projection",
            "inelastic and frictionless, a rigid surface and a rigid body, with no near-wall "
            "lubrication, as in later versions",
        ),
    )

    @classmethod
    def Projection(cls, **settings: Any) -> "CentreContact":
        """``CentreContact(rung="projection", **settings)``."""
        return cls.on_rung("projection", settings)

    def plan(self, *, body: Any, surface: Any, profile: Any) -> Any:
        """Build the centre confinement (``mime.interactions._centre.build_centre_confinement``): a
        :class:`~mime.interactions.confinement.Confinement` whose hold the body's step takes; the body is left as it was."""
        roles = {"body": body, "surface": surface}
        self.declared_rung(self["rung"]).check(roles, where=self.label())
        values = {r.name: r.value for r in resolve_settings(self, profile, roles)}
        from mime.interactions._centre import build_centre_confinement

        return build_centre_confinement(
            margin=values["margin"].si(Length, argument="margin"),
            rule=values["rule"],
            body=body,
            surface=surface,
        )

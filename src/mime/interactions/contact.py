"""``Contact`` 0.4.0: a rigid body held on the free side of a fixed surface.

This module declares the entry: its settings, roles, rungs, switches, validity lines and class
variables, which the entry's page renders and the experiment's build reads. What each rung does
is told once, in the hand-written part of the page (``contact_notes.md``); the numerics are in
``mime.interactions._build`` (the projection rung's build), ``mime.interactions._hold`` (its hold,
which the body's step takes as an input), ``mime.interactions._solve`` (the Delassus matrix and
projected Gauss-Seidel) and ``mime.interactions._penalty`` (the penalty rung's springs).

>>> from mime.units import mm, N_per_m
>>> c = Contact.Projection(margin=mm(0.1))
>>> c == Contact(rung="projection", margin=mm(0.1))
True
>>> c.to_document() == Contact(rung="projection", margin=mm(0.1)).to_document()
True
>>> Contact.Penalty(margin=mm(0.1), stiffness=N_per_m(1e5))["stiffness"]
N_per_m(100000.0)
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Mapping

from mime.errors import invalid, required
from mime.interactions import _build, _hold
from mime.registry import (
    NOT_USED,
    REQUIRED,
    DefaultKind,
    Family,
    GradientStatus,
    Interaction,
    Requires,
    Role,
    Rung,
    Setting,
    SettingRole,
    Switch,
    ValidityLine,
    register,
    resolve_settings,
)
from mime.units import Damping, Length, N_s_per_m, Quantity, Stiffness, m

__all__ = ["Contact", "CONTACT_FAMILY", "hull_size"]

CONTACT_FAMILY = Family(
    "contact",
    conformance=(
        "The family's conformance suite is run by a test of MIME or of the lab that uses it; "
        "which test, and in which lane, is settled when the evidence resolver lands."
    ),
)

def hull_size(body: Any) -> float | None:
    """The body's hull size in metres (``body.size``), or ``None`` for a body with no hull.

    A body is hull-less when it says ``has_hull = False`` or its ``size`` is ``None``.
    """
    if not getattr(body, "has_hull", True):
        return None
    size = getattr(body, "size", None)
    if size is None:
        return None
    if isinstance(size, Quantity):
        return size.si(Length, argument="body.size")
    return float(size)


def _default_spacing(values: Mapping[str, Any], roles: Mapping[str, Any]) -> Any:
    size = hull_size(roles.get("body"))
    if size is None:
        return NOT_USED
    return m(_build.default_spacing(values["margin"].si(Length, argument="margin"), size))


def _positive(q: Quantity) -> bool:
    return q.value > 0


def _non_negative(q: Quantity) -> bool:
    return q.value >= 0


def _penalty_only(values: Mapping[str, Any], roles: Mapping[str, Any]) -> Any:
    return NOT_USED


def _default_damping(values: Mapping[str, Any], roles: Mapping[str, Any]) -> Any:
    return N_s_per_m(0.0) if values.get("rung") == "penalty" else NOT_USED


@register
class Contact(Interaction):
    """Hold a rigid body on the free side of a fixed surface, each hull point ``margin`` from it.

    Construct it as ``Contact.Projection(margin=mm(0.1))`` (the same as
    ``Contact(rung="projection", margin=mm(0.1))``) and attach it with roles
    ``body`` and ``surface``. Settings are :class:`~mime.units.Quantity` values;
    :meth:`plan` converts them to SI floats for the physics.
    """

    namespace: ClassVar[str] = "mime"
    name: ClassVar[str] = "contact"
    version: ClassVar[str] = "0.4.0"
    description: ClassVar[str] = (
        "A rigid body held on the free side of a fixed surface by projection, every point of its "
        "hull at least the margin from it, its orientation read."
    )
    family: ClassVar[Family] = CONTACT_FAMILY
    notes: ClassVar[str | None] = "contact_notes.md"
    references: ClassVar[tuple[str, ...]] = ("StewartTrinkle1996",)

    holds_off: ClassVar[str | None] = "margin"  # id_roles, moving, includes_lubrication: Interaction's defaults

    # the numerics' own constants, read from there (mime.interactions._build and _hold)
    SPACING_FLOOR: ClassVar[float] = _build.SPACING_FLOOR
    """The finest default spacing, as a fraction of the hull's size."""
    CONTACT_ULPS: ClassVar[int] = _hold.CONTACT_ULPS
    """The contact band's width, in units in the last place of the position's magnitude."""
    CONVERGED: ClassVar[float] = _hold.CONVERGED
    """The share of the free step's speed at the held points a step may leave unmet before it flags ``unconverged``."""
    GROUPS: ClassVar[int] = _hold.GROUPS
    """How many groups the hull's points are split into; each step holds one point of each."""
    constants: ClassVar[dict[str, str]] = {
        "SPACING_FLOOR": "the finest default spacing, as a fraction of the hull's size",
        "CONTACT_ULPS": "the contact band's width, in units in the last place of the position's magnitude",
        "CONVERGED": "the share of the free step's speed at the held points a step may leave unmet unflagged",
        "GROUPS": "how many groups the hull's points are split into; each step holds one point of each",
    }

    settings: ClassVar[tuple[Setting, ...]] = (
        # margin, rule and rung: every contact version shares them (CentreContact reads these three)
        Setting(
            "margin",
            Annotated[Quantity, Length],
            SettingRole.NUMERICAL,
            default=REQUIRED,
            constraint=_positive,
            allowed="a positive length",
        ),
        Setting(
            "rule",
            str,
            SettingRole.PHYSICAL,
            default="remove_outward",
            default_kind=DefaultKind.CONVENTION,
            rule="the setting's written default",
            basis=(
                "a contact that is frictionless and does not bounce: the velocity into the surface is "
                "taken away and nothing else, which models the contact's physics and is no solver's choice"
            ),
            choices=("remove_outward",),
        ),
        Setting("rung", str | None, SettingRole.DESIGN, default=None),
        Setting(
            "spacing",
            Annotated[Quantity | None, Length],
            SettingRole.NUMERICAL,
            default=None,
            default_kind=DefaultKind.NUMERICAL,
            rule=(
                "for a body with a hull, the contact's margin, but no finer than SPACING_FLOOR "
                "times the hull's size, so the hull's points lie about a margin apart"
            ),
            basis=(
                "a stated rule, not a converged value: a body reaches past its sampled points by at "
                "most the distance from its farthest point to the nearest sample, so sampling at the "
                "margin keeps that overshoot within the margin's share, and a margin too small to "
                "say how finely to sample falls back to the floor"
            ),
            compute=_default_spacing,
            constraint=_positive,
            allowed="a positive length",
        ),
        Setting(
            "stiffness",
            Annotated[Quantity | None, Stiffness],
            SettingRole.PHYSICAL,
            default=None,
            default_kind=DefaultKind.DETERMINED,
            rule="none for the penalty rung, which requires it; not used by the projection rung",
            basis=(
                "a penalty spring's stiffness is a model of the contact's compliance, so no rule can "
                "choose it for the script; the projection rung holds the margin exactly and has no spring"
            ),
            compute=_penalty_only,
            constraint=_positive,
            allowed="a positive stiffness",
        ),
        Setting(
            "damping",
            Annotated[Quantity | None, Damping],
            SettingRole.PHYSICAL,
            default=None,
            default_kind=DefaultKind.DETERMINED,
            rule="zero (no dashpot) for the penalty rung; not used by the projection rung",
            basis=(
                "an undamped spring is the plain penalty law, whose modes the contact-mode note "
                "analyses; a dashpot is a further model of the contact that the script states"
            ),
            compute=_default_damping,
            constraint=_non_negative,
            allowed="a damping of zero or more",
        ),
    )

    roles: ClassVar[tuple[Role, ...]] = (
        Role("body", "body"),
        Role("surface", "surface"),
    )

    rungs: ClassVar[tuple[Rung, ...]] = (
        Rung(
            "projection",
            built=True,
            requires=(
                Requires(
                    "body",
                    flags=("projects_confinement",),
                    accepts=("body.confinement",),
                    note="the body's dynamics holds a confinement inside its own update",
                ),
            ),
        ),
        Rung(
            "penalty",
            built=True,
            requires=(
                Requires(
                    "body",
                    accepts=("body.applied_wrench",),
                    note="the body's dynamics adds loads delivered into its applied wrench to its own",
                ),
            ),
            builds=(
                "Builds no node of its own: a spring at each of the hull's points, whose forces go "
                "into the body's applied wrench."
            ),
        ),
    )

    gradient: ClassVar[GradientStatus] = GradientStatus.PIECEWISE_JUMP

    switches: ClassVar[tuple[Switch, ...]] = (
        Switch(
            "contact.band",
            "how far the body's signed distance lies past the surface shrunk by its extent and the "
            "margin, m; it counts as on the surface within CONTACT_ULPS units in the last place of "
            "|x| beyond that inset (a band)",
            (("pose", -1), ("twist", -1)),
            "locate the landing inside the step and differentiate its time, as MADDENING's events "
            "are planned to (MADDENING 0.5 with MIME 0.4.0); until then, start a fit in contact and "
            "keep it there",
        ),
        Switch(
            "contact.outward",
            "the outward speed the solve leaves the body with, minus the speed that would close its "
            "gap within the step, m/s",
            (("pose", 0), ("twist", 0)),
            "none: at zero the held and the free twists agree, but their derivatives differ",
        ),
        Switch(
            "contact.hold",
            "the outward speed the hold takes away while the body lies in the band, m/s",
            (("pose", -1), ("twist", -1)),
            "its jump sits at the edge of the band and is carried by contact.band's row, which "
            "measures it; along its own indicator the held and free twists meet at zero, so the "
            "route is contact.band's, and contact.outward's across the outward speed",
        ),
        Switch(
            "contact.closing",
            "the gap to the shrunk surface, m (positive on the inside)",
            (("pose", 0), ("twist", 0)),
            "none: the speed that closes the gap is the gap's positive part",
        ),
        Switch(
            "contact.scale",
            "the body's distance from the world's origin, m, with which the band's width grows",
            (("pose", 0), ("twist", 0)),
            "a band width that is smooth in the position, for instance one built on a norm "
            "smoothed at the origin",
        ),
        Switch(
            "contact.project",
            "the body's signed distance past the shrunk surface at the end of the step, m",
            (("pose", 0),),
            "none: the projection takes away that distance's positive part",
        ),
        Switch(
            "contact.rule",
            "the body's signed distance past the shrunk surface at the end of the step, m",
            (("twist", -1),),
            "as for contact.band: locate the landing inside the step",
        ),
        Switch(
            "contact.rule_outward",
            "the component of the velocity along the outward normal where the body was projected, m/s",
            (("twist", 0),),
            "none: the rule takes away that component's positive part",
        ),
        Switch(
            "contact.point",
            "for a kind with a support query: the gap of the deepest point a group's starts reach "
            "other than the one it holds, minus the held one's; for a kind held at its samples: the "
            "gap of the group's second nearest candidate to the shrunk surface, minus its nearest's; "
            "m (zero where two tie)",
            (("pose", -1), ("twist", -1)),
            "none where the kind has a support query: a start only seeds the body's own deepest "
            "point near it, which starts from one neighbourhood reach alike, and the group holds the "
            "deepest its starts reach, so the step jumps only where two of the body's own local "
            "deepest points tie (a screw's crest passes and rims, a cylinder's two ends), as the "
            "physical contact does; for a kind held at its samples the point hops from sample to "
            "sample, a jump that shrinks with the spacing",
        ),
        Switch(
            "contact.search",
            "for a kind with a support query: how far inside its tolerance (the square root of the "
            "dtype's resolution, times the hull's size) a group's search stands of the support in "
            "its direction after its bounded steps, m (negative where it has not converged)",
            (("pose", -1), ("twist", -1)),
            "none: a search that has not converged within its bound has no point of its own to "
            "hold, its last step's point being set by rounding, so the group holds its nearest "
            "place, which is a point of the body; a longer bound moves the switch but keeps its jump",
        ),
        Switch(
            "contact.gap",
            "a held point's gap to the shrunk surface at the start of the step, m (positive on the inside)",
            (("pose", 0), ("twist", 0)),
            "none: the speed at which a point may close in the step is its gap's positive part",
        ),
        Switch(
            "contact.impulse",
            "the force a sweep's update leaves at a held point, N (negative where it would pull the "
            "body onto the surface)",
            (("pose", 0), ("twist", 0)),
            "none: a point takes a force where the step would carry it into the surface faster than "
            "its gap allows, and the twists on either side meet where that force is zero; the "
            "derivative is that of the active set",
        ),
        Switch(
            "contact.spring",
            "penalty rung: a hull point's signed distance from the surface, less the margin, m",
            (("pose", 0), ("twist", 0)),
            "none: the spring's force is zero on both sides of the switch and its slope jumps "
            "from zero to the stiffness; with a dashpot the force itself jumps by the damping times "
            "the closing speed, which is of order -1 in the twist",
        ),
        Switch(
            "contact.release",
            "penalty rung: the spring's and dashpot's force at a point inside the margin, before it "
            "is clipped at zero, N (negative where the dashpot would pull)",
            (("pose", 0), ("twist", 0)),
            "none: the force is clipped at zero, so it is continuous and its slope jumps",
        ),
        Switch(
            "contact.push",
            "the multiplier a sweep of the projection after the step leaves at a point, kg m "
            "(negative where it would pull the point outward)",
            (("pose", 0),),
            "none: the projection moves a point that ended past the shrunk surface back onto it, "
            "and the poses on either side meet where it ends exactly on it",
        ),
    )

    validity: ClassVar[tuple[ValidityLine, ...]] = (
        ValidityLine(
            "projection",
            "a rigid body against a fixed surface, each point at least the margin from it. Where the "
            "hull's kind answers the support query (sphere, ellipsoid, cylinder and capsule in closed "
            "form; the screw by Newton's steps on its own surface) the body is held at its own point "
            "that the search from the deepest of each group's starts converges to (the group's "
            "nearest sample and each next nearest apart from those already taken, as many as the "
            "hull's shape can hold local deepest points against a flat wall), so the margin is kept "
            "to the support's convergence, that is to rounding. Where a group's search does not "
            "converge within its bound, the group holds its nearest sample and the margin is kept "
            "within the samples' shortfall, raising support_short when that sample lies within the "
            "margin. The starts are counted against a flat wall; against a curved one more of a "
            "group's places can stand within the shortfall without a flag (measured on screws at "
            "the coarsest spacings the guard admits). A kind with no support query (the box, a "
            "lab's mesh) is held at its samples, so the body can reach past them by up to their "
            "shortfall: the build reports it, and refuses a spacing whose shortfall exceeds the margin",
        ),
        ValidityLine(
            "projection",
            "a kind held at its samples is held there and not on its line of contact, and a turning "
            "body's samples reach the wall off that line: the inelastic hold then acts as a friction "
            "and a shaking whose size the spacing sets. A body of revolution spun on the floor shows "
            "it by losing most of its spin, and a field-driven screw by a contact that takes a share "
            "of the field's torque; the flag held_by_samples is raised",
        ),
        ValidityLine(
            "projection",
            "a screw held by its support still loses part of its spin rolling on the floor, where a "
            "smooth cylinder keeps its spin to the last bit; the loss is nearly flat in the spacing, "
            "and its cause is not shown",
        ),
        ValidityLine(
            "projection",
            "the margin is kept as far as a fixed count of sweeps gets it: two points whose rows are "
            "coupled at c converge by c squared a sweep, and a body pressed into both walls with "
            "short levers is held to that, the projection after the step taking the rest. The "
            "solve's residual is the state's contact_residual, and a step that leaves more than "
            "CONVERGED of the free step's speed at the held points unmet raises unconverged; that "
            "test reads the motion at those points (a harder drive reads smaller for the same speed "
            "left unmet), not how far each point's force is from its own, which rows sharing a rim "
            "do not settle",
        ),
        ValidityLine(
            "projection",
            "inelastic and frictionless: no traction along the surface, no static friction, no "
            "adhesion. Friction at the contact is left to be decided with the near-contact physics, "
            "and the sweeps keep a seam for it",
        ),
        ValidityLine(
            "projection",
            "admissibility only: no near-wall lubrication is added; a drag that includes it says so, "
            "and the plan refuses a second law on one body that includes it",
        ),
        ValidityLine(
            "projection",
            "a rigid surface and a rigid body: neither the wall nor the body is compliant",
        ),
        ValidityLine(
            "projection",
            f"each step holds one point of each of the hull's {_hold.GROUPS} groups, the deepest its "
            "starts reach: a body touching in more places than that within one group (a screw lying along "
            "the floor on several crest passes) is held at the group's deepest, the others left to "
            "the projection after the step when they pass the margin. The first pass holds each "
            "group's deepest where the step ended, the second each group's deepest where the first "
            "left the body, beside the first's points, and whatever the second's turn leaves past "
            "the margin is taken by the next step",
        ),
        ValidityLine(
            "projection",
            "a group's starts, its places and the samples' shortfall are counted from the hull's "
            "settings as built, like its candidates: a study that moves a setting far keeps them",
        ),
        ValidityLine(
            "projection",
            "a body with no hull is held as a sphere of its declared extent about its centre",
        ),
        ValidityLine(
            "penalty",
            "a rigid body against a fixed surface, a linear spring (and an optional dashpot) at each "
            "of its hull's points that comes closer than the margin, acting along the surface's "
            "normal, pushing and never pulling: the margin is not kept, each point sinks into it by "
            "the load it carries over the stiffness, and a point of the hull between the samples is "
            "not felt at all",
        ),
        ValidityLine(
            "penalty",
            "the forces enter the body's applied wrench, which its dynamics integrates explicitly: a "
            "stiff spring is a fast mode whose stable step is bounded (the contact-mode note derives "
            "the bound, 2 over the fastest coupled frequency for central differences and semi-implicit "
            "Euler), and a step past it grows until a point lifts off",
        ),
        ValidityLine(
            "penalty",
            "frictionless, and the run's contact flags (touching, unconverged, held_by_samples, "
            "support_short) describe the projection rung's hold; the penalty rung's forces are read "
            "from its plan (PenaltyPlan.forces) at the recorded states",
        ),
    )

    @classmethod
    def Penalty(cls, **settings: Any) -> "Contact":
        """``Contact(rung="penalty", **settings)``; it saves identically."""
        return cls.on_rung("penalty", settings)

    def validate(self) -> None:
        """The penalty rung requires ``stiffness``; the projection rung takes neither spring setting."""
        rung = self._given.get("rung")
        if rung == "penalty" and "stiffness" not in self._given:
            raise required("stiffness", f"a Quantity of dimension {Stiffness}, such as N_per_m(1e5)",
                           where=self.label(), by="rung 'penalty'")
        if rung == "projection":
            for name in ("stiffness", "damping"):
                if name in self._given:
                    raise invalid(name, self._given[name], "it only with rung='penalty' (rung 'projection' has "
                                  "no spring)", where=self.label())

    @classmethod
    def Projection(cls, **settings: Any) -> "Contact":
        """``Contact(rung="projection", **settings)``; it saves identically."""
        return cls.on_rung("projection", settings)

    def resolved(self, *, profile: Any, body: Any, surface: Any) -> dict[str, Any]:
        """The settings resolved under ``profile`` for these bound things, as ``{name: value}``."""
        return {
            r.name: r.value
            for r in resolve_settings(self, profile, {"body": body, "surface": surface})
        }

    def plan(self, *, body: Any, surface: Any, profile: Any) -> Any:
        """Build what the rung gives the body's step; the body itself is left as it was.

        Checks the rung's Requires row, resolves the settings under ``profile`` and
        converts them to SI floats for the physics: the projection rung's
        :class:`~mime.interactions.confinement.Confinement` (``mime.interactions._build.build_confinement``),
        whose hold the step takes as ``StepInputs.hold``, or the penalty rung's springs
        (``mime.interactions._penalty.plan_penalty``), which it takes among ``StepInputs.wrenches``.
        """
        roles = {"body": body, "surface": surface}
        rung = self["rung"]
        self.declared_rung(rung).check(roles, where=self.label())
        values = self.resolved(profile=profile, body=body, surface=surface)
        margin = values["margin"].si(Length, argument="margin")
        spacing = values["spacing"]
        spacing_m = None if spacing is None else spacing.si(Length, argument="spacing")
        if rung == "penalty":
            from mime.interactions._penalty import plan_penalty

            if spacing_m is None:
                raise invalid("body", type(body).__name__, "a body with a hull: the penalty rung puts its springs "
                              "at the hull's points", where=self.label())
            return plan_penalty(
                body=body,
                surface=surface,
                stiffness=values["stiffness"].si(Stiffness, argument="stiffness"),
                damping=values["damping"].si(Damping, argument="damping"),
                spacing=spacing_m,
                margin=margin,
            )
        from mime.interactions._build import build_confinement

        return build_confinement(
            margin=margin, spacing=spacing_m, rule=values["rule"], body=body, surface=surface
        )

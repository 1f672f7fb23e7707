"""skcomplex's known defects: each a record here, a strict xfail test that shows it, and a row in the book.

skcomplex imports neither MADDENING nor MIME, so it keeps a registry of its own. A record has the
fields of ``maddening.anomalies.Anomaly`` that the book reads (its id, title, the dotted names it
affects, its status and the version that resolved it, the test that pins it, a summary, and figures
with a function that measures them), so the book's anomalies page and its boxes of known defects
read the three registries alike.

>>> record = get("SKC-ANO-001")
>>> record.status, record.resolved_in, record.affects[0]
('resolved', '0.1.0', 'skcomplex.engine.events.locate_crossing')
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from skcomplex.exceptions import ValidationError

__all__ = ["Anomaly", "STATUSES", "all_records", "get", "register"]

STATUSES = ("open", "resolved")


@dataclass(frozen=True)
class Anomaly:
    """A known defect of skcomplex.

    Attributes:
        id: Stable identifier, ``SKC-ANO-`` and a number.
        title: One line saying what is wrong.
        affects: Dotted names of the affected objects.
        status: ``"open"`` or ``"resolved"``.
        resolved_in: The version that resolved it (``None`` while open).
        pinned_by: The pytest node id of the test that shows it.
        summary: What happens, in a few sentences.
        figures: Figures stated when it was recorded (with ``source``); none so far.
        source: Where ``figures`` come from.
        measure: Optional callable returning the figures measured now.
    """

    id: str
    title: str
    affects: tuple[str, ...]
    status: str
    resolved_in: str | None
    pinned_by: str
    summary: str = ""
    figures: Mapping[str, float] = field(default_factory=dict)
    source: str = ""
    measure: Callable[[], Mapping[str, float]] | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValidationError(f"{self.id}: status must be one of {list(STATUSES)}, got {self.status!r}")
        if (self.status == "resolved") != (self.resolved_in is not None):
            raise ValidationError(f"{self.id}: resolved_in must be a version when status is 'resolved', and None "
                                  f"when it is 'open', got {self.resolved_in!r}")

    def tolerance_for(self, figure: str) -> float:
        """The tolerance of a figure: exact, since skcomplex's records state none to compare."""
        return 0.0


_REGISTRY: dict[str, Anomaly] = {}


def register(record: Anomaly) -> Anomaly:
    """Add ``record``; the same record again is a no-op, another record under a taken id is refused."""
    if not isinstance(record, Anomaly):
        raise ValidationError(f"record must be a skcomplex.anomalies.Anomaly, got {record!r}")
    existing = _REGISTRY.get(record.id)
    if existing is not None and existing != record:
        raise ValidationError(f"record.id must be an id not already registered with another record, got {record.id!r}")
    _REGISTRY[record.id] = record
    return record


def get(id: str) -> Anomaly:
    """The record with ``id``; an unknown id is refused, naming the known ones."""
    try:
        return _REGISTRY[id]
    except (KeyError, TypeError):
        raise ValidationError(f"id must be one of {sorted(_REGISTRY)}, got {id!r}") from None


def all_records() -> list[Anomaly]:
    """Every registered record, in registration order."""
    return list(_REGISTRY.values())


register(
    Anomaly(
        id="SKC-ANO-001",
        title="A point stopped on a wall and pressed into it by its acceleration falls through the wall",
        affects=("skcomplex.engine.events.locate_crossing",
                 "skcomplex.models.physics.common.mechanics.ReflectionInteraction"),
        status="resolved",
        resolved_in="0.1.0",
        pinned_by="tests/skcomplex/test_skc_events.py::"
                  "test_a_point_stopped_on_a_floor_that_it_is_pressed_into_stays_on_it_or_the_run_says_why",
        summary=(
            "A reflection only changes a velocity. When a bounce left a point on a wall with no normal speed "
            "(restitution 0) while its acceleration pressed it into the wall, the engine took the point as "
            "sliding along the wall and searched no crossing of it, so the point passed through the wall and "
            "nothing warned. Found 2026-12-07 and resolved the same day, before a release: the step now "
            "reports a point whose speed into a wall it slides along grows past the slide floor "
            "(info['pressed']), and Simulation.run stops with RestingContactError naming the wall and the step. "
            "Two ways past that check, found the same day, were SKC-ANO-003."
        ),
    )
)

register(
    Anomaly(
        id="SKC-ANO-002",
        title="A bounce too short to leave the wall's rounding turned the point back into the wall",
        affects=("skcomplex.engine.events.locate_crossing",),
        status="resolved",
        resolved_in="0.1.0",
        pinned_by="tests/skcomplex/test_skc_events.py::"
                  "test_a_bounce_too_short_to_leave_the_walls_rounding_does_not_fall_through",
        summary=(
            "A bounce leaves the point on the wall up to rounding, sometimes a hair past it. With a small "
            "restitution (a millionth, or a billionth) the next return is so short that the path never "
            "gets back to the wall itself, only to the start's own level. The search found that return, but "
            "its last, traced Newton step aimed at the wall, moved the crossing back to the start, and the "
            "reflection there turned the departing point back into the wall, through which it fell. Found "
            "2026-12-07 while testing SKC-ANO-001's fix, and resolved the same day: from a start on the wall "
            "the last step polishes the return to the start's level, as the search does."
        ),
    )
)

register(
    Anomaly(
        id="SKC-ANO-003",
        title="A point turned into the wall it slides along, or started at rest on a two-sided wall, passed through",
        affects=("skcomplex.engine.runtime.Simulation",
                 "skcomplex.models.physics.common.mechanics.ReflectionInteraction"),
        status="resolved",
        resolved_in="0.1.0",
        pinned_by="tests/skcomplex/test_skc_events.py::"
                  "test_a_point_turned_into_the_floor_it_slides_on_stops_the_run_in_the_step_of_the_turn",
        summary=(
            "The step reported a point pressed into a wall it slides along (RestingContactError) from the "
            "guard's rate at the end of each event pass, read before the reflections of that pass. A point "
            "sliding along the floor into a corner, whose other wall turned it straight down, therefore left "
            "the slide unseen and fell through the floor. And the side a point is pressed into was the wall's "
            "direction, or for a two-sided wall (direction 0) the side of its last impact, so a point started "
            "at rest on a two-sided wall that was never hit was not watched. Found 2026-12-07 in a review of "
            "SKC-ANO-001's fix, and resolved the same day, before a release: the step also reads each wall's "
            "rate at the start of a pass, so a point on a wall that moves into it there (turned by the last "
            "pass's reflections) is reported, and a two-sided wall never hit takes the side the point moves "
            "to; a point that starts on a wall, or slides along it from such a start, is on it for the next "
            "pass. A review of the fix found a tangency turned into an error: a ball whose apex lands exactly "
            "on a ceiling was reflected there, or at a 'return' the search found in the rounding just after "
            "the touch, while it already moved away. A located crossing must now move into the wall (the "
            "guard's rate there points in), which also drops a few such false returns from curved walls' "
            "runs. The check watches only walls that hold a point (not a pure event "
            "marker), and judges a slide where the wall acts at the first sample time the point moves in, "
            "so a ledge holds what lies on it and lets a point fall past its edge or through a hole."
        ),
    )
)


register(
    Anomaly(
        id="SKC-ANO-004",
        title="Hits on two walls at once reflected the point off a wall it had already left",
        affects=("skcomplex.engine.runtime.Simulation",
                 "skcomplex.models.physics.common.mechanics.ReflectionInteraction"),
        status="resolved",
        resolved_in="0.1.0",
        pinned_by="tests/skcomplex/test_skc_events.py::"
                  "test_an_inelastic_drop_onto_a_wide_vertex_is_reflected_once",
        summary=(
            "When a point met two walls in the same instant (a vertex), the step reflected it off each wall in "
            "turn. At a right-angled corner that is the right answer, but where the walls meet at another "
            "angle the first reflection can already send the point away from the second wall, and reflecting "
            "it there as well turned it into that wall. A point dropped onto the vertex of a V then passed "
            "through one wall without a word; after SKC-ANO-003's fix the step saw it moving into the wall "
            "from on it and the run stopped with RestingContactError. Found 2026-12-07 in a review of that fix, "
            "and resolved the same day, before a release. At a vertex the normal is not defined, so a rule "
            "chooses: the hit walls act in the system's order, and a wall that holds the point acts only while "
            "the point still moves into it (the first one to act acts as before, so a single hit keeps every "
            "bit). A narrow vertex, whose second reflection turns the point back into the first wall, gets up "
            "to VERTEX_SWEEPS more sweeps in the same instant; one that needs more stops the run naming a wall. "
            "The answer depends on the order of the walls: a symmetric one would need an impact law acting on "
            "both walls at once. A review of the fix found two vertices the rule did not see, both letting the "
            "point through with no error, before the fix and after its first version: one reached exactly on a step's end, whose second "
            "wall's crossing fell a rounding past the step (a wall the point reaches within TIE of the event is "
            "now hit with it), and one of two walls whose regions end at the vertex, where rounding put the hit "
            "a hair outside one region (a hit wall's region is now read just past the hit too)."
        ),
    )
)


register(
    Anomaly(
        id="SKC-ANO-005",
        title="An exit root on a sample time hid the entry before it",
        affects=("skcomplex.engine.events.locate_crossing",),
        status="resolved",
        resolved_in="0.1.0",
        pinned_by="tests/skcomplex/test_skc_events.py::"
                  "test_an_exit_root_on_a_sample_time_does_not_hide_the_entry_before_it",
        summary=(
            "The finder polishes the root of the first bracket of its samples only, and since SKC-ANO-003's fix "
            "a root where the guard does not move into the wall is no crossing: the rest of the span is then not "
            "searched in that pass. Where a sample fell exactly on an exit root, the point past the wall just "
            "before it, the bracket from the previous sample held an entry and that exit; its secant point was "
            "the exit itself, Newton's steps stayed there, the root was rejected and the entry missed. With the "
            "sample after the exit back on the point's side, the zero was taken for a touch and no bracket was "
            "even tried. Either way the point went through the wall with no error, where the run used to stop. "
            "Found 2026-12-07 in a second review of that fix (a wavy floor crossed at 12 m/s with dt = 1 s), "
            "and resolved the same day, before a release: the first sample exactly on zero in a span is read by "
            "the guard's rate there, as an entry, an exit (leaving faster than EXIT_RTOL of the span's typical rate: it ends a "
            "bracket whose entry lies inside) or a touch (it ends none), and a bracket that ends on an exit or "
            "starts on a zero sample is polished from its middle. A review of the fix found an entry on a sample "
            "taken for a touch when the guard left before the next sample: fixed and tested. Bits of runs with no "
            "sample exactly on zero are unchanged. Three zero-sample shapes are still misread: SKC-ANO-006."
        ),
    )
)


register(
    Anomaly(
        id="SKC-ANO-006",
        title="A zero sample read as a touch hides the entry before it",
        affects=("skcomplex.engine.events.locate_crossing",),
        status="open",
        resolved_in=None,
        pinned_by="tests/skcomplex/test_skc_events.py::"
                  "test_a_zero_sample_after_the_first_or_with_no_rate_does_not_hide_the_entry_before_it",
        summary=(
            "locate_crossing reads the first sample exactly on zero in a span by the guard's rate there "
            "(SKC-ANO-005); a later one is past the wall unless the next sample is back below zero, a touch. "
            "Three shapes are misread: an exit through a root of "
            "odd multiplicity three or more ((t - 0.2) (0.25 - t)^3, the exit at 0.25 on a sample, with no rate "
            "there), a tangency from the wall's far side ((t - 0.05) (t - 0.125)^2 (0.2 - t), touching zero at "
            "0.125 on a sample while past the wall), and an exit on a sample after a tangency on an earlier one "
            "(-(t - 0.125)^2 (t - 0.6) (t - 0.625)). The first two are taken for a touch from the point's side; the "
            "third too, or, where the sample after it is past the wall again, for an entry on the sample, whose "
            "polish is then rejected. In each the point was past the wall just before the sample, "
            "and the entry before it is missed: the point goes through the wall with no error. Found 2026-12-07 in "
            "a review of SKC-ANO-005's fix, in random polynomials with roots on sample times. The first two need "
            "more than the rate (the side the guard comes from); the third, a rate at every zero sample, that is a "
            "derivative at every sample of every pass of every point, for a case that needs roots on two sample "
            "times in one span. So they are "
            "pinned, not changed; each needs roots and sample times to coincide exactly."
        ),
    )
)

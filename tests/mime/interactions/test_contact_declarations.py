"""Contact 0.4.0: its declarations as the seed's page lists them, and its refusals."""

from typing import Annotated

import pytest

from mime import Contact, ValidationError, mm, um
from mime.registry import DefaultKind, GradientStatus, SettingRole
from mime.units import Length, N_per_m, N_s_per_m, Quantity, m, s

SEED_SWITCHES = (
    "contact.band", "contact.outward", "contact.hold", "contact.closing", "contact.scale",
    "contact.project", "contact.rule", "contact.rule_outward", "contact.point", "contact.search",
    "contact.gap", "contact.impulse", "contact.push",
)
PENALTY_SWITCHES = ("contact.spring", "contact.release")


def test_identity_and_family():
    assert Contact.key() == ("mime", "contact", "0.4.0")
    assert Contact.family.name == "contact" and Contact.kind == "interaction"
    assert Contact.gradient is GradientStatus.PIECEWISE_JUMP
    assert Contact.references == ("StewartTrinkle1996",)
    assert [r.name for r in Contact.roles] == ["body", "surface"]


def test_settings_as_the_seed_lists_them_then_the_penalty_rungs_two():
    rows = [(s.name, s.type_text, s.default_text, s.dimension_text, s.role, s.default_kind) for s in Contact.settings]
    assert rows == [
        ("margin", "Annotated[Quantity, Length]", '{"required": true}', "length (m)", SettingRole.NUMERICAL, None),
        ("rule", "str", "remove_outward", "none", SettingRole.PHYSICAL, DefaultKind.CONVENTION),
        ("rung", "str | None", "null", "none", SettingRole.DESIGN, None),
        ("spacing", "Annotated[Quantity | None, Length]", "null", "length (m)", SettingRole.NUMERICAL, DefaultKind.NUMERICAL),
        # the seed reserves the penalty rung; building it adds its spring's two settings
        ("stiffness", "Annotated[Quantity | None, Stiffness]", "null", "stiffness (N/m)", SettingRole.PHYSICAL, DefaultKind.DETERMINED),
        ("damping", "Annotated[Quantity | None, Damping]", "null", "damping (N s/m)", SettingRole.PHYSICAL, DefaultKind.DETERMINED),
    ]
    assert Contact.setting("spacing").type == Annotated[Quantity | None, Length]


def test_switches_are_the_seeds_in_order():
    # The issue speaks of fourteen switches "contact.band through contact.push"; the seed's
    # table lists thirteen names in that range, and the entry declares exactly those.
    names = tuple(s.name for s in Contact.switches)
    assert tuple(n for n in names if n not in PENALTY_SWITCHES) == SEED_SWITCHES
    assert set(names) - set(SEED_SWITCHES) == set(PENALTY_SWITCHES)
    for sw in Contact.switches:
        assert sw.indicator and sw.route
        assert all(group in ("pose", "twist") and order in (-1, 0) for group, order in sw.orders)
    by = {s.name: s for s in Contact.switches}
    assert by["contact.project"].orders == (("pose", 0),)
    assert by["contact.rule"].orders == (("twist", -1),)
    assert by["contact.band"].orders_text == "`pose` -1 (a jump); `twist` -1 (a jump)"


def test_ten_validity_lines_on_the_projection_rung_then_the_penalty_rungs():
    projection = [v for v in Contact.validity if v.rung == "projection"]
    assert len(projection) == 10
    assert {v.rung for v in Contact.validity} == {"projection", "penalty"}
    assert "sphere of its declared extent" in projection[-1].text
    assert [v.rung for v in Contact.validity] == ["projection"] * 10 + ["penalty"] * 3


def test_rungs_and_requires_row():
    projection, penalty = Contact.rungs
    assert projection.name == "projection" and projection.built
    (row,) = projection.requires
    assert (row.role, row.flags, row.accepts) == ("body", ("projects_confinement",), ("body.confinement",))
    assert row.text == "body: flag projects_confinement, accepts `body.confinement`"
    assert penalty.name == "penalty" and penalty.built
    (row,) = penalty.requires
    assert (row.role, row.flags, row.accepts) == ("body", (), ("body.applied_wrench",))
    assert row.text == "body: accepts `body.applied_wrench`"


def test_class_variables():
    assert (Contact.holds_off, Contact.id_roles, Contact.moving) == ("margin", None, False)
    assert Contact.includes_lubrication is False
    assert Contact.other_declarations == ("holds_off", "id_roles", "moving")
    assert 0 < Contact.SPACING_FLOOR < 1


def test_projection_is_contact_with_the_projection_rung_and_saves_identically():
    a = Contact.Projection(margin=mm(0.1))
    b = Contact(rung="projection", margin=mm(0.1))
    assert a == b and a.given == {"margin": mm(0.1), "rung": "projection"}
    assert a.to_document() == b.to_document() == {
        "entry": {"namespace": "mime", "name": "contact", "version": "0.4.0"},
        "settings": {"margin": {"unit": "mm", "value": 0.1}, "rung": "projection"},
    }


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"rung": "projection"}, r"setting 'margin' is required and was not given; expected a Quantity of dimension length \(m\)"),
        ({"margin": mm(0.1)}, r"setting 'rung' is required"),
        ({"margin": mm(0.1), "rung": "rolling"}, r"mime/contact 0.4.0: rung = 'rolling' is not allowed; expected one of projection, penalty$"),
        ({"margin": mm(0.1), "rung": "penalty"}, r"setting 'stiffness' is required by rung 'penalty' and was not given; expected a Quantity of dimension stiffness \(N/m\), such as N_per_m\(1e5\)"),
        ({"margin": mm(0.1), "rung": "projection", "stiffness": N_per_m(1e5)}, r"stiffness = N_per_m\(100000.0\) is not allowed; expected it only with rung='penalty' \(rung 'projection' has no spring\)"),
        ({"margin": mm(0.1), "rung": "projection", "damping": N_s_per_m(1.0)}, r"damping = N_s_per_m\(1.0\) is not allowed; expected it only with rung='penalty'"),
        ({"margin": mm(0.1), "rung": "penalty", "stiffness": N_per_m(0.0)}, r"stiffness = N_per_m\(0.0\) is not allowed; expected a positive stiffness"),
        ({"margin": mm(0.1), "rung": "penalty", "stiffness": mm(1.0)}, r"stiffness = mm\(1.0\) is not allowed; .*not a quantity of length \(m\)"),
        ({"margin": mm(0.1), "rung": "penalty", "stiffness": N_per_m(1e5), "damping": N_s_per_m(-1.0)}, r"damping = N_s_per_m\(-1.0\) is not allowed; expected a damping of zero or more"),
        ({"margin": mm(-0.1), "rung": "projection"}, r"margin = mm\(-0.1\) is not allowed; expected a positive length"),
        ({"margin": m(0.0), "rung": "projection"}, r"margin = m\(0.0\) is not allowed; expected a positive length"),
        ({"margin": 0.1, "rung": "projection"}, r"margin = 0.1 is not allowed; expected a Quantity of dimension length \(m\).*such as mm\(0.1\)"),
        ({"margin": s(0.1), "rung": "projection"}, r"margin = s\(0.1\) is not allowed; .*not a quantity of time \(s\)"),
        ({"margin": mm(0.1), "rung": "projection", "spacing": um(-1.0)}, r"spacing = um\(-1.0\) is not allowed"),
        ({"margin": mm(0.1), "rung": "projection", "rule": "bounce"}, r"rule = 'bounce' is not allowed; expected one of remove_outward"),
        ({"margin": mm(0.1), "rung": "projection", "friction": 0.3}, r"setting = 'friction' is not allowed; expected one of damping, margin, rule, rung, spacing, stiffness"),
    ],
)
def test_bad_inputs_are_clear_errors(kwargs, message):
    with pytest.raises(ValidationError, match=message):
        Contact(**kwargs)


def test_projection_refuses_a_rung_argument():
    with pytest.raises(ValidationError, match="sets rung='projection' itself"):
        Contact.Projection(margin=mm(0.1), rung="penalty")


def test_plan_checks_the_requires_row_before_any_physics():
    class Floaty:
        projects_confinement = False
        accepts = ()
        size = 1e-3

    with pytest.raises(ValidationError, match="does not flag projects_confinement and does not accept body.confinement"):
        Contact.Projection(margin=mm(0.1)).plan(body=Floaty(), surface=object(), profile="exploratory")

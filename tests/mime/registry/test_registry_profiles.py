"""Profiles: each default kind's behaviour in each profile, and the provenance record."""

import dataclasses
from typing import Annotated, ClassVar

import pytest

from mime import Contact, ValidationError, mm
from mime.registry import (
    NOT_USED,
    PROFILES,
    DefaultKind,
    Entry,
    Provenance,
    Setting,
    SettingRole,
    profile,
    resolve_settings,
)
from mime.units import Length, Quantity, m, ms


class Body:
    def __init__(self, size):
        self.size = size


class Kinds(Entry):
    """A stand-in entry with one setting of each default kind."""

    namespace: ClassVar[str] = "test"
    name: ClassVar[str] = "kinds"
    version: ClassVar[str] = "1.0.0"
    settings = (
        Setting("width", Annotated[Quantity, Length], SettingRole.PHYSICAL),
        Setting(
            "reach",
            Annotated[Quantity | None, Length],
            SettingRole.PHYSICAL,
            default=None,
            default_kind=DefaultKind.DETERMINED,
            rule="twice the width",
            basis="geometry",
            compute=lambda v, r: m(2 * v["width"].si()),
        ),
        Setting(
            "style",
            str,
            SettingRole.PHYSICAL,
            default="plain",
            default_kind=DefaultKind.CONVENTION,
            rule="the written default",
            basis="a convention",
        ),
        Setting(
            "step",
            Annotated[Quantity | None, Length],
            SettingRole.NUMERICAL,
            default=None,
            default_kind=DefaultKind.NUMERICAL,
            rule="a tenth of the body",
            basis="a stated rule",
            compute=lambda v, r: NOT_USED if r["body"].size is None else m(r["body"].size / 10),
        ),
    )


@pytest.mark.parametrize("name", list(PROFILES))
def test_determined_and_convention_defaults_are_taken_in_every_profile(name):
    out = {r.name: r for r in resolve_settings(Kinds(width=m(1.0), step=m(0.1)), name, {"body": Body(1.0)})}
    assert out["reach"].provenance is Provenance.DETERMINED and out["reach"].value == m(2.0)
    assert out["style"].provenance is Provenance.CONVENTION and out["style"].value == "plain"
    assert out["width"].provenance is Provenance.GIVEN and out["step"].provenance is Provenance.GIVEN


def test_numerical_default_is_taken_only_in_exploratory_and_stamped_pending():
    out = {r.name: r for r in resolve_settings(Kinds(width=m(1.0)), "exploratory", {"body": Body(2.0)})}
    assert out["step"].provenance is Provenance.PENDING
    assert out["step"].value == m(0.2)


def test_other_profiles_refuse_a_numerical_default_naming_the_setting():
    with pytest.raises(ValidationError) as err:
        resolve_settings(Kinds(width=m(1.0)), "validated", {"body": Body(2.0)})
    msg = str(err.value)
    assert "'step'" in msg and "'validated'" in msg and "exploratory" in msg and "a tenth of the body" in msg


@pytest.mark.parametrize("name", list(PROFILES))
def test_a_default_that_does_not_apply_is_unused_in_every_profile(name):
    out = {r.name: r for r in resolve_settings(Kinds(width=m(1.0)), name, {"body": Body(None)})}
    assert out["step"].provenance is Provenance.UNUSED and out["step"].value is None


def test_unknown_profile_is_refused_listing_profiles():
    with pytest.raises(ValidationError, match="profile = 'fast' is not allowed; expected one of exploratory, validated"):
        profile("fast")


def test_contact_spacing_follows_the_declared_rule_and_floor():
    c = Contact.Projection(margin=mm(0.1))
    roles = {"body": Body(1e-3), "surface": None}
    out = {r.name: r for r in resolve_settings(c, "exploratory", roles)}
    assert out["spacing"].value == m(max(1e-4, Contact.SPACING_FLOOR * 1e-3))
    tiny = Contact.Projection(margin=mm(1e-6))
    out = {r.name: r for r in resolve_settings(tiny, "exploratory", roles)}
    assert out["spacing"].value == m(Contact.SPACING_FLOOR * 1e-3)  # the floor
    assert out["rule"].provenance is Provenance.CONVENTION
    with pytest.raises(ValidationError, match="'spacing'"):
        resolve_settings(c, "validated", roles)
    given = {r.name: r for r in resolve_settings(Contact.Projection(margin=mm(0.1), spacing=mm(0.05)), "validated", roles)}
    assert given["spacing"].provenance is Provenance.GIVEN


class Misruled(Entry):
    """A stand-in entry whose determined default's rule gives a time where a length is declared."""

    namespace: ClassVar[str] = "test"
    name: ClassVar[str] = "misruled"
    version: ClassVar[str] = "1.0.0"
    settings = (dataclasses.replace(Kinds.setting("reach"), rule="the body's size, written in the wrong unit",
                                    basis="a faulty rule", compute=lambda v, r: ms(r["body"].size)),)


@pytest.mark.parametrize("name", list(PROFILES))
def test_a_computed_default_is_checked_as_a_given_value_would_be(name):
    """A default a rule computes is held to the setting's declaration, as a script's value is: a rule that
    gives a time for a length is refused, naming the entry, the default and the value."""
    with pytest.raises(ValidationError) as err:
        resolve_settings(Misruled(), name, {"body": Body(2.0)})
    msg = str(err.value)
    assert "test/misruled 1.0.0: default of 'reach'" in msg and "ms(2.0)" in msg and "length" in msg

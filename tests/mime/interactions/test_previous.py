"""The kept CentreContact 0.1.0: registered, loadable, and never what `Contact` means."""

import sys
import types

import pytest

import mime
from mime import KEPT, REGISTRY, CentreContact, Contact, ValidationError, mm
from mime.interactions import CentreContact as FromPackage


def test_kept_and_registered_under_0_1_0():
    assert CentreContact.key() == ("mime", "contact", "0.1.0")
    assert KEPT == (CentreContact,) and FromPackage is CentreContact
    assert REGISTRY.get("mime", "contact", "0.1.0") is CentreContact
    assert mime.Contact is Contact and Contact.version == "0.4.0"


def test_it_has_no_spacing_and_never_reads_the_hull():
    assert [s.name for s in CentreContact.settings] == ["margin", "rule", "rung"]
    assert all(s.name in {x.name for x in Contact.switches} for s in CentreContact.switches)
    with pytest.raises(ValidationError, match="'spacing' is not allowed"):
        CentreContact.Projection(margin=mm(0.1), spacing=mm(0.1))


def test_plan_calls_the_centre_confinement(monkeypatch):
    calls = {}

    def build_centre_confinement(**kw):
        calls.update(kw)
        return "centre"

    fake = types.ModuleType("mime.interactions._centre")
    fake.build_centre_confinement = build_centre_confinement
    monkeypatch.setitem(sys.modules, "mime.interactions._centre", fake)

    class Body:
        projects_confinement = True
        accepts = ("body.confinement",)

    body, surface = Body(), object()
    out = CentreContact.Projection(margin=mm(0.2)).plan(body=body, surface=surface, profile="validated")
    assert out == "centre"
    assert calls == {"margin": 0.2 * 1e-3, "rule": "remove_outward", "body": body, "surface": surface}


def test_its_penalty_rung_is_reserved_and_refused():
    """0.1.0 built projection alone: asked for the penalty rung, it says so rather than hold the centre."""
    assert [(r.name, r.built) for r in CentreContact.rungs] == [("projection", True), ("penalty", False)]
    assert [r.name for r in CentreContact.built_rungs()] == ["projection"]
    with pytest.raises(ValidationError, match=r"mime/contact 0\.1\.0: rung = 'penalty' is not allowed; expected "
                                              r"one of projection \(penalty is reserved, not built: 0\.1\.0 holds"):
        CentreContact(rung="penalty", margin=mm(0.1))

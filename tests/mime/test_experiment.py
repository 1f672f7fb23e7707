"""Experiments: attach, build by profile, plan rules, save and load (exact, atomic), bad documents."""

import json
import sys
import types
from typing import ClassVar

import numpy as np
import pytest

from mime import (
    CentreContact,
    Contact,
    DocumentError,
    Experiment,
    Interaction,
    ValidationError,
    document_kind,
    mm,
)
from mime import _experiment_io
from mime.registry import Provenance, Registry, Role
from mime.units import m


# -- stand-ins for engineer D's bodies and surfaces -----------------------------------------
@document_kind("test.body")
class Body:
    projects_confinement = True
    accepts = ("body.confinement",)

    def __init__(self, name="umr", size=1e-3, vertices=None):
        self.name, self.size, self.vertices = name, size, vertices

    def to_document(self):
        return {"name": self.name, "size": self.size}

    def to_arrays(self):
        return {} if self.vertices is None else {"vertices": self.vertices}

    @classmethod
    def from_document(cls, doc, arrays):
        return cls(doc["name"], doc["size"], arrays.get("vertices"))


class Surface:
    def __init__(self, tube):
        self.tube = tube

    def document_owner(self):
        return (self.tube, "inner_surface")


@document_kind("test.tube")
class Tube:
    def __init__(self, radius):
        self.radius = radius

    @property
    def inner_surface(self):
        return Surface(self)

    def to_document(self):
        return {"radius": self.radius}

    @classmethod
    def from_document(cls, doc, arrays):
        return cls(doc["radius"])


class Planned(tuple):
    """What a stand-in plan returns: a tuple that feeds the body's confinement input."""

    feeds = "body.confinement"


@pytest.fixture
def physics(monkeypatch):
    """Stand-ins for mime.interactions._build and _centre recording what the plans ask for."""
    calls = []
    build = types.ModuleType("mime.interactions._build")
    build.build_confinement = lambda **kw: calls.append(("hull", kw)) or Planned(("hull", kw["margin"], kw["spacing"]))
    centre = types.ModuleType("mime.interactions._centre")
    centre.build_centre_confinement = lambda **kw: calls.append(("centre", kw)) or Planned(("centre", kw["margin"]))
    monkeypatch.setitem(sys.modules, "mime.interactions._build", build)
    monkeypatch.setitem(sys.modules, "mime.interactions._centre", centre)
    return calls


def seed_experiment(**body):
    umr, tube = Body(**body), Tube(radius=1e-3)
    experiment = Experiment()
    experiment.attach(Contact.Projection(margin=mm(0.1)), body=umr, surface=tube.inner_surface)
    return experiment, umr, tube


# -- attaching and building ----------------------------------------------------------------
def test_the_seed_line_attaches_and_builds(physics):
    experiment, umr, tube = seed_experiment()
    assert list(experiment.things) == ["umr", "test.tube"]
    built = experiment.build(profile="exploratory")
    (kind, kw), = physics
    assert kind == "hull" and kw["margin"] == 0.1 * 1e-3 and kw["body"] is umr
    assert kw["spacing"] == max(1e-4, Contact.SPACING_FLOOR * 1e-3) and kw["rule"] == "remove_outward"
    assert isinstance(kw["surface"], Surface) and kw["surface"].tube is tube
    assert built.confinement(umr) == ("hull", 1e-4, kw["spacing"])
    assert built.deliveries(umr) == {"body.confinement": (("hull", 1e-4, kw["spacing"]),)}
    assert not hasattr(umr, "confinement")  # nothing was handed to the body
    (entry,) = built.settings_record.entries
    prov = {s.name: s.provenance for s in entry.settings}
    assert prov == {"margin": Provenance.GIVEN, "rule": Provenance.CONVENTION, "rung": Provenance.GIVEN,
                    "spacing": Provenance.PENDING, "stiffness": Provenance.UNUSED, "damping": Provenance.UNUSED}
    assert built.settings_record.pending == ("mime/contact 0.4.0: spacing",)
    assert entry.roles == (("body", "umr"), ("surface", "test.tube.inner_surface"))


def test_building_again_reuses_the_build_or_plans_afresh(physics):
    experiment, umr, tube = seed_experiment()
    first = experiment.build()
    assert experiment.build() is first and len(physics) == 1  # unchanged: the same build
    second = experiment.build(profile="exploratory")
    assert second is first
    experiment.add(Tube(2e-3), name="spare")  # a change: the next build plans again
    third = experiment.build()
    assert third is not first and len(physics) == 2
    assert third.confinement(umr) == first.confinement(umr)  # planned afresh from the same objects, equal
    assert third.confinement(umr) is third.planned[0].planned


def test_validated_refuses_the_numerical_default_and_plans_nothing(physics):
    experiment, umr, _ = seed_experiment()
    with pytest.raises(ValidationError, match="setting 'spacing' is required by profile 'validated' \\(its default is numerical"):
        experiment.build(profile="validated")
    assert physics == []


def test_a_build_made_under_one_profile_is_never_handed_out_under_another(physics):
    """The build is cached per profile: built first as exploratory (the numerical default of the spacing,
    stamped pending), the same experiment asked for under ``validated`` is resolved again, and refused."""
    experiment, umr, _ = seed_experiment()
    first = experiment.build(profile="exploratory")
    assert first.settings_record.profile == "exploratory" and first.settings_record.pending
    with pytest.raises(ValidationError, match="setting 'spacing' is required by profile 'validated'"):
        experiment.build(profile="validated")
    assert experiment.build(profile="exploratory") is first


def test_an_attachment_made_after_a_build_is_in_the_next_build(physics):
    """The cached build is the experiment's as it stood: an entry attached after it makes the next build a new
    one that holds it, even where the attachment adds no thing (a second body and tube added before the build)."""
    experiment, umr, _ = seed_experiment()
    tube, second_body = Tube(2e-3), Body("second")
    experiment.add(tube)
    experiment.add(second_body)
    first = experiment.build()
    experiment.attach(Contact.Projection(margin=mm(0.2)), body=second_body, surface=tube.inner_surface)
    again = experiment.build()
    assert again is not first
    assert len(first.planned) == 1 and len(again.planned) == 2
    assert again.planned[1].roles["body"] is second_body


def test_validated_builds_when_spacing_is_given(physics):
    umr, tube = Body(), Tube(1e-3)
    experiment = Experiment(profile="validated")
    experiment.attach(Contact.Projection(margin=mm(0.1), spacing=mm(0.05)), body=umr, surface=tube.inner_surface)
    record = experiment.build().settings_record
    assert record.profile == "validated" and record.pending == ()
    assert physics[0][1]["spacing"] == 0.05 * 1e-3


def test_a_hull_less_body_leaves_spacing_unused_in_any_profile(physics):
    umr, tube = Body(size=None), Tube(1e-3)
    experiment = Experiment()
    experiment.attach(Contact.Projection(margin=mm(0.1)), body=umr, surface=tube.inner_surface)
    rec = experiment.build(profile="validated").settings_record.entries[0]
    assert rec.resolved("spacing").provenance is Provenance.UNUSED and physics[0][1]["spacing"] is None


def test_kept_version_plans_the_centre_confinement(physics):
    umr, tube = Body(), Tube(1e-3)
    experiment = Experiment()
    experiment.attach(CentreContact.Projection(margin=mm(0.1)), body=umr, surface=tube.inner_surface)
    built = experiment.build()
    assert physics[0][0] == "centre" and built.confinement(umr) == ("centre", 1e-4)


def test_roles_must_match_the_declaration():
    with pytest.raises(ValidationError, match=r"expected exactly body, surface \(missing surface\)"):
        Experiment().attach(Contact.Projection(margin=mm(0.1)), body=Body())
    with pytest.raises(ValidationError, match=r"\(unknown wall\)"):
        Experiment().attach(Contact.Projection(margin=mm(0.1)), body=Body(), surface=Tube(1.0), wall=1)
    with pytest.raises(ValidationError, match="expected an entry instance"):
        Experiment().attach(Contact, body=Body(), surface=Tube(1.0))


def test_a_body_that_cannot_hold_a_confinement_is_refused_at_attach():
    class Point:
        accepts = ()

    with pytest.raises(ValidationError, match=r"rung = 'projection' is not allowed; expected .* needs body: flag projects_confinement.*Point does not flag"):
        Experiment().attach(Contact.Projection(margin=mm(0.1)), body=Point(), surface=Tube(1.0).inner_surface)


def test_one_contact_per_body():
    experiment, umr, tube = seed_experiment()
    with pytest.raises(ValidationError, match="body = 'umr' is not allowed; expected a body with no contact yet: it takes mime/contact 0.4.0"):
        experiment.attach(CentreContact.Projection(margin=mm(0.1)), body=umr, surface=tube.inner_surface)


class Drag(Interaction):
    namespace: ClassVar[str] = "test"
    name: ClassVar[str] = "drag"
    version: ClassVar[str] = "1.0.0"
    includes_lubrication: ClassVar[bool] = True
    roles = (Role("body", "body"),)

    def plan(self, *, profile, body):
        return None


def test_a_second_law_including_lubrication_is_refused():
    experiment, umr, _ = seed_experiment()
    experiment.attach(Drag(), body=umr)  # the contact includes none: accepted
    with pytest.raises(ValidationError, match="body = 'umr' is not allowed; expected a body with no law that includes lubrication yet: it takes test/drag 1.0.0"):
        experiment.attach(Drag(), body=umr)
    experiment.attach(Drag(), body=Body("other"))  # another body may take its own


def test_unknown_profile_is_refused():
    with pytest.raises(ValidationError, match="profile = 'quick'"):
        Experiment(profile="quick")


# -- saving and loading ----------------------------------------------------------------------
def test_document_names_entries_by_namespace_name_version_with_units(tmp_path):
    experiment, _, _ = seed_experiment()
    path = experiment.save(tmp_path / "run")
    text = path.read_text()
    assert text.endswith("}\n") and text == json.dumps(json.loads(text), sort_keys=True, indent=2) + "\n"
    (att,) = json.loads(text)["attachments"]
    assert att["entry"] == {"name": "contact", "namespace": "mime", "version": "0.4.0"}
    assert att["settings"] == {"margin": {"unit": "mm", "value": 0.1}, "rung": "projection"}
    assert att["roles"] == {"body": {"thing": "umr"}, "surface": {"thing": "test.tube", "attribute": "inner_surface"}}


def test_projection_and_explicit_rung_save_identically(tmp_path):
    docs = []
    for entry in (Contact.Projection(margin=mm(0.1)), Contact(rung="projection", margin=mm(0.1))):
        e = Experiment()
        e.attach(entry, body=Body(), surface=Tube(1e-3).inner_surface)
        e.save(tmp_path / str(len(docs)))
        docs.append((tmp_path / str(len(docs)) / "experiment.json").read_bytes())
    assert docs[0] == docs[1]


def test_round_trip_is_byte_for_byte_with_arrays(tmp_path):
    vertices = np.linspace(0.0, 1.0, 12).reshape(4, 3)
    experiment, _, _ = seed_experiment(vertices=vertices)
    first = experiment.save(tmp_path / "a").read_bytes()
    loaded = Experiment.load(tmp_path / "a")
    assert type(loaded.attachments[0].entry) is Contact
    np.testing.assert_array_equal(loaded.things["umr"].vertices, vertices)
    assert loaded.save(tmp_path / "b").read_bytes() == first
    assert sorted(p.name for p in (tmp_path / "a" / "arrays").iterdir()) == sorted(
        p.name for p in (tmp_path / "b" / "arrays").iterdir()
    )
    loaded.save(tmp_path / "a")  # saving over itself changes nothing
    assert (tmp_path / "a" / "experiment.json").read_bytes() == first


def test_a_0_1_0_document_loads_centre_contact(tmp_path):
    experiment, _, _ = seed_experiment()
    folder = tmp_path / "old"
    path = experiment.save(folder)
    doc = json.loads(path.read_text())
    doc["attachments"][0]["entry"]["version"] = "0.1.0"
    path.write_text(json.dumps(doc, sort_keys=True, indent=2) + "\n")
    loaded = Experiment.load(folder)
    (att,) = loaded.attachments
    assert type(att.entry) is CentreContact and att.entry.version == "0.1.0"
    assert loaded.document_text() == path.read_text()


def test_a_crash_mid_save_leaves_the_previous_folder_intact(tmp_path, monkeypatch):
    folder = tmp_path / "run"
    experiment, umr, _ = seed_experiment(vertices=np.arange(6.0))
    experiment.save(folder)
    before = {p.relative_to(folder): p.read_bytes() for p in folder.rglob("*") if p.is_file()}

    umr.vertices = np.arange(9.0)  # a change that needs new arrays and a new document
    umr.size = 2e-3
    real = _experiment_io._replace

    for crash_on in ("arrays", "experiment.json"):
        def replace(src, dst, _crash_on=crash_on):
            if _crash_on in str(dst):
                raise OSError("disk pulled out mid-save")
            real(src, dst)

        monkeypatch.setattr(_experiment_io, "_replace", replace)
        with pytest.raises(OSError, match="mid-save"):
            experiment.save(folder)
        monkeypatch.setattr(_experiment_io, "_replace", real)
        loaded = Experiment.load(folder)  # the previous save still loads
        assert loaded.things["umr"].size == 1e-3
        np.testing.assert_array_equal(loaded.things["umr"].vertices, np.arange(6.0))
        assert (folder / "experiment.json").read_bytes() == before[(folder / "experiment.json").relative_to(folder)]
    experiment.save(folder)  # and a later save completes and tidies
    assert Experiment.load(folder).things["umr"].size == 2e-3
    assert len(list((folder / "arrays").iterdir())) == 1


def test_a_damaged_array_file_is_refused_by_name_and_a_save_over_it_mends_it(tmp_path):
    folder = tmp_path / "run"
    experiment, _, _ = seed_experiment(vertices=np.arange(6.0))
    experiment.save(folder)
    (array,) = (folder / "arrays").iterdir()
    whole = array.read_bytes()
    array.write_bytes(whole[:20])  # a file cut short (a copy stopped half way)
    with pytest.raises(DocumentError, match=rf"things\.umr\.arrays\.vertices = 'arrays/{array.name}' is not allowed; "
                                            r"expected a \.npy file the folder holds and NumPy reads"):
        Experiment.load(folder)
    experiment.save(folder)  # the file of that name holds other bytes than the array's: it is written again
    assert array.read_bytes() == whole
    np.testing.assert_array_equal(Experiment.load(folder).things["umr"].vertices, np.arange(6.0))


def test_saving_a_thing_of_no_registered_kind_is_refused_before_writing(tmp_path):
    class Loose:
        projects_confinement = True
        accepts = ("body.confinement",)
        size = 1e-3

    e = Experiment()
    e.attach(Contact.Projection(margin=mm(0.1)), body=Loose(), surface=Tube(1e-3).inner_surface)
    with pytest.raises(ValidationError, match=r"things\.loose = '.*Loose' is not allowed; expected a thing of a registered document kind"):
        e.save(tmp_path / "x")
    assert not (tmp_path / "x").exists()


# -- bad documents ----------------------------------------------------------------------------
def _saved(tmp_path):
    experiment, _, _ = seed_experiment()
    path = experiment.save(tmp_path / "doc")
    return path, json.loads(path.read_text())


def _edit(path, doc):
    path.write_text(json.dumps(doc))


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda d: d["attachments"][0]["entry"].update(version="0.9.0"),
         r"attachments\[0\]\.entry: version = '0.9.0' is not allowed; expected a registered version of mime/contact: one of 0.1.0, 0.4.0"),
        (lambda d: d["attachments"][0]["entry"].update(name="glue"),
         r"attachments\[0\]\.entry: entry = 'mime/glue' is not allowed; expected a registered entry"),
        (lambda d: d["attachments"][0]["settings"].pop("margin"),
         r"attachments\[0\]: mime/contact 0.4.0: setting 'margin' is required and was not given"),
        (lambda d: d["attachments"][0]["settings"].update(margin={"unit": "s", "value": 1.0}),
         r"attachments\[0\]: settings.margin: margin = s\(1.0\) is not allowed"),
        (lambda d: d["attachments"][0]["settings"].update(margin=0.1),
         r"attachments\[0\]: settings\.margin: margin = 0.1 is not allowed; expected a saved quantity of length"),
        (lambda d: d["attachments"][0]["settings"].update(friction=0.2),
         r"attachments\[0\]: settings: setting = 'friction' is not allowed; expected a setting of mime/contact 0.4.0"),
        (lambda d: d["attachments"][0].pop("roles"),
         r"attachments\[0\] keys = \['entry', 'settings'\] is not allowed; .*\(missing 'roles'\)"),
        (lambda d: d["attachments"][0]["roles"].update(body={"thing": "ghost"}),
         r"attachments\[0\]\.roles\.body\.thing = 'ghost' is not allowed; expected the id of one of the things"),
        (lambda d: d["things"]["umr"].update(kind="test.nothing"),
         r"things\.umr\.kind = 'test.nothing' is not allowed; expected a registered document kind"),
        (lambda d: d["things"]["umr"]["document"].pop("size"),
         r"things\.umr\.document = .* is not allowed; expected .*KeyError: 'size'"),
        (lambda d: d.update(format_version=7), r"format_version = 7 is not allowed; expected 1"),
        (lambda d: d.update(format="other"), r"format = 'other' is not allowed; expected 'mime.experiment'"),
        (lambda d: d.pop("things"), r"document keys = .* is not allowed; .*\(missing 'things'\)"),
        (lambda d: d.update(profile="fast"), r"profile: profile = 'fast' is not allowed"),
        (lambda d: d["things"]["umr"]["arrays"].update(v="arrays/missing.npy"),
         r"things\.umr\.arrays\.v = 'arrays/missing.npy' is not allowed; expected a \.npy file the folder holds"),
        (lambda d: d["things"]["umr"]["arrays"].update(v="../../etc/passwd"),
         r"things\.umr\.arrays\.v = '../../etc/passwd' is not allowed; expected 'arrays/<name>.npy'"),
    ],
)
def test_bad_documents_say_which_file_and_where(tmp_path, edit, message):
    path, doc = _saved(tmp_path)
    edit(doc)
    _edit(path, doc)
    with pytest.raises(DocumentError, match=message) as err:
        Experiment.load(path.parent)
    assert str(err.value).startswith(str(path))


def test_malformed_json_and_missing_file(tmp_path):
    path, _ = _saved(tmp_path)
    path.write_text('{"format": ')
    with pytest.raises(DocumentError, match=r"experiment.json: document = '' is not allowed; expected valid JSON \(.* at line 1, column 12\)"):
        Experiment.load(path.parent)
    with pytest.raises(DocumentError, match=r"nowhere/experiment.json: folder = .* is not allowed; expected a folder saved by Experiment.save"):
        Experiment.load(tmp_path / "nowhere")


def test_load_uses_the_registry_it_is_given(tmp_path):
    path, _ = _saved(tmp_path)
    with pytest.raises(DocumentError, match="entry = 'mime/contact' is not allowed; expected a registered entry \\(this registry holds none\\)"):
        Experiment.load(path.parent, registry=Registry())

"""hypothesis: random valid settings survive save and load exactly."""

import tempfile
from pathlib import Path

from hypothesis import given, settings, strategies as st

from mime import CentreContact, Contact, Experiment, document_kind
from mime.units import UNITS, Length, Quantity


@document_kind("test.rt_body")
class RtBody:
    projects_confinement = True
    accepts = ("body.confinement",)

    def __init__(self, size):
        self.size = size

    def to_document(self):
        return {"size": self.size}

    @classmethod
    def from_document(cls, doc, arrays):
        return cls(doc["size"])


@document_kind("test.rt_floor")
class RtFloor:
    def to_document(self):
        return {}

    @classmethod
    def from_document(cls, doc, arrays):
        return cls()


lengths = st.builds(
    Quantity,
    st.floats(min_value=1e-12, max_value=1e6, allow_nan=False, allow_infinity=False),
    st.sampled_from([u for u in UNITS.values() if u.dimension == Length]),
)


@st.composite
def entries(draw):
    if draw(st.booleans()):
        kw = {"margin": draw(lengths)}
        if draw(st.booleans()):
            kw["spacing"] = draw(lengths)
        if draw(st.booleans()):
            kw["rule"] = "remove_outward"
        return Contact.Projection(**kw) if draw(st.booleans()) else Contact(rung="projection", **kw)
    return CentreContact.Projection(margin=draw(lengths))


@settings(max_examples=60, deadline=None)
@given(entry=entries(), size=st.floats(min_value=1e-9, max_value=1.0), profile=st.sampled_from(["exploratory", "validated"]))
def test_random_valid_settings_round_trip(entry, size, profile):
    experiment = Experiment(profile=profile)
    experiment.attach(entry, body=RtBody(size), surface=RtFloor())
    with tempfile.TemporaryDirectory() as tmp:
        first = experiment.save(Path(tmp) / "a").read_bytes()
        loaded = Experiment.load(Path(tmp) / "a")
        (att,) = loaded.attachments
        assert type(att.entry) is type(entry) and att.entry == entry
        assert loaded.profile == profile
        assert loaded.save(Path(tmp) / "b").read_bytes() == first

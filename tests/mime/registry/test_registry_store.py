"""Registration keyed by (namespace, name, version), and lookup by version."""

from typing import ClassVar

import pytest

from mime import REGISTRY, CentreContact, Contact, KEPT, ValidationError, mm
from mime.registry import Entry, Registry, parse_version, register


def _entry(version, name="thing", namespace="test"):
    return type(
        f"E{version.replace('.', '_')}",
        (Entry,),
        {"namespace": namespace, "name": name, "version": version},
    )


def test_lookup_by_version_current_and_kept():
    reg = Registry()
    a, b, c = _entry("0.1.0"), _entry("0.10.0"), _entry("0.2.0")
    for cls in (a, b, c):
        reg.register(cls)
    assert reg.versions("test", "thing") == ("0.1.0", "0.2.0", "0.10.0")  # numeric order, not text
    assert reg.current("test", "thing") is b
    assert reg.kept("test", "thing") == (a, c)
    assert reg.get("test", "thing", "0.2.0") is c
    assert ("test", "thing", "0.1.0") in reg and reg.entries() == (a, c, b)


def test_registering_twice_is_idempotent_but_a_second_class_is_refused():
    reg = Registry()
    a = _entry("1.0.0")
    reg.register(a)
    reg.register(a)
    with pytest.raises(ValidationError, match=r"version = '1.0.0' is not allowed; expected a version of test/thing not yet registered \(1.0.0 is already registered by"):
        reg.register(_entry("1.0.0"))


def test_unknown_version_lists_registered_versions():
    reg = Registry()
    reg.register(_entry("0.1.0"))
    with pytest.raises(ValidationError, match=r"version = '0.9.0' is not allowed; expected a registered version of test/thing: one of 0.1.0"):
        reg.get("test", "thing", "0.9.0")
    with pytest.raises(ValidationError, match="entry = 'test/other' is not allowed; expected a registered entry: one of test/thing"):
        reg.get("test", "other", "0.1.0")
    with pytest.raises(ValidationError, match="expected a registered entry"):
        reg.current("test", "other")


def test_the_decorator_registers_into_the_registry():
    assert register.__self__ is REGISTRY
    reg = Registry()
    cls = reg.register(_entry("2.0.0"))
    assert reg.get("test", "thing", "2.0.0") is cls
    assert ("test", "thing", "2.0.0") not in REGISTRY


@pytest.mark.parametrize("bad", ["1.0", "v1.0.0", "01.0.0", "1.0.0-rc1", 1])
def test_versions_must_be_major_minor_patch(bad):
    with pytest.raises(ValidationError, match="MAJOR.MINOR.PATCH"):
        parse_version(bad)


def test_registry_refuses_non_entries_and_entries_without_keys():
    reg = Registry()
    with pytest.raises(ValidationError, match="subclass of mime.Entry"):
        reg.register(object)

    class NoVersion(Entry):
        namespace: ClassVar[str] = "test"
        name: ClassVar[str] = "x"

    with pytest.raises(ValidationError, match="NoVersion: version = None is not allowed; expected a string the class declares"):
        reg.register(NoVersion)


def test_the_global_registry_holds_contact_and_its_kept_version():
    assert REGISTRY.current("mime", "contact") is Contact
    assert REGISTRY.get("mime", "contact", "0.1.0") is CentreContact
    assert REGISTRY.kept("mime", "contact") == KEPT == (CentreContact,)
    assert [c.version for c in REGISTRY.family("contact")] == ["0.1.0", "0.4.0"]


def test_two_versions_given_the_same_settings_are_different_entries():
    """An entry equals only an entry of its own class given the same settings: 0.4.0 and the kept 0.1.0, given
    the same margin and rung, hold a body differently, so an experiment built with one is not the other's."""
    current = Contact.Projection(margin=mm(0.1))
    kept = CentreContact(margin=mm(0.1), rung="projection")
    assert current.given == kept.given
    assert current != kept and kept != current
    assert current == Contact(margin=mm(0.1), rung="projection") and hash(current) == hash(Contact.Projection(margin=mm(0.1)))
    assert current != Contact.Projection(margin=mm(0.2))

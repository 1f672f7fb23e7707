"""Profiles, and how an entry's defaults are resolved in each.

A profile takes a default by its kind (:attr:`mime.registry.declarations.DefaultKind.profile_rule`
states the rule once); :func:`resolve_settings` records where each setting's value came
from (:class:`Provenance`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, Mapping

from mime.errors import invalid, required
from mime.registry.declarations import NOT_USED, DefaultKind
from mime.registry.entry import Entry

__all__ = [
    "Profile",
    "PROFILES",
    "profile",
    "Provenance",
    "ResolvedSetting",
    "EntryRecord",
    "SettingsRecord",
    "resolve_settings",
]


@dataclass(frozen=True)
class Profile:
    """A named way of building: whether it takes numerical defaults."""

    name: str
    takes_numerical_defaults: bool
    description: str


PROFILES: dict[str, Profile] = {
    p.name: p
    for p in (
        Profile(
            "exploratory",
            True,
            "for trying things out: numerical defaults are taken, each stamped pending",
        ),
        Profile(
            "validated",
            False,
            "for results that are kept: every numerical setting must be given",
        ),
    )
}


def profile(name: str | Profile) -> Profile:
    """The profile named ``name`` (a :class:`Profile` passes through)."""
    if isinstance(name, Profile):
        return name
    try:
        return PROFILES[name]
    except (KeyError, TypeError):
        raise invalid("profile", name, f"one of {', '.join(PROFILES)}") from None


class Provenance(str, Enum):
    """Where a resolved setting's value came from."""

    GIVEN = "given"
    DETERMINED = "determined"
    CONVENTION = "convention"
    PENDING = "pending"
    UNUSED = "unused"


@dataclass(frozen=True)
class ResolvedSetting:
    """One setting after resolution: its value, and where it came from."""

    name: str
    value: Any
    provenance: Provenance


@dataclass(frozen=True)
class EntryRecord:
    """An attached entry's resolved settings, with the things bound to its roles (by id)."""

    namespace: str
    name: str
    version: str
    roles: tuple[tuple[str, str], ...]
    settings: tuple[ResolvedSetting, ...]

    def resolved(self, name: str) -> ResolvedSetting:
        """The :class:`ResolvedSetting` of ``name``."""
        for s in self.settings:
            if s.name == name:
                return s
        raise invalid("setting", name, f"one of {[s.name for s in self.settings]}")


@dataclass(frozen=True)
class SettingsRecord:
    """The provenance of every setting of every entry an experiment was built with."""

    profile: str
    entries: tuple[EntryRecord, ...]

    @property
    def pending(self) -> tuple[str, ...]:
        """``"namespace/name version: setting"`` for each setting stamped pending."""
        return tuple(
            f"{e.namespace}/{e.name} {e.version}: {s.name}"
            for e in self.entries
            for s in e.settings
            if s.provenance is Provenance.PENDING
        )

    def rows(self) -> list[dict[str, Any]]:
        """One flat row per setting, for a table."""
        return [
            {
                "entry": f"{e.namespace}/{e.name} {e.version}",
                "setting": s.name,
                "value": "" if s.value is None else repr(s.value),
                "provenance": s.provenance.value,
            }
            for e in self.entries
            for s in e.settings
        ]


def resolve_settings(
    entry: Entry, profile_: str | Profile, roles: Mapping[str, Any]
) -> tuple[ResolvedSetting, ...]:
    """Resolve each of ``entry``'s settings under ``profile_``, in declaration order.

    A default's compute rule sees the settings resolved before it and the bound
    things; it may return ``NOT_USED`` when the setting does not apply (a
    hull-less body has no spacing), which is recorded as ``unused`` in any profile.
    """
    prof = profile(profile_)
    where = entry.label()
    given = entry.given
    values: dict[str, Any] = {}
    out = []
    for s in entry.settings:
        if s.name in given:
            value, prov = given[s.name], Provenance.GIVEN
        elif s.default_kind is None:
            raise required(s.name, s._expected(), where=where)
        elif s.default_kind is DefaultKind.CONVENTION:
            value = s.compute(values, roles) if s.compute is not None else s.default
            prov = Provenance.CONVENTION
        else:
            value = s.compute(values, roles)  # type: ignore[misc]
            if value is NOT_USED:
                value, prov = None, Provenance.UNUSED
            elif s.default_kind is DefaultKind.DETERMINED:
                prov = Provenance.DETERMINED
            elif prof.takes_numerical_defaults:
                prov = Provenance.PENDING
            else:
                takers = ", ".join(p.name for p in PROFILES.values() if p.takes_numerical_defaults)
                raise required(s.name, f"{s.name}=... given explicitly, or a build in a profile that takes "
                               f"numerical defaults ({takers})", where=where,
                               by=f"profile {prof.name!r} (its default is numerical: {s.rule})")
            if value is not None:
                value = s.check(value, where=f"{where}: default of {s.name!r}")
        values[s.name] = value
        out.append(ResolvedSetting(s.name, value, prov))
    return tuple(out)

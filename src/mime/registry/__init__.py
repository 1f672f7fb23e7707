"""MIME's registry: versioned entries, their declarations, and profiles.

An entry is a class that declares its settings, roles, rungs, gradient status
and switches, validity lines and family (see :mod:`mime.registry.declarations`);
it is registered under ``(namespace, name, version)`` (:class:`mime.registry.store.Registry`). A
profile decides which defaults a build may take (:mod:`mime.registry.profiles`).
"""

from mime.registry.declarations import (
    NOT_USED,
    REQUIRED,
    DefaultKind,
    Family,
    GradientStatus,
    Requires,
    Role,
    Rung,
    Setting,
    SettingRole,
    Switch,
    ValidityLine,
    format_type,
)
from mime.registry.entry import Entry, Interaction, parse_version
from mime.registry.profiles import (
    PROFILES,
    EntryRecord,
    Profile,
    Provenance,
    ResolvedSetting,
    SettingsRecord,
    profile,
    resolve_settings,
)
from mime.registry.store import REGISTRY, Registry, register

__all__ = [
    "NOT_USED",
    "REQUIRED",
    "DefaultKind",
    "Family",
    "GradientStatus",
    "Requires",
    "Role",
    "Rung",
    "Setting",
    "SettingRole",
    "Switch",
    "ValidityLine",
    "Entry",
    "Interaction",
    "parse_version",
    "PROFILES",
    "EntryRecord",
    "Profile",
    "Provenance",
    "ResolvedSetting",
    "SettingsRecord",
    "profile",
    "resolve_settings",
    "REGISTRY",
    "Registry",
    "register",
    "format_type",
]

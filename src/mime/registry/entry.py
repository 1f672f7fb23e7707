"""The base of every registry entry, and of interactions in particular.

An entry is a class whose class attributes are its declarations (see
:mod:`mime.registry.declarations`); an instance holds the settings a script
gave it. ``Entry.key`` is ``(namespace, name, version)``, the key it is
registered and saved under.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar, Mapping

from mime.errors import invalid, required
from mime.registry.declarations import (
    Family,
    GradientStatus,
    Role,
    Rung,
    Setting,
    Switch,
    ValidityLine,
    encode_value,
)

__all__ = ["Entry", "Interaction", "parse_version"]

_VERSION = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$")


def parse_version(version: str) -> tuple[int, int, int]:
    """``"0.4.0"`` -> ``(0, 4, 0)``; anything but ``MAJOR.MINOR.PATCH`` is refused.

    >>> parse_version("0.10.2")
    (0, 10, 2)
    """
    match = _VERSION.match(version) if isinstance(version, str) else None
    if match is None:
        raise invalid("version", version, "MAJOR.MINOR.PATCH, such as '0.4.0'")
    return tuple(int(p) for p in match.groups())  # type: ignore[return-value]


class Entry:
    """A versioned registry entry. Subclasses declare the class attributes below."""

    kind: ClassVar[str] = "entry"
    namespace: ClassVar[str]
    name: ClassVar[str]
    version: ClassVar[str]
    description: ClassVar[str] = ""
    family: ClassVar[Family | None] = None
    settings: ClassVar[tuple[Setting, ...]] = ()
    roles: ClassVar[tuple[Role, ...]] = ()
    reads: ClassVar[tuple[str, ...]] = ()
    delivers: ClassVar[tuple[str, ...]] = ()
    rungs: ClassVar[tuple[Rung, ...]] = ()
    gradient: ClassVar[GradientStatus] = GradientStatus.NONE
    switches: ClassVar[tuple[Switch, ...]] = ()
    validity: ClassVar[tuple[ValidityLine, ...]] = ()
    references: ClassVar[tuple[str, ...]] = ()
    notes: ClassVar[str | None] = None
    """File name, beside the entry's module, of the hand-written part of its page."""

    other_declarations: ClassVar[tuple[str, ...]] = ()
    """Names of further class variables the entry's page lists."""

    constants: ClassVar[dict[str, str]] = {}
    """Names of the entry's numerical constants (class attributes), each with its meaning."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "version" in cls.__dict__:
            parse_version(cls.version)
            names = [s.name for s in cls.settings]
            if len(set(names)) != len(names):
                raise invalid("settings", names, "settings whose names do not repeat", where=cls.__qualname__)
            rung_names = {r.name for r in cls.rungs}
            for i, line in enumerate(cls.validity):
                if line.rung not in rung_names:
                    raise invalid(f"validity[{i}].rung", line.rung, f"one of the declared rungs {sorted(rung_names)}",
                                  where=cls.__qualname__)

    # -- declarations read as facts -----------------------------------------------
    @classmethod
    def key(cls) -> tuple[str, str, str]:
        """``(namespace, name, version)``."""
        return (cls.namespace, cls.name, cls.version)

    @classmethod
    def label(cls) -> str:
        """``mime/contact 0.4.0``."""
        return f"{cls.namespace}/{cls.name} {cls.version}"

    @classmethod
    def qualified_name(cls) -> str:
        """``mime.interactions.contact.Contact``."""
        return f"{cls.__module__}.{cls.__qualname__}"

    @classmethod
    def setting(cls, name: str) -> Setting:
        """The declaration of setting ``name``."""
        for s in cls.settings:
            if s.name == name:
                return s
        raise invalid("setting", name, f"one of {', '.join(s.name for s in cls.settings)}", where=cls.label())

    @classmethod
    def declared_rung(cls, name: str) -> Rung:
        """The declaration of rung ``name``."""
        for r in cls.rungs:
            if r.name == name:
                return r
        reserved = [r.name for r in cls.rungs if not r.built]
        raise invalid("rung", name, f"one of {', '.join(r.name for r in cls.built_rungs()) or 'none'}"
                      + (f" ({', '.join(reserved)} reserved, not built)" if reserved else ""), where=cls.label())

    @classmethod
    def built_rungs(cls) -> tuple[Rung, ...]:
        """The rungs that are built (not reserved)."""
        return tuple(r for r in cls.rungs if r.built)

    # -- instances -------------------------------------------------------------------
    def __init__(self, **given: Any) -> None:
        where = self.label()
        known = {s.name for s in self.settings}
        for key in given:
            if key not in known:
                raise invalid("setting", key, f"one of {', '.join(sorted(known))}", where=where)
        values: dict[str, Any] = {}
        for s in self.settings:
            if s.name in given and given[s.name] is not None:
                values[s.name] = s.check(given[s.name], where=where)
            elif s.required:
                raise required(s.name, s._expected(), where=where)
        if "rung" in values:
            chosen = self.declared_rung(values["rung"])
            if not chosen.built:
                raise invalid("rung", chosen.name, f"one of {', '.join(r.name for r in self.built_rungs())} "
                              f"({chosen.name} is reserved, not built: {chosen.note})", where=where)
        self._given = values
        self.validate()

    def validate(self) -> None:
        """Entry-specific checks across settings; runs after each setting is checked."""

    @property
    def given(self) -> Mapping[str, Any]:
        """The settings the script gave, in declaration order (``None`` counts as not given)."""
        return dict(self._given)

    def __getitem__(self, name: str) -> Any:
        self.setting(name)
        return self._given.get(name)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other._given == self._given  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((self.key(), tuple(sorted((k, repr(v)) for k, v in self._given.items()))))

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self._given.items())
        return f"{type(self).__name__}({args})"

    def to_document(self) -> dict[str, Any]:
        """``{"entry": {namespace, name, version}, "settings": {given settings, as saved}}``."""
        return {
            "entry": {"namespace": self.namespace, "name": self.name, "version": self.version},
            "settings": {k: encode_value(v) for k, v in self._given.items()},
        }

    @classmethod
    def from_settings_document(cls, settings: Any, *, where: str) -> "Entry":
        """An instance from a saved ``settings`` object, each value decoded and checked."""
        if not isinstance(settings, dict):
            raise invalid(where, settings, "an object of settings")
        decoded = {}
        for key, doc in settings.items():
            decl = cls.setting(key) if key in {s.name for s in cls.settings} else None
            if decl is None:
                raise invalid("setting", key, f"a setting of {cls.label()}: one of "
                              f"{', '.join(s.name for s in cls.settings)}", where=where)
            decoded[key] = decl.decode(doc, where=f"{where}.{key}")
        return cls(**decoded)


class Interaction(Entry):
    """An entry that acts between things bound to its roles (a body and a surface, say).

    ``includes_lubrication`` flags a law that includes the lubrication a close
    wall adds; the plan lets a body take at most one such law.
    """

    kind: ClassVar[str] = "interaction"
    includes_lubrication: ClassVar[bool] = False
    holds_off: ClassVar[str | None] = None
    id_roles: ClassVar[tuple[str, ...] | None] = None
    moving: ClassVar[bool] = False
    other_declarations: ClassVar[tuple[str, ...]] = ("holds_off", "id_roles", "moving")

    def plan(self, *, profile: Any, **roles: Any) -> Any:
        """What the build hands to the bound things; each interaction defines it."""
        raise NotImplementedError(str(invalid("plan", "Interaction.plan", "a plan of the entry's own class (what "
                                              "the build hands to the bound things)", where=self.label())))

    @classmethod
    def on_rung(cls, rung: str, settings: dict[str, Any]) -> "Interaction":
        """``cls(rung=rung, **settings)``, refusing a ``rung`` among ``settings``: what a rung's
        named constructor (``Contact.Projection(...)``) does."""
        if "rung" in settings:
            raise invalid("rung", settings["rung"], f"no rung among the settings: {rung.capitalize()}(...) sets "
                          f"rung={rung!r} itself", where=cls.label())
        return cls(rung=rung, **settings)

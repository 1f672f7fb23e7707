"""Where entries are registered, keyed by ``(namespace, name, version)``."""

from __future__ import annotations

from mime.errors import invalid
from mime.registry.entry import Entry, parse_version

__all__ = ["Registry", "REGISTRY", "register"]


class Registry:
    """A set of entry classes keyed by ``(namespace, name, version)``.

    The current version of a name is its highest registered version; the others
    are its kept versions.

    >>> from mime import REGISTRY
    >>> REGISTRY.current("mime", "contact").version
    '0.4.0'
    >>> REGISTRY.versions("mime", "contact")
    ('0.1.0', '0.4.0')
    """

    def __init__(self) -> None:
        self._entries: dict[tuple[str, str, str], type[Entry]] = {}

    def register(self, cls: type) -> type:
        """Register ``cls`` under its key; a second, different class under one key is refused."""
        if not (isinstance(cls, type) and issubclass(cls, Entry)):
            raise invalid("entry", cls, "a subclass of mime.Entry")
        for attr in ("namespace", "name", "version"):
            if not isinstance(getattr(cls, attr, None), str):
                raise invalid(attr, getattr(cls, attr, None), "a string the class declares", where=cls.__qualname__)
        parse_version(cls.version)
        key = cls.key()
        held = self._entries.get(key)
        if held is not None and held is not cls:
            raise invalid("version", cls.version, f"a version of {cls.namespace}/{cls.name} not yet registered "
                          f"({cls.version} is already registered by {held.qualified_name()}; a new version needs a "
                          "new version number)", where=cls.qualified_name())
        self._entries[key] = cls
        return cls

    def _versions(self, namespace: str, name: str) -> list[type[Entry]]:
        found = [c for (ns, n, _), c in self._entries.items() if ns == namespace and n == name]
        return sorted(found, key=lambda c: parse_version(c.version))

    def versions(self, namespace: str, name: str) -> tuple[str, ...]:
        """Every registered version of ``namespace/name``, oldest first."""
        return tuple(c.version for c in self._versions(namespace, name))

    def get(self, namespace: str, name: str, version: str) -> type[Entry]:
        """The entry registered under exactly this key."""
        try:
            return self._entries[(namespace, name, version)]
        except (KeyError, TypeError):
            pass
        known = self.versions(namespace, name)
        if known:
            raise invalid("version", version, f"a registered version of {namespace}/{name}: one of {', '.join(known)}")
        registered = ", ".join(sorted({f"{ns}/{n}" for ns, n, _ in self._entries}))
        raise invalid("entry", f"{namespace}/{name}", f"a registered entry: one of {registered}" if registered
                      else "a registered entry (this registry holds none)")

    def current(self, namespace: str, name: str) -> type[Entry]:
        """The highest registered version of ``namespace/name``."""
        found = self._versions(namespace, name)
        if not found:
            self.get(namespace, name, "0.0.0")  # raises with the list of entries
        return found[-1]

    def kept(self, namespace: str, name: str) -> tuple[type[Entry], ...]:
        """The registered versions of ``namespace/name`` other than the current one, oldest first."""
        return tuple(self._versions(namespace, name)[:-1])

    def entries(self) -> tuple[type[Entry], ...]:
        """Every registered entry, sorted by key."""
        return tuple(c for _, c in sorted(self._entries.items(), key=lambda kv: (kv[0][0], kv[0][1], parse_version(kv[0][2]))))

    def family(self, family: str) -> tuple[type[Entry], ...]:
        """The registered entries whose family is ``family``."""
        return tuple(c for c in self.entries() if c.family is not None and c.family.name == family)

    def __contains__(self, key: object) -> bool:
        return key in self._entries


REGISTRY = Registry()

register = REGISTRY.register
"""Class decorator: register an entry in ``REGISTRY`` (another registry: ``its.register``)."""

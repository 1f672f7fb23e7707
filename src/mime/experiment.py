"""Experiments: things, the entries attached to them, building by profile, running, saving.

An :class:`Experiment` holds *things* (bodies, structures) and *attachments*
(an entry bound to things by role)::

    experiment = Experiment()
    experiment.attach(Contact.Projection(margin=mm(0.1)), body=umr, surface=tube.inner_surface)
    built = experiment.build(profile="exploratory")
    record = experiment.run(dt=1e-3, steps=100)

Building resolves each entry's defaults by the profile's rules (see
:mod:`mime.registry.profiles`), records their provenance in a
:class:`~mime.registry.profiles.SettingsRecord`, and plans each attachment. The
plans are data held by the :class:`BuiltExperiment`; no thing is changed by
building. A body's step takes what its contacts planned as an input
(:meth:`BuiltExperiment.step_inputs`): each plan says which of the body's inputs
it feeds (``feeds``: ``body.confinement`` for a confinement's hold,
``body.applied_wrench`` for the penalty rung's springs), as the rung's Requires
row names it. Building twice from the same things gives equal results.

**Saving.** :meth:`Experiment.save` writes a folder: a JSON document (sorted
keys, indent 2, trailing newline) naming each entry by namespace, name and
version with its given settings (quantities as written, with their units),
and each thing by its document kind, plus ``.npy`` arrays. A class becomes
savable by registering a kind::

    @document_kind("tube")
    class Tube:
        def to_document(self) -> dict: ...            # JSON-able: str, float, int, bool, lists, dicts
        def to_arrays(self) -> dict[str, array]: ...  # optional: large arrays, saved as .npy
        @classmethod
        def from_document(cls, doc, arrays): ...      # arrays: the dict to_arrays gave

A thing that is an attribute of another (``tube.inner_surface``) may instead
define ``document_owner() -> (owner, attribute_name)``; the document then
names it as that attribute of its owner. The round trip is exact: loading a
folder and saving it again reproduces the document byte for byte.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from mime import _experiment_io as io
from mime._simulate import RunRecord, simulate
from mime.document_kinds import KINDS, document_kind, kind_of, load_kind, register_kind
from mime.errors import DocumentError, ValidationError, invalid, invalid_document
from mime.registry import (
    REGISTRY,
    Entry,
    EntryRecord,
    Interaction,
    Profile,
    Registry,
    SettingsRecord,
    profile as get_profile,
    resolve_settings,
)

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "KINDS",
    "document_kind",
    "register_kind",
    "kind_of",
    "Attachment",
    "Planned",
    "BuiltExperiment",
    "RunRecord",
    "Experiment",
]

FORMAT = "mime.experiment"
FORMAT_VERSION = 1


@dataclass(frozen=True)
class Attachment:
    """An entry bound to things: ``roles`` maps each role to a reference.

    A reference is ``(thing_id, None)`` for a thing itself or ``(thing_id, attribute)``
    for an attribute of it (``("tube", "inner_surface")``).
    """

    entry: Entry
    roles: tuple[tuple[str, tuple[str, str | None]], ...]


@dataclass(frozen=True)
class Planned:
    """An attachment after planning: its entry, the bound objects, and what its plan built."""

    entry: Entry
    roles: Mapping[str, Any]
    planned: Any


@dataclass(frozen=True)
class BuiltExperiment:
    """What :meth:`Experiment.build` returns, and what :meth:`Experiment.run` simulates.

    Attributes:
        profile: the profile it was built under.
        things: the things by id (the same objects the experiment holds, unchanged).
        planned: each attachment's entry, bound objects and plan.
        settings_record: the settings' provenance.
    """

    profile: Profile
    things: Mapping[str, Any]
    planned: tuple[Planned, ...]
    settings_record: SettingsRecord

    def deliveries(self, thing: Any) -> dict[str, tuple[Any, ...]]:
        """What the plans feed ``thing``'s inputs: ``{input: (plan, ...)}``, in attachment order.

        A plan feeds the input its ``feeds`` names (``body.confinement``,
        ``body.applied_wrench``) of the thing bound to its entry's ``body`` role.
        """
        out: dict[str, tuple[Any, ...]] = {}
        for p in self.planned:
            feeds = getattr(p.planned, "feeds", None)
            if feeds is None or not any(p.roles.get(r.name) is thing for r in p.entry.roles if r.binds == "body"):
                continue
            out[feeds] = out.get(feeds, ()) + (p.planned,)
        return out

    def confinement(self, thing: Any) -> Any:
        """The confinement a contact planned for ``thing`` (``None`` when no contact holds it)."""
        held = self.deliveries(thing).get("body.confinement", ())
        return held[0] if held else None

    def step_inputs(self, thing: Any, *, params: Mapping[str, Any] | None = None) -> Any:
        """``thing.step_inputs(...)`` with what the plans feed it: the confinement's hold and the
        wrench sources (``mime.nodes.rigid.StepInputs``)."""
        if not callable(getattr(thing, "step_inputs", None)) or thing not in self.things.values():
            raise invalid("thing", thing, "a body of this experiment (one of its things with step inputs)",
                          where="BuiltExperiment.step_inputs")
        delivered = self.deliveries(thing)
        confinement = self.confinement(thing)
        return thing.step_inputs(hold=None if confinement is None else confinement.hold,
                                 wrenches=delivered.get("body.applied_wrench", ()), params=params)


def _folder(folder: Any, where: str) -> Path:
    """``folder`` as a ``Path`` when it is a path (text, bytes or ``os.PathLike``), not empty; else the house error."""
    if not isinstance(folder, (str, bytes, os.PathLike)) or not os.fspath(folder):
        raise invalid("folder", folder, "a folder's path (a str or a pathlib.Path)", where=where)
    return Path(os.fsdecode(folder))


def _body_of(entry: Entry, objects: Mapping[str, Any]) -> list[Any]:
    return [objects[r.name] for r in entry.roles if r.binds == "body" and r.name in objects]


class Experiment:
    """Things and the entries attached to them; builds under a profile, runs, saves, loads."""

    def __init__(self, *, profile: str = "exploratory", registry: Registry | None = None) -> None:
        self.profile = get_profile(profile).name
        if registry is not None and not isinstance(registry, Registry):
            raise invalid("registry", registry, "None (mime's registry) or a mime.registry.Registry",
                          where="Experiment")
        self._registry = REGISTRY if registry is None else registry
        self._things: dict[str, Any] = {}
        self._attachments: list[Attachment] = []
        self._built: BuiltExperiment | None = None
        self._built_at = -1
        self._changes = 0

    # -- things -------------------------------------------------------------------------
    @property
    def things(self) -> dict[str, Any]:
        """The things by id, in the order they were added."""
        return dict(self._things)

    @property
    def attachments(self) -> tuple[Attachment, ...]:
        """The attachments, in the order they were made."""
        return tuple(self._attachments)

    def id_of(self, thing: Any) -> str | None:
        """The id of ``thing`` if it was added (compared by identity)."""
        for key, held in self._things.items():
            if held is thing:
                return key
        return None

    def add(self, thing: Any, *, name: str | None = None) -> Any:
        """Add ``thing`` (under ``name``, its ``name`` attribute, or its kind) and return it."""
        if self.id_of(thing) is not None:
            return thing
        if name is not None:
            if not isinstance(name, str) or not name:
                raise invalid("name", name, "a non-empty string")
            if name in self._things:
                raise invalid("name", name, "a name no thing of the experiment has yet")
            key = name
        else:
            own = getattr(thing, "name", None)
            base = own if isinstance(own, str) and own else (kind_of(thing) or type(thing).__name__.lower())
            key, n = base, 1
            while key in self._things:
                n += 1
                key = f"{base}{n}"
        self._things[key] = thing
        self._changes += 1
        return thing

    def _reference(self, value: Any) -> tuple[str, str | None]:
        key = self.id_of(value)
        if key is not None:
            return (key, None)
        owner = getattr(value, "document_owner", None)
        if callable(owner) and kind_of(value) is None:
            parent, attribute = owner()
            self.add(parent)
            return (self.id_of(parent), attribute)  # type: ignore[return-value]
        self.add(value)
        return (self.id_of(value), None)  # type: ignore[return-value]

    def _resolve(self, ref: tuple[str, str | None]) -> Any:
        key, attribute = ref
        thing = self._things[key]
        return thing if attribute is None else getattr(thing, attribute)

    def _objects(self, attachment: Attachment) -> dict[str, Any]:
        return {role: self._resolve(ref) for role, ref in attachment.roles}

    # -- attaching ------------------------------------------------------------------------
    def attach(self, entry: Entry, **roles: Any) -> Attachment:
        """Attach ``entry``, binding each of its roles by keyword (``body=umr, surface=...``).

        Refused: a role missing or unknown; a rung whose Requires row the bound
        things do not meet; a second contact on one body; a second law on one
        body that includes lubrication.
        """
        if not isinstance(entry, Entry):
            raise invalid("entry", entry, "an entry instance such as Contact.Projection(...)")
        where = entry.label()
        declared = [r.name for r in entry.roles]
        missing = [r for r in declared if r not in roles]
        extra = [r for r in roles if r not in declared]
        if missing or extra:
            raise invalid("roles", sorted(roles), f"exactly {', '.join(declared)}"
                          + (f" (missing {', '.join(missing)})" if missing else "")
                          + (f" (unknown {', '.join(extra)})" if extra else ""), where=where)
        if any(s.name == "rung" for s in entry.settings) and entry["rung"] is not None:
            entry.declared_rung(entry["rung"]).check(roles, where=where)
        for body in _body_of(entry, roles):
            for other in self._attachments:
                if not any(o is body for o in _body_of(other.entry, self._objects(other))):
                    continue
                if (
                    isinstance(entry, Interaction)
                    and isinstance(other.entry, Interaction)
                    and entry.includes_lubrication
                    and other.entry.includes_lubrication
                ):
                    raise invalid("body", _name(body), f"a body with no law that includes lubrication yet: it "
                                  f"takes {other.entry.label()}, which does, and a body takes at most one",
                                  where=where)
                fam, other_fam = entry.family, other.entry.family
                if fam is not None and other_fam is not None and fam.name == "contact" == other_fam.name:
                    raise invalid("body", _name(body), f"a body with no contact yet: it takes "
                                  f"{other.entry.label()}, and a body takes one contact", where=where)
        bound = tuple((r, self._reference(roles[r])) for r in declared)
        attachment = Attachment(entry, bound)
        self._attachments.append(attachment)
        self._changes += 1
        return attachment

    # -- building and running -------------------------------------------------------------------
    def resolve(self, profile: str | Profile | None = None) -> SettingsRecord:
        """Resolve every entry's settings under ``profile`` without planning any physics.

        The provenance record :meth:`build` would make; a profile that refuses a
        default raises here as it would there.
        """
        prof = get_profile(self.profile if profile is None else profile)
        return SettingsRecord(prof.name, tuple(self._record(a, prof) for a in self._attachments))

    def _record(self, attachment: Attachment, prof: Profile) -> EntryRecord:
        e = attachment.entry
        return EntryRecord(
            e.namespace,
            e.name,
            e.version,
            tuple((role, _ref_text(ref)) for role, ref in attachment.roles),
            resolve_settings(e, prof, self._objects(attachment)),
        )

    def build(self, profile: str | Profile | None = None) -> BuiltExperiment:
        """Resolve every entry's settings under ``profile`` and plan each attachment.

        Returns the built experiment with its :class:`~mime.registry.profiles.SettingsRecord`
        and every plan; no thing is changed. Built again in the same profile with nothing
        added since, it returns the same build (a cache: building afresh gives an equal one).
        """
        prof = get_profile(self.profile if profile is None else profile)
        if self._built is not None and self._built_at == self._changes and self._built.profile == prof:
            return self._built
        records, planned = [], []
        for attachment in self._attachments:
            objects = self._objects(attachment)
            e = attachment.entry
            records.append(self._record(attachment, prof))
            plan = getattr(e, "plan", None)
            result = plan(profile=prof, **objects) if callable(plan) else None
            planned.append(Planned(e, objects, result))
        self._built = BuiltExperiment(
            profile=prof,
            things=self.things,
            planned=tuple(planned),
            settings_record=SettingsRecord(prof.name, tuple(records)),
        )
        self._built_at = self._changes
        return self._built

    def run(self, *, dt: float, steps: int, profile: str | Profile | None = None,
            one_kernel: bool = False) -> RunRecord:
        """Build under ``profile`` (reusing an unchanged build) and run ``steps`` steps of ``dt`` s.

        With ``one_kernel``, XLA's CPU backend runs each chunk of steps as one kernel: about three
        times faster per step for one body, about twice as long to compile, and rounded otherwise in
        the last bits (``mime.nodes.rigid.run_scan``; the record says which, ``RunRecord.one_kernel``).
        """
        return simulate(self.build(profile), dt, steps, one_kernel=one_kernel)

    # -- documents ----------------------------------------------------------------------------
    def document(self) -> tuple[dict[str, Any], dict[str, bytes]]:
        """The saved document and its arrays (name -> ``.npy`` bytes), built in memory."""
        things: dict[str, Any] = {}
        arrays: dict[str, bytes] = {}
        for key, thing in self._things.items():
            kind = kind_of(thing)
            if kind is None:
                raise invalid(f"things.{key}", type(thing).__qualname__, "a thing of a registered document kind "
                              "(register its class with @mime.experiment.document_kind(...) to save it)",
                              where="Experiment.document")
            doc = thing.to_document()
            _check_jsonable(doc, f"thing {key!r}")
            names = {}
            to_arrays = getattr(thing, "to_arrays", None)
            for aname, value in (to_arrays() if callable(to_arrays) else {}).items():
                data = io.array_bytes(value)
                fname = io.array_name(data)
                arrays[fname] = data
                names[aname] = fname
            things[key] = {"kind": kind, "document": doc, "arrays": names}
        attachments = []
        for a in self._attachments:
            d = a.entry.to_document()
            d["roles"] = {
                role: ({"thing": ref[0]} if ref[1] is None else {"thing": ref[0], "attribute": ref[1]})
                for role, ref in a.roles
            }
            attachments.append(d)
        doc = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "profile": self.profile,
            "things": things,
            "attachments": attachments,
        }
        return doc, arrays

    def document_text(self) -> str:
        """The document exactly as :meth:`save` writes it."""
        return io.document_text(self.document()[0])

    def save(self, folder: str | Path) -> Path:
        """Save to ``folder`` atomically: a crash mid-save leaves the previous folder intact."""
        folder = _folder(folder, "Experiment.save")
        doc, arrays = self.document()
        text = io.document_text(doc)
        io.write_folder(folder, text, arrays)
        return folder / io.DOCUMENT

    @classmethod
    def load(cls, folder: str | Path, *, registry: Registry | None = None) -> "Experiment":
        """Load a saved folder; each entry resolves to the version its document names."""
        folder = _folder(folder, "Experiment.load")
        path = folder / io.DOCUMENT
        reg = REGISTRY if registry is None else registry
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise invalid_document(path, "folder", str(folder), f"a folder saved by Experiment.save, which "
                                   f"holds {io.DOCUMENT} (this one does not)") from None
        except UnicodeDecodeError as exc:
            raise invalid_document(path, "document", exc.object[exc.start:exc.end],
                                   f"UTF-8 text ({exc.reason} at byte {exc.start})") from None
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            raise invalid_document(path, "document", text[exc.pos:exc.pos + 20], f"valid JSON ({exc.msg} at "
                                   f"line {exc.lineno}, column {exc.colno})") from None
        return cls._from_document(doc, folder, path, reg)

    @classmethod
    def _from_document(cls, doc: Any, folder: Path, path: Path, reg: Registry) -> "Experiment":
        top = _Reader(path)
        top.obj(doc, "document", {"format", "format_version", "profile", "things", "attachments"})
        if doc["format"] != FORMAT:
            raise invalid_document(path, "format", doc["format"], repr(FORMAT))
        if doc["format_version"] != FORMAT_VERSION:
            raise invalid_document(path, "format_version", doc["format_version"], str(FORMAT_VERSION))
        try:
            experiment = cls(profile=doc["profile"], registry=reg)
        except ValidationError as exc:
            raise invalid_document(path, "profile", refusal=exc) from None
        things = top.obj(doc["things"], "things")
        for key in things:
            where = f"things.{key}"
            item = top.obj(things[key], where, {"kind", "document", "arrays"})
            kind = item["kind"]
            if not isinstance(kind, str):
                raise invalid_document(path, f"{where}.kind", kind, "a string")
            klass = load_kind(kind, path, f"{where}.kind")
            arrays = {}
            for aname, fname in top.obj(item["arrays"], f"{where}.arrays").items():
                if not (isinstance(fname, str) and fname.startswith(io.ARRAYS + "/") and "/" not in fname[len(io.ARRAYS) + 1:]):
                    raise invalid_document(path, f"{where}.arrays.{aname}", fname, "'arrays/<name>.npy'")
                try:
                    arrays[aname] = io.read_array(folder, fname)
                except (OSError, ValueError) as exc:
                    raise invalid_document(path, f"{where}.arrays.{aname}", fname,
                                           f"a .npy file the folder holds and NumPy reads ({exc})") from None
            try:
                thing = klass.from_document(item["document"], arrays)
            except DocumentError:
                raise
            except ValidationError as exc:
                raise invalid_document(path, f"{where}.document", refusal=exc) from None
            except (KeyError, TypeError, ValueError) as exc:
                raise invalid_document(path, f"{where}.document", item["document"], f"a document of kind {kind!r} "
                                       f"({klass.__qualname__}.from_document: {type(exc).__name__}: {exc})") from None
            experiment._things[key] = thing
        attachments = doc["attachments"]
        if not isinstance(attachments, list):
            raise invalid_document(path, "attachments", attachments, "a list")
        for i, item in enumerate(attachments):
            where = f"attachments[{i}]"
            top.obj(item, where, {"entry", "settings", "roles"})
            ident = top.obj(item["entry"], f"{where}.entry", {"namespace", "name", "version"})
            try:
                entry_cls = reg.get(ident["namespace"], ident["name"], ident["version"])
            except ValidationError as exc:
                raise invalid_document(path, f"{where}.entry", refusal=exc) from None
            try:
                entry = entry_cls.from_settings_document(item["settings"], where="settings")
            except ValidationError as exc:
                raise invalid_document(path, where, refusal=exc) from None
            roles = {}
            for role, ref in top.obj(item["roles"], f"{where}.roles").items():
                rwhere = f"{where}.roles.{role}"
                if not isinstance(ref, dict) or "thing" not in ref or set(ref) - {"thing", "attribute"}:
                    raise invalid_document(path, rwhere, ref, "{'thing': id} or {'thing': id, 'attribute': name}")
                if not isinstance(ref["thing"], str) or ref["thing"] not in experiment._things:
                    raise invalid_document(path, f"{rwhere}.thing", ref["thing"],
                                           f"the id of one of the things ({', '.join(experiment._things) or 'none'})")
                target = experiment._things[ref["thing"]]
                if "attribute" in ref:
                    if not isinstance(ref["attribute"], str) or not hasattr(target, ref["attribute"]):
                        raise invalid_document(path, f"{rwhere}.attribute", ref["attribute"],
                                               f"the name of an attribute of thing {ref['thing']!r}")
                    target = getattr(target, ref["attribute"])
                roles[role] = target
            try:
                experiment.attach(entry, **roles)
            except ValidationError as exc:
                raise invalid_document(path, where, refusal=exc) from None
        return experiment

    def __repr__(self) -> str:
        return f"Experiment(things={list(self._things)}, attachments={[a.entry for a in self._attachments]})"


class _Reader:
    def __init__(self, path: Path) -> None:
        self.path = path

    def obj(self, value: Any, where: str, keys: set[str] | None = None) -> dict:
        if not isinstance(value, dict):
            raise invalid_document(self.path, where, value, "an object")
        if keys is not None:
            missing = sorted(keys - set(value))
            extra = sorted(set(value) - keys)
            if missing or extra:
                raise invalid_document(self.path, f"{where} keys", sorted(value), f"exactly {', '.join(sorted(keys))}"
                                       + (f" (missing {', '.join(map(repr, missing))})" if missing else "")
                                       + (f" (unknown {', '.join(map(repr, extra))})" if extra else ""))
        return value


def _ref_text(ref: tuple[str, str | None]) -> str:
    return ref[0] if ref[1] is None else f"{ref[0]}.{ref[1]}"


def _name(thing: Any) -> str:
    n = getattr(thing, "name", None)
    return n if isinstance(n, str) else type(thing).__name__


def _check_jsonable(doc: Any, where: str) -> None:
    if isinstance(doc, dict):
        for k, v in doc.items():
            if not isinstance(k, str):
                raise invalid("key", k, "a string (a document's keys are)", where=where)
            _check_jsonable(v, f"{where}.{k}")
    elif isinstance(doc, (list, tuple)):
        for i, v in enumerate(doc):
            _check_jsonable(v, f"{where}[{i}]")
    elif isinstance(doc, float):
        if doc != doc or doc in (float("inf"), float("-inf")):
            raise invalid(where, doc, "a finite number (a document holds no NaN or infinity)")
    elif not (doc is None or isinstance(doc, (str, int, bool))):
        raise invalid(where, type(doc).__name__, "str, float, int, bool, None, lists or dicts in a document (large "
                      "arrays go in to_arrays)")

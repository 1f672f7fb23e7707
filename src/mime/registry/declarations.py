"""The declaration types an entry is made of.

An entry's class declares, as plain data: its settings (:class:`Setting`, with
a :class:`SettingRole` and, for a default, a :class:`DefaultKind` with its rule
and basis), the roles it binds (:class:`Role`), its rungs (:class:`Rung`, with
their :class:`Requires` rows, or reserved and not built), its
:class:`GradientStatus` and the switches behind it (:class:`Switch`), its
validity lines (:class:`ValidityLine`) and its :class:`Family`. The book's
entry pages and the experiment's build both read these same objects.
"""

from __future__ import annotations

import json
import types
import typing
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Callable, Mapping

from mime.errors import ValidationError, invalid
from mime.units import UNITS, Dimension, Quantity

__all__ = [
    "SettingRole",
    "DefaultKind",
    "GradientStatus",
    "REQUIRED",
    "NOT_USED",
    "Setting",
    "Role",
    "Requires",
    "Rung",
    "Switch",
    "ValidityLine",
    "Family",
    "format_type",
]


_NONE = type(None)


def format_type(tp: Any) -> str:
    """Short, stable text for an annotation.

    >>> from typing import Annotated, ClassVar
    >>> from mime.units import Quantity, Length
    >>> format_type(Annotated[Quantity | None, Length])
    'Annotated[Quantity | None, Length]'
    >>> format_type(ClassVar[tuple[str, ...] | None])
    'ClassVar[tuple[str, ...] | None]'
    """
    if tp is None or tp is _NONE:
        return "None"
    if tp is Ellipsis:
        return "..."
    if isinstance(tp, Dimension):
        return tp.label
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is typing.Annotated:
        return f"Annotated[{format_type(args[0])}, {', '.join(format_type(a) for a in tp.__metadata__)}]"
    if origin is typing.Union or origin is types.UnionType:
        return " | ".join(format_type(a) for a in args)
    if origin is typing.ClassVar:
        return f"ClassVar[{format_type(args[0])}]"
    if origin is not None:
        name = getattr(origin, "__name__", str(origin))
        return f"{name}[{', '.join(format_type(a) for a in args)}]"
    if isinstance(tp, type):
        return tp.__name__
    return str(tp)


def annotation_parts(tp: Any) -> tuple[tuple[Any, ...], Dimension | None, bool]:
    """Split an annotation into (allowed base types, dimension or None, whether None is allowed)."""
    dimension = None
    if typing.get_origin(tp) is typing.Annotated:
        for meta in tp.__metadata__:
            if isinstance(meta, Dimension):
                dimension = meta
        tp = typing.get_args(tp)[0]
    origin = typing.get_origin(tp)
    if origin is typing.Union or origin is types.UnionType:
        members = typing.get_args(tp)
    else:
        members = (tp,)
    optional = any(a is _NONE or a is None for a in members)
    bases = tuple(a for a in members if not (a is _NONE or a is None))
    bases = tuple(typing.get_origin(a) or a for a in bases)
    return bases, dimension, optional


class SettingRole(str, Enum):
    """What a setting is: a solver's choice, a model of the physics, or a design choice."""

    NUMERICAL = "numerical"
    PHYSICAL = "physical"
    DESIGN = "design"


class DefaultKind(str, Enum):
    """How a default is justified (fixed by the other settings and the bound things; a stated
    modelling convention; a solver's stated rule, never a converged value), and so which
    profiles take it: :attr:`profile_rule`."""

    DETERMINED = "determined"
    CONVENTION = "convention"
    NUMERICAL = "numerical"

    @property
    def profile_rule(self) -> str:
        """Which profiles take a default of this kind."""
        return _KIND_RULE[self]


_KIND_RULE = {
    DefaultKind.DETERMINED: "resolved in every profile",
    DefaultKind.CONVENTION: "taken in every profile",
    DefaultKind.NUMERICAL: "taken in the exploratory profile only, and stamped pending in the run's record",
}


class GradientStatus(str, Enum):
    """What a derivative taken through an entry is worth."""

    EXACT = "exact"
    PIECEWISE_KINK = "piecewise_kink"
    PIECEWISE_JUMP = "piecewise_jump"
    NONE = "none"

    @property
    def meaning(self) -> str:
        """One sentence on what the status says."""
        return _GRADIENT_MEANING[self]


_GRADIENT_MEANING = {
    GradientStatus.EXACT: "the exact derivative of what it computes, everywhere",
    GradientStatus.PIECEWISE_KINK: (
        "exact between its switches; where a switch flips the derivative has a kink, not a jump"
    ),
    GradientStatus.PIECEWISE_JUMP: (
        "not the exact derivative of what it computes everywhere: exact between its switches, "
        "and what it computes jumps where some of them flip"
    ),
    GradientStatus.NONE: "no derivative is offered",
}


class _Marker:
    """A named marker: ``REQUIRED`` (a setting with no written default, which must be given)
    or ``NOT_USED`` (what a default's rule returns when the setting does not apply)."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return self._name


REQUIRED = _Marker("REQUIRED")
NOT_USED = _Marker("NOT_USED")

# A default's rule: (the settings resolved so far, the bound things by role) -> value or NOT_USED.
DefaultRule = Callable[[Mapping[str, Any], Mapping[str, Any]], Any]


@dataclass(frozen=True)
class Setting:
    """One setting of an entry.

    ``type`` is a real annotation (``Annotated[Quantity, Length]``: a quantity of
    length). ``default`` is the written default, or ``REQUIRED``.
    ``default_kind`` is ``None`` for a setting that has no default (it is then
    required, whatever ``default`` is written as); otherwise ``rule`` and
    ``basis`` state the default in words and ``compute`` (for a determined or
    numerical default) works it out from the other settings and the bound
    things. ``choices`` lists the allowed strings; ``constraint`` with
    ``allowed`` refuses other values.
    """

    name: str
    type: Any
    role: SettingRole
    default: Any = REQUIRED
    default_kind: DefaultKind | None = None
    rule: str = ""
    basis: str = ""
    compute: DefaultRule | None = field(default=None, compare=False)
    choices: tuple[str, ...] | None = None
    constraint: Callable[[Any], bool] | None = field(default=None, compare=False)
    allowed: str = ""

    def __post_init__(self) -> None:
        if not self.name.isidentifier():
            raise invalid("name", self.name, "a Python identifier")
        if self.default_kind is not None and not (self.rule and self.basis):
            unset = "rule" if not self.rule else "basis"
            raise invalid(unset, getattr(self, unset), f"its text: a {self.default_kind.value} default states its "
                          "rule and basis", where=f"setting {self.name!r}")
        if self.default_kind in (DefaultKind.DETERMINED, DefaultKind.NUMERICAL) and self.compute is None:
            raise invalid("compute", None, f"the rule that computes a {self.default_kind.value} default",
                          where=f"setting {self.name!r}")

    # -- derived facts -------------------------------------------------------------
    @property
    def dimension(self) -> Dimension | None:
        """The dimension from the annotation, or ``None`` for a dimensionless setting."""
        return annotation_parts(self.type)[1]

    @property
    def required(self) -> bool:
        """A setting with no default kind must be given."""
        return self.default_kind is None

    @property
    def type_text(self) -> str:
        """The annotation as the page writes it."""
        return format_type(self.type)

    @property
    def default_text(self) -> str:
        """The written default as the page writes it (JSON, strings bare)."""
        if self.default is REQUIRED:
            return json.dumps({"required": True})
        if isinstance(self.default, str):
            return self.default
        return json.dumps(encode_value(self.default))

    @property
    def dimension_text(self) -> str:
        """``length (m)``, or ``none``."""
        return str(self.dimension) if self.dimension is not None else "none"

    # -- values ----------------------------------------------------------------------
    def check(self, value: Any, *, where: str = "") -> Any:
        """Return ``value`` if this setting allows it; raise a ``ValidationError`` otherwise."""
        bases, dimension, optional = annotation_parts(self.type)
        what = self._expected()
        if value is None:
            if optional:
                return None
            raise invalid(self.name, None, what, where=where)
        if dimension is not None:
            if not isinstance(value, Quantity):
                raise invalid(self.name, value, f"{what}, such as mm(0.1)", where=where)
            if value.dimension != dimension:
                raise invalid(self.name, value, f"{what}, not a quantity of {value.dimension}", where=where)
        else:
            ok = any(
                isinstance(value, b) and not (isinstance(value, bool) and b in (int, float))
                for b in bases
            )
            if not ok:
                raise invalid(self.name, value, what, where=where)
        if self.choices is not None and value not in self.choices:
            raise invalid(self.name, value, f"one of {', '.join(self.choices)}", where=where)
        if self.constraint is not None and not self.constraint(value):
            raise invalid(self.name, value, self.allowed, where=where)
        return value

    def _expected(self) -> str:
        bases, dimension, optional = annotation_parts(self.type)
        if dimension is not None:
            text = f"a Quantity of dimension {dimension}"
        else:
            text = " or ".join(f"a {b.__name__}" for b in bases)
        if self.allowed:
            text = f"{text} ({self.allowed})"
        return f"{text} or None" if optional else text

    def decode(self, doc: Any, *, where: str = "") -> Any:
        """The value from a saved document's form, checked."""
        if doc is not None and self.dimension is not None:
            try:
                doc = Quantity.from_document(doc)
            except ValidationError:
                units = ", ".join(sorted(u.symbol for u in UNITS.values() if u.dimension == self.dimension))
                raise invalid(self.name, doc, f"a saved quantity of {self.dimension}: {{'unit': one of {units}, "
                              "'value': a finite number}", where=where) from None
        return self.check(doc, where=where)


def encode_value(value: Any) -> Any:
    """A setting's value in its saved form: a quantity as written, other values as they are."""
    if isinstance(value, Quantity):
        return value.to_document()
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    raise invalid("value", value, "a Quantity, str, number, bool or None")


@dataclass(frozen=True)
class Role:
    """A thing an entry is attached to, bound by keyword (``body=umr``); ``binds`` says what it is."""

    name: str
    binds: str


@dataclass(frozen=True)
class Requires:
    """One supported construction of a rung: what the thing bound to ``role`` must offer.

    ``flags`` are class attributes that must be true on it (``projects_confinement``);
    ``accepts`` are inputs it must list in its ``accepts`` attribute (``body.confinement``).
    """

    role: str
    flags: tuple[str, ...] = ()
    accepts: tuple[str, ...] = ()
    note: str = ""

    @property
    def text(self) -> str:
        """``body: flag projects_confinement, accepts `body.confinement```."""
        parts = [f"flag {f}" for f in self.flags] + [f"accepts `{a}`" for a in self.accepts]
        return f"{self.role}: {', '.join(parts)}"

    def unmet(self, thing: Any) -> list[str]:
        """What ``thing`` lacks of this row, in words (empty when it meets the row)."""
        missing = []
        for flag in self.flags:
            if getattr(thing, flag, False) is not True:
                missing.append(f"does not flag {flag}")
        accepted = tuple(getattr(thing, "accepts", ()) or ())
        for item in self.accepts:
            if item not in accepted:
                missing.append(f"does not accept {item}")
        return missing


@dataclass(frozen=True)
class Rung:
    """A way an entry can be built. A rung is ``built`` with its :class:`Requires` rows
    (any one row met suffices), or reserved and not built, with a note."""

    name: str
    built: bool
    requires: tuple[Requires, ...] = ()
    builds: str = "Builds no node of its own."
    note: str = ""

    def check(self, roles: Mapping[str, Any], *, where: str = "") -> None:
        """Refuse unless the bound things meet one of this rung's rows, for each role a row names."""
        if not self.built:
            raise invalid("rung", self.name, f"a rung that is built ({self.name} is reserved: {self.note})",
                          where=where)
        if not self.requires:
            return
        problems = []
        for row in self.requires:
            thing = roles.get(row.role)
            lacks = row.unmet(thing)
            if not lacks:
                return
            problems.append(f"{row.role} = {_describe(thing)} {' and '.join(lacks)}")
        raise invalid("rung", self.name, f"a rung the bound things support: it needs "
                      f"{' or '.join(r.text for r in self.requires)}, and {'; '.join(problems)}", where=where)


def _describe(thing: Any) -> str:
    name = getattr(thing, "name", None)
    cls = type(thing).__name__
    return f"{cls} {name!r}" if isinstance(name, str) else cls


_ORDER_WORDS = {-1: "a jump", 0: "a kink"}


@dataclass(frozen=True)
class Switch:
    """A place where the law changes branch.

    ``indicator`` says what quantity crosses zero there (with its unit); ``orders`` gives,
    per output group, the lowest derivative order that is discontinuous across it minus one
    (``-1``: the output itself jumps; ``0``: its first derivative jumps, a kink);
    ``route`` says how an exact derivative would be reached, or ``none: ...``.
    """

    name: str
    indicator: str
    orders: tuple[tuple[str, int], ...]
    route: str

    @property
    def orders_text(self) -> str:
        """```pose` -1 (a jump); `twist` 0 (a kink)``."""
        return "; ".join(
            f"`{group}` {order} ({_ORDER_WORDS.get(order, f'smooth to order {order}')})"
            for group, order in self.orders
        )


@dataclass(frozen=True)
class ValidityLine:
    """A declared statement of where the entry holds, for one rung: free text, not parsed."""

    rung: str
    text: str

    @property
    def line(self) -> str:
        """``projection: ...``."""
        return f"{self.rung}: {self.text}"


@dataclass(frozen=True)
class Family:
    """The family an entry belongs to; ``conformance`` says how its suite is run."""

    name: str
    conformance: str = ""

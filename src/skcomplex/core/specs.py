"""Declarations read from an annotated signature: roles, parameters and their domains.

An interaction's ``__init__`` signature is its declaration. A parameter annotated
``Annotated[str, RoleSpec()]`` names an element playing a role; one annotated
``Annotated[float, ParameterSpec(domain=...)]`` is a physical parameter whose
value must lie in the domain. Validation (:func:`validate_arguments`) and the
book's parameter table (:func:`describe_parameters`) both read these
annotations, so the two cannot disagree. A subclass inherits the declaration of
a parameter of the same name from its bases when it does not annotate it itself.

A class that is not an interaction, such as ``Simulation``, declares instead
one ``_parameter_constraints`` table (see ``skcomplex._constraints``), and
:func:`describe_parameters` reads that table for it, so the book renders both
kinds of declaration the same way.
"""

from __future__ import annotations

import inspect
import re
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from skcomplex._constraints import allowed_text, constraints_of
from skcomplex.core.sets import FiniteSet, RealSet
from skcomplex.exceptions import ValidationError

__all__ = [
    "DeclaredParameter",
    "ParameterSpec",
    "RoleSpec",
    "declared_parameters",
    "describe_parameters",
    "validate_arguments",
]


@dataclass(frozen=True)
class RoleSpec:
    """Marks a parameter that holds the label of an element playing a role.

    >>> RoleSpec()
    RoleSpec()
    """

    def __repr__(self) -> str:
        return "RoleSpec()"


@dataclass(frozen=True)
class ParameterSpec:
    """Marks a physical parameter and its domain.

    Args:
        domain: The set of allowed values, a ``RealSet`` or a ``FiniteSet``.
        static: ``True`` for a parameter that shapes the compiled step (an integer
            option); ``False`` (the default) for a numeric parameter that becomes a
            leaf of the simulation's parameter tree, so ``jax.grad`` can reach it.

    >>> spec = ParameterSpec(domain=RealSet.closed(0, 1))
    >>> spec, 0.5 in spec.domain, str(spec.domain)
    (ParameterSpec(domain=closed(0, 1)), True, '[0, 1]')
    """

    domain: RealSet | FiniteSet | None = None
    static: bool = False

    def __repr__(self) -> str:
        return f"ParameterSpec(domain={self.domain!r})"


@dataclass(frozen=True)
class DeclaredParameter:
    """One parameter of an annotated signature, as the declaration states it.

    ``annotation`` is the base type (``Annotated`` removed), ``spec`` the
    ``RoleSpec`` or ``ParameterSpec`` found on it or on a base class, ``default``
    the default value or ``inspect.Parameter.empty``, and ``description`` the
    text of the parameter in the class docstring's ``Args:`` section.
    ``constraints`` is the parameter's row of the class's
    ``_parameter_constraints`` table, for a class that declares one.
    """

    name: str
    annotation: Any
    spec: RoleSpec | ParameterSpec | None
    default: Any
    description: str
    constraints: tuple = ()

    @property
    def required(self) -> bool:
        """Whether the parameter has no default."""
        return self.default is inspect.Parameter.empty

    @property
    def type_text(self) -> str:
        """The base type written as in source, without module prefixes."""
        return _type_text(self.annotation)

    @property
    def domain_text(self) -> str:
        """What is allowed, in words or set notation."""
        if self.constraints:
            return allowed_text(self.constraints)
        if isinstance(self.spec, RoleSpec):
            return "label of an element of the system"
        if isinstance(self.spec, ParameterSpec) and self.spec.domain is not None:
            return str(self.spec.domain)
        if _is_callable_type(self.annotation):
            return "callable" + (" or None" if _allows_none(self.annotation) else "")
        if self.name in ("positions", "velocities"):
            return "state names of the target"
        return "any"

    @property
    def default_text(self) -> str:
        """The default as source text, or ``required``."""
        return "required" if self.required else repr(self.default)


def _split(annotation: Any) -> tuple[Any, Any]:
    """Return (base type, spec or None) of a possibly ``Annotated`` annotation."""
    if typing.get_origin(annotation) is Annotated:
        base, *extras = typing.get_args(annotation)
        spec = next((e for e in extras if isinstance(e, (RoleSpec, ParameterSpec))), None)
        return base, spec
    return annotation, None


def _hints(cls: type) -> dict[str, Any]:
    init = cls.__dict__.get("__init__")
    if init is None:
        return {}
    return typing.get_type_hints(init, include_extras=True)


def _docstring_args(cls: type) -> dict[str, str]:
    """Parse the ``Args:`` section of a class docstring (Google style)."""
    found: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        doc = inspect.cleandoc(klass.__doc__ or "")
        match = re.search(r"^Args:\n((?:[ \t]+.*\n?|\n)*)", doc, re.M)
        if not match:
            continue
        current = None
        for line in match.group(1).splitlines():
            item = re.match(r"^ {4}(\w+)(?: \(.*?\))?: (.*)$", line)
            if item:
                current = item.group(1)
                found[current] = item.group(2).strip()
            elif current and line.strip():
                found[current] += " " + line.strip()
    return found


def declared_parameters(cls: type) -> list[DeclaredParameter]:
    """Read the declaration of ``cls``: its ``__init__`` parameters after ``self``.

    A parameter without its own ``RoleSpec``/``ParameterSpec`` takes the one a
    base class declares for the same name. A class with a ``_parameter_constraints``
    table gives each parameter its row of that table.
    """
    signature = inspect.signature(cls.__init__)
    table = constraints_of(cls) or {}
    own = _hints(cls)
    inherited = [_hints(base) for base in cls.__mro__[1:]]
    docs = _docstring_args(cls)
    result = []
    for name, parameter in list(signature.parameters.items())[1:]:
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        base, spec = _split(own.get(name, Any))
        if spec is None:
            for hints in inherited:
                if name in hints:
                    _, spec = _split(hints[name])
                    if spec is not None:
                        break
        result.append(DeclaredParameter(name, base, spec, parameter.default, docs.get(name, ""),
                                        tuple(table.get(name, ()))))
    return result


def describe_parameters(cls: type) -> list[DeclaredParameter]:
    """The rows of the parameter table of ``cls``: name, type, domain, default, description.

    >>> from skcomplex.models.physics.common.mechanics import ReflectionInteraction
    >>> [(p.name, p.domain_text) for p in describe_parameters(ReflectionInteraction)][5:7]
    [('direction', '{-1, 0, 1}'), ('restitution', '[0, 1]')]
    >>> from skcomplex.engine.runtime import Simulation
    >>> [(p.name, p.domain_text) for p in describe_parameters(Simulation)][:2]
    [('system', 'a System'), ('dt', 'a finite number > 0')]
    """
    return declared_parameters(cls)


def validate_arguments(cls: type, arguments: dict[str, Any]) -> None:
    """Check bound arguments against the declaration of ``cls``.

    Roles must be non-empty strings, ``ParameterSpec`` values must be real
    numbers (integers for ``int`` parameters) inside their domain, and a
    parameter typed as a callable must be callable (or ``None`` when allowed).

    Raises:
        skcomplex.exceptions.ValidationError: naming the argument, its value and what is allowed.
    """
    owner = cls.__name__
    for declared in declared_parameters(cls):
        if declared.name not in arguments:
            continue
        value = arguments[declared.name]
        name = declared.name
        if isinstance(declared.spec, RoleSpec):
            if not isinstance(value, str) or not value:
                raise ValidationError(
                    f"{owner}: {name} must be the label of an element (a non-empty str), got {value!r}"
                )
        elif isinstance(declared.spec, ParameterSpec):
            _check_number(owner, name, value, declared)
        elif _is_callable_type(declared.annotation):
            if value is None and _allows_none(declared.annotation):
                continue
            if not callable(value):
                allowed = "a callable of a namespace" + (" or None" if _allows_none(declared.annotation) else "")
                raise ValidationError(f"{owner}: {name} must be {allowed}, got {value!r}")
        elif declared.annotation is str and not isinstance(value, str):
            raise ValidationError(f"{owner}: {name} must be a str, got {value!r}")


def _check_number(owner: str, name: str, value: Any, declared: DeclaredParameter) -> None:
    spec = declared.spec
    assert isinstance(spec, ParameterSpec)
    want_int = declared.annotation is int
    if isinstance(value, bool) or not isinstance(value, (int, float)) and not _is_real_scalar(value):
        kind = "an int" if want_int else "a real number"
        raise ValidationError(f"{owner}: {name} must be {kind} in {spec.domain}, got {value!r}")
    if want_int and not isinstance(value, int):
        raise ValidationError(f"{owner}: {name} must be an int in {spec.domain}, got {value!r}")
    if spec.domain is not None and value not in spec.domain:
        raise ValidationError(f"{owner}: {name} must be in {spec.domain}, got {value!r}")


def _is_real_scalar(value: Any) -> bool:
    shape = getattr(value, "shape", None)
    dtype = getattr(value, "dtype", None)
    return shape == () and dtype is not None and getattr(dtype, "kind", "") in "fiu"


def _is_callable_type(annotation: Any) -> bool:
    origin = typing.get_origin(annotation)
    if origin is Callable:
        return True
    return any(typing.get_origin(a) is Callable for a in typing.get_args(annotation)) if origin in (
        typing.Union,
        getattr(__import__("types"), "UnionType", None),
    ) else False


def _allows_none(annotation: Any) -> bool:
    return type(None) in typing.get_args(annotation)


def _type_text(annotation: Any) -> str:
    if annotation is Any:
        return "Any"
    if isinstance(annotation, type) and typing.get_origin(annotation) is None:
        return annotation.__name__
    text = str(annotation)
    text = re.sub(r"\b(typing|types|collections\.abc|builtins)\.", "", text)
    return text.replace("NoneType", "None").replace("Optional[", "Optional[")


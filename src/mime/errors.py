"""The errors mime raises for bad input, and the few checks every constructor uses.

``ValidationError`` is maddening's: mime builds on maddening, so one error covers
a bad value given to either (a refusal from ``maddening.core.Node``'s checks, met
through a mime body, is caught by ``except mime.ValidationError``). Its message
names the argument, the value given and what is allowed. ``DocumentError`` is the
kind raised while reading a saved experiment: its message also says which file
and which key or entry was at fault, and is built by :func:`invalid_document`.

Every refusal's message is built by one helper, :func:`invalid` (maddening's):
``"<where>: <argument> = <value> is not allowed; expected <what>"``; a setting
that must be given and was not is refused by its sibling :func:`required`,
``"<where>: setting '<name>' is required[ by <what needs it>] and was not given;
expected <what>"``; a saved document's refusal by :func:`invalid_document`,
``"<file>: <key> = <value> is not allowed; expected <what>"``, or, for a refusal
met inside the document (an entry's setting, say), ``"<file>: <key>: <that
refusal's own message>"``. No message in mime is typed by hand
(``tests/mime/test_messages.py`` walks the sources). A class
declares what each argument accepts once, as a table of :class:`Rule` values
(``RigidInertialNode.RULES``, ``Contact``'s settings), and checks it with
:func:`check_arguments`; the same rule's ``allowed`` text documents it. The rules:

- :class:`Number`: a finite real number, optionally bounded;
- :class:`Whole`: an ``int`` (never a bool) of at least a bound;
- :class:`Vector`: ``n`` finite real numbers, optionally each positive;
- :class:`Direction`: three finite numbers, not all zero (made a unit vector);
- :class:`UnitQuaternion`: four finite numbers of unit length ``(w, x, y, z)``;
- :class:`OneOf`: one of a few given values.

The functions under them are kept for one-off checks: :func:`finite_number`,
:func:`whole_number` (maddening's), :func:`real_array` and :func:`callable_value`.
A positive length is :func:`mime.geometry.positive_length` (a :class:`Number`
above zero, in metres).

>>> from mime.errors import ValidationError, DocumentError
>>> import maddening
>>> ValidationError is maddening.ValidationError, issubclass(DocumentError, ValidationError)
(True, True)
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any, Mapping

from maddening.errors import ValidationError, finite_number, invalid, whole_number

__all__ = ["ValidationError", "DocumentError", "invalid", "finite_number", "whole_number", "real_array",
           "callable_value", "Rule", "Number", "Whole", "Vector", "Direction", "UnitQuaternion", "OneOf",
           "check_arguments", "is_traced", "any_traced", "refuse_traced", "required", "invalid_document",
           "UNIT_TOLERANCE"]


class DocumentError(ValidationError):
    """A saved experiment's document is malformed or names something unknown.

    The message names the file, the key or entry at fault, and what was expected.
    """


def required(name: str, allowed: str, *, where: str = "", by: str = "") -> ValidationError:
    """The house error for a setting that must be given and was not.

    >>> str(required("stiffness", "a stiffness", where="Contact 0.4.0", by="rung 'penalty'"))
    "Contact 0.4.0: setting 'stiffness' is required by rung 'penalty' and was not given; expected a stiffness"
    """
    prefix = f"{where}: " if where else ""
    needs = f" by {by}" if by else ""
    return ValidationError(f"{prefix}setting {name!r} is required{needs} and was not given; expected {allowed}")


_NOT_GIVEN: Any = object()


def invalid_document(path: Any, key: str, value: Any = _NOT_GIVEN, allowed: str = "", *,
                     refusal: BaseException | None = None) -> DocumentError:
    """The house error for a saved document: the file ``path``, the ``key`` at fault, and either
    the ``value`` found there with what is ``allowed``, or the ``refusal`` met while reading it.

    ``key`` is the dotted place in the document (``attachments[0].entry``). With
    ``value`` and ``allowed`` the message is :func:`invalid`'s, prefixed with the file.
    With ``refusal`` (a ``ValidationError`` raised by the code that read the key, itself
    built by :func:`invalid` or :func:`required`) the message is that refusal's,
    prefixed with the file and the key.

    >>> str(invalid_document("saved/experiment.json", "format", "other", "'mime.experiment'"))
    "saved/experiment.json: format = 'other' is not allowed; expected 'mime.experiment'"
    >>> met = invalid("profile", "fast", "one of exploratory, validated")
    >>> str(invalid_document("saved/experiment.json", "profile", refusal=met))
    "saved/experiment.json: profile: profile = 'fast' is not allowed; expected one of exploratory, validated"
    """
    if refusal is not None:
        if value is not _NOT_GIVEN or allowed:
            raise invalid("refusal", refusal, "no value or allowed beside it (give one or the other)",
                          where="invalid_document")
        return DocumentError(f"{path}: {key}: {refusal}")
    if value is _NOT_GIVEN or not allowed:
        raise required("value", "the value found at the key and what is allowed there, or a refusal",
                       where="invalid_document")
    return DocumentError(str(invalid(key, value, allowed, where=str(path))))


def callable_value(value: Any, argument: str, allowed: str, *, where: str = "") -> Any:
    """``value`` when it can be called; else ``ValidationError``."""
    if not callable(value):
        raise invalid(argument, value, allowed, where=where)
    return value


def real_array(value: Any, argument: str, allowed: str, *, shape: tuple[int, ...] | None = None,
               where: str = "") -> Any:
    """``value`` as a float64 NumPy array when it holds only finite real numbers; else ``ValidationError``.

    Text is never parsed as a number (``"1.0"``, ``b"1"``, ``["0", "0", "0"]`` are
    refused), and neither a complex number, a bool, ``None`` nor an object NumPy
    cannot read as real numbers is accepted. With ``shape``, the array must have
    exactly that shape (``()`` for a scalar). The message names ``argument``, the
    value given and ``allowed``.

    >>> real_array([1, 2.5, 0.0], "position", "three finite numbers", shape=(3,)).tolist()
    [1.0, 2.5, 0.0]
    >>> real_array(["0", "0", "0"], "position", "three finite numbers", shape=(3,))
    Traceback (most recent call last):
    ...
    maddening.ValidationError: position = ['0', '0', '0'] is not allowed; expected three finite numbers
    """
    import numbers

    import numpy as np

    def refuse() -> ValidationError:
        return invalid(argument, value, allowed, where=where)

    if value is None or isinstance(value, (bool, np.bool_, str, bytes, complex)):
        raise refuse()
    try:
        array = np.asarray(value)
    except Exception:  # noqa: BLE001 - anything NumPy cannot read is not a number
        raise refuse() from None
    if array.dtype.kind == "O":  # a ragged or mixed sequence: each entry must itself be a real number
        items = array.ravel().tolist()
        if not all(isinstance(c, numbers.Real) and not isinstance(c, (bool, np.bool_)) for c in items):
            raise refuse()
        try:
            array = array.astype(np.float64)
        except (TypeError, ValueError):
            raise refuse() from None
    if array.dtype.kind not in "iuf":
        raise refuse()
    if shape is not None and array.shape != tuple(shape):
        raise refuse()
    array = array.astype(np.float64)
    if not np.all(np.isfinite(array)):
        raise refuse()
    return array


def is_traced(value: Any) -> bool:
    """Whether ``value`` is traced by JAX (under ``jit``, ``vmap``, ``grad``): it cannot be checked."""
    import jax

    return isinstance(value, jax.core.Tracer)


def any_traced(*trees: Any) -> bool:
    """Whether any leaf of the pytrees ``trees`` is traced (:func:`is_traced`)."""
    import jax

    return any(is_traced(leaf) for leaf in jax.tree_util.tree_leaves(trees))


def refuse_traced(values: Mapping[str, Any], allowed: str, *, where: str) -> None:
    """The house error for the first of ``values`` (name -> pytree) that holds a traced leaf, if any: for
    a function that must see concrete values (a run counted and kept on the host).

    >>> refuse_traced({"steps": 3}, "a concrete count", where="run")
    """
    for name, value in values.items():
        if any_traced(value):
            raise invalid(name, "<traced>", allowed, where=where)


@dataclass(frozen=True)
class Rule:
    """A declared constraint on one argument: ``allowed`` says in words what it accepts.

    ``check(value, argument, where=...)`` returns the value converted (a float, a
    tuple of floats) or raises the house message through :func:`invalid`.
    """

    allowed: str

    def check(self, value: Any, argument: str, *, where: str = "") -> Any:  # pragma: no cover - overridden
        raise NotImplementedError

    def refuse(self, value: Any, argument: str, where: str) -> ValidationError:
        """The house error for ``value`` given as ``argument``."""
        return invalid(argument, value, self.allowed, where=where)


@dataclass(frozen=True)
class Number(Rule):
    """A finite real number (never text, a bool or complex), ``> above`` and ``>= at_least`` where given.

    >>> Number("a positive mass in kg", above=0).check(2, "mass")
    2.0
    """

    above: float | None = None
    at_least: float | None = None

    def check(self, value: Any, argument: str, *, where: str = "") -> float:
        number = float(real_array(value, argument, self.allowed, shape=(), where=where))
        if (self.above is not None and not number > self.above) or (
                self.at_least is not None and not number >= self.at_least):
            raise self.refuse(value, argument, where)
        return number


@dataclass(frozen=True)
class Whole(Rule):
    """An ``int`` (never a bool) of at least ``at_least``; with ``integral``, a NumPy integer too,
    returned as an ``int``.

    >>> Whole("a whole number of at least 1").check(3, "steps")
    3
    >>> import numpy as np
    >>> Whole("a whole number of at least 1", integral=True).check(np.int64(3), "steps")
    3
    """

    at_least: int = 1
    integral: bool = False

    def check(self, value: Any, argument: str, *, where: str = "") -> int:
        kind = numbers.Integral if self.integral else int
        return int(whole_number(value, argument, self.allowed, where=where, at_least=self.at_least, kind=kind))


@dataclass(frozen=True)
class Vector(Rule):
    """``n`` finite real numbers, each ``> 0`` with ``positive``; returned as a tuple of floats.

    >>> Vector("3 finite numbers", n=3).check([0, 1, 2.5], "position")
    (0.0, 1.0, 2.5)
    """

    n: int = 3
    positive: bool = False

    def check(self, value: Any, argument: str, *, where: str = "") -> tuple[float, ...]:
        array = real_array(value, argument, self.allowed, shape=(self.n,), where=where)
        if self.positive and not bool((array > 0).all()):
            raise self.refuse(value, argument, where)
        return tuple(float(c) for c in array)


@dataclass(frozen=True)
class Direction(Rule):
    """Three finite real numbers, not all zero; returned as the unit vector along them.

    >>> Direction("a nonzero direction").check((0, 0, 2), "axis")
    (0.0, 0.0, 1.0)
    """

    def check(self, value: Any, argument: str, *, where: str = "") -> tuple[float, ...]:
        import numpy as np

        array = real_array(value, argument, self.allowed, shape=(3,), where=where)
        norm = float(np.linalg.norm(array))
        if norm == 0.0:
            raise self.refuse(value, argument, where)
        return tuple(float(c) for c in array / norm)


UNIT_TOLERANCE = 1e-6
"""How far from 1 a quaternion's length may be for it to be taken as an orientation (then normalised)."""


@dataclass(frozen=True)
class UnitQuaternion(Rule):
    """Four finite real numbers ``(w, x, y, z)`` of length 1 within ``1e-6``.

    A quaternion of length 1 within ``1e-12`` is kept as given, bit for bit; one
    further off (within the tolerance) is normalised.

    >>> UnitQuaternion("a unit quaternion (w, x, y, z)").check((1, 0, 0, 0), "orientation")
    (1.0, 0.0, 0.0, 0.0)
    """

    def check(self, value: Any, argument: str, *, where: str = "") -> tuple[float, ...]:
        import numpy as np

        q = real_array(value, argument, self.allowed, shape=(4,), where=where)
        norm = float(np.linalg.norm(q))
        if abs(norm - 1.0) > UNIT_TOLERANCE:
            raise self.refuse(value, argument, where)
        if abs(norm - 1.0) > 1e-12:  # keep a unit quaternion as given, bit for bit
            q = q / norm
        return tuple(float(c) for c in q)


@dataclass(frozen=True)
class OneOf(Rule):
    """One of ``choices`` (compared with ``==``).

    >>> OneOf("one of remove_outward", choices=("remove_outward",)).check("remove_outward", "rule")
    'remove_outward'
    """

    choices: tuple[Any, ...] = ()

    def check(self, value: Any, argument: str, *, where: str = "") -> Any:
        try:
            ok = any(value == c and type(value) is type(c) for c in self.choices)
        except Exception:  # noqa: BLE001 - a value that cannot be compared is not one of them
            ok = False
        if not ok:
            raise self.refuse(value, argument, where)
        return value


def check_arguments(where: str, rules: Mapping[str, Rule], values: Mapping[str, Any]) -> dict[str, Any]:
    """Each of ``values`` checked by its declared rule, converted; a traced value passes as it is.

    >>> check_arguments("Body", {"mass": Number("a positive mass in kg", above=0)}, {"mass": -1.0})
    Traceback (most recent call last):
    ...
    maddening.ValidationError: Body: mass = -1.0 is not allowed; expected a positive mass in kg
    """
    out = {}
    for name, value in values.items():
        out[name] = value if is_traced(value) else rules[name].check(value, name, where=where)
    return out

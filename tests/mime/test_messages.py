"""No refusal in mime is typed by hand: every message is built by one of mime.errors' helpers.

The house message names the argument, the value given and what is allowed
(``invalid``), a setting that was not given (``required``), or the file and key
of a saved document (``invalid_document``). A message typed into an exception's
constructor drifts from that form, so this test walks the syntax of every
module under ``src/mime`` (``mime/errors.py``, which defines the helpers, aside)
and refuses any exception built from anything but nothing, or ``str(<helper>(...))``
where the exception's type must stay a built-in one (``TypeError`` for an unknown
field, as ``dataclasses.replace`` raises).
"""

from __future__ import annotations

import ast
import builtins
from pathlib import Path

import pytest

import mime
import mime.errors

SRC = Path(mime.__file__).parent
HELPERS = frozenset({"invalid", "required", "invalid_document"})
BUILTIN_EXCEPTIONS = frozenset(
    name for name, value in vars(builtins).items() if isinstance(value, type) and issubclass(value, BaseException)
)


def _name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _is_exception(name: str | None) -> bool:
    return name is not None and (name in BUILTIN_EXCEPTIONS or name.endswith(("Error", "Exception")))


def _from_helper(arg: ast.expr) -> bool:
    """``str(invalid(...))`` and its siblings: a message a helper built."""
    return (isinstance(arg, ast.Call) and _name(arg.func) == "str" and len(arg.args) == 1 and not arg.keywords
            and isinstance(arg.args[0], ast.Call) and _name(arg.args[0].func) in HELPERS)


def hand_typed(source: str, filename: str = "<source>") -> list[str]:
    """Each place in ``source`` that builds an exception from a message not made by a house helper.

    >>> hand_typed('raise ValueError(f"x = {x}")')
    ["<source>:1: ValueError(f'x = {x}')"]
    >>> hand_typed('raise invalid("x", x, "y")'), hand_typed('raise TypeError(str(invalid("x", x, "y")))')
    ([], [])
    """
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if not (isinstance(node, ast.Call) and _is_exception(_name(node.func))):
            continue
        arguments = [*node.args, *(k.value for k in node.keywords)]
        if arguments and not (len(arguments) == 1 and _from_helper(arguments[0])):
            found.append(f"{filename}:{node.lineno}: {ast.unparse(node)[:120]}")
    return found


MODULES = sorted(p for p in SRC.rglob("*.py") if p != Path(mime.errors.__file__))


def test_the_walk_covers_mime():
    names = {p.relative_to(SRC).as_posix() for p in MODULES}
    assert {"experiment.py", "registry/store.py", "registry/entry.py", "document_kinds.py"} <= names
    assert "errors.py" not in names and len(names) > 40


@pytest.mark.parametrize(
    "source",
    [
        'raise ValidationError(f"{where}: setting {name!r} is required")',
        'raise DocumentError("bad document")',
        'raise mime.errors.DocumentError(path + ": bad")',
        'raise TypeError(type(g).__name__)',
        'message = "no"\nraise ValueError(message)',
        'error = KeyError(f"{key} is missing")',
        'raise NotImplementedError(str(f"no plan for {x}"))',
    ],
)
def test_a_hand_typed_message_is_found(source):
    assert hand_typed(source), source


@pytest.mark.parametrize(
    "source",
    [
        'raise invalid("dt", dt, "a time step > 0 (s)", where="run")',
        'raise required("stiffness", "a stiffness", where=label)',
        'raise invalid_document(path, "format", doc["format"], "\'mime.experiment\'") from None',
        'raise TypeError(str(invalid("fields", names, "fields of X", where="replace")))',
        'raise NotImplementedError',
        'raise',
    ],
)
def test_a_message_built_by_a_helper_passes(source):
    assert hand_typed(source) == []


def test_no_hand_typed_message_is_left_in_mime():
    found = [hit for path in MODULES
             for hit in hand_typed(path.read_text(encoding="utf-8"), path.relative_to(SRC.parent).as_posix())]
    assert found == [], "messages typed by hand (build them with mime.errors.invalid, required or " \
                        "invalid_document):\n" + "\n".join(found)


def test_document_refusals_name_the_file_the_key_and_what_is_allowed(tmp_path):
    error = mime.errors.invalid_document(tmp_path / "experiment.json", "things.umr.kind", 3, "a string")
    assert isinstance(error, mime.DocumentError)
    assert str(error) == f"{tmp_path / 'experiment.json'}: things.umr.kind = 3 is not allowed; expected a string"
    met = mime.errors.invalid("version", "0.9.0", "one of 0.1.0, 0.4.0")
    nested = mime.errors.invalid_document("x/experiment.json", "attachments[0].entry", refusal=met)
    assert str(nested) == "x/experiment.json: attachments[0].entry: version = '0.9.0' is not allowed; expected one of 0.1.0, 0.4.0"
    with pytest.raises(mime.ValidationError, match="invalid_document: refusal = "):
        mime.errors.invalid_document("x", "k", 1, "y", refusal=met)
    with pytest.raises(mime.ValidationError, match="invalid_document: setting 'value' is required"):
        mime.errors.invalid_document("x", "k")

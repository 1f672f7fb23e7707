"""The claim ledger: every claim of every page, as data, published as ``claims.json``.

The build (``specbook.sphinxext``) writes ``_build/html/claims.json``. It holds one entry
per claim: the page, the URL of the cell that makes it (``maddening/ball.html#claim-ball_order``),
the claim's key, measured and expected values, tolerance, unit, whether it holds, and the
source of its expected value (:class:`specbook.Source`: a declaration, a closed form, an
independent implementation, or a seed's figure), with the URL of the source's API entry
where the book documents it. Each entry also says whether it is an example
(``specbook.example``: page arithmetic, outside the counts), the share of its tolerance it
uses, and its verdicts under the fault catalogue (``specbook._matrix``): ``killed_by``, the
faults under which it fails; ``unreached_under``, those whose run stopped before it;
``expected_moved_under``, those that moved its expected value; and ``mislabelled``, a
sentence for each fault that proves its source wrong. The document's ``faults`` section
says, per page, which faults' runs were current, stale or missing. A reader, a CI job or
another tool reads it with :func:`read_ledger`; :mod:`specbook.diff` compares two.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any, Iterable

from specbook import _atomic

__all__ = ["LEDGER_NAME", "LEDGER_VERSION", "claim_entry", "missing_sources", "read_ledger", "write_ledger"]

LEDGER_NAME = "claims.json"
"""The ledger's file name in the built site."""
LEDGER_VERSION = 2
"""The ledger's format version, stored in it."""


def _number(value: Any) -> Any:
    """A finite float as itself; NaN and infinities as text, so the file stays strict JSON."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value


def claim_entry(page: str, url: str, page_key: str | None, claim: dict[str, Any],
                api: str | None = None) -> dict[str, Any]:
    """One ledger entry from a claim as the page's kernel reported it (``specbook._record``).

    >>> entry = claim_entry("book/a.md", "a.html#claim-x", "k", {"key": "x", "measured": 1.0,
    ...     "expected": 1.0, "atol": 0.1, "holds": True, "source": {"kind": "closed form", "ref": "1"}})
    >>> entry["key"], entry["url"], entry["source"]["kind"]
    ('x', 'a.html#claim-x', 'closed form')
    """
    return {
        "page": page,
        "url": url,
        "key": claim["key"],
        "measured": _number(claim.get("measured")),
        "expected": _number(claim.get("expected")),
        "rtol": claim.get("rtol"),
        "atol": claim.get("atol"),
        "tolerance": claim.get("tolerance", ""),
        "unit": claim.get("unit", ""),
        "holds": bool(claim.get("holds")),
        "description": claim.get("description", ""),
        "source": claim.get("source"),
        "source_api": api,
        "page_key": page_key,
        "example": bool(claim.get("example")),
        "tolerance_used": _number(claim.get("tolerance_used")),
        "killed_by": list(claim.get("killed_by") or []),
        "unreached_under": list(claim.get("unreached_under") or []),
        "expected_moved_under": list(claim.get("expected_moved_under") or []),
        "mislabelled": list(claim.get("mislabelled") or []),
    }


def missing_sources(entries: Iterable[dict[str, Any]]) -> list[str]:
    """``page: key`` of every claim that does not say where its expected value comes from.

    >>> missing_sources([{"page": "a.md", "key": "x", "source": None}, {"page": "a.md", "key": "y",
    ...     "source": {"kind": "closed form", "ref": "2 pi"}}])
    ['a.md: x']
    """
    return [f"{e['page']}: {e['key']}" for e in entries if not e.get("source")]


def write_ledger(path: str | os.PathLike[str], entries: list[dict[str, Any]],
                 pages: list[dict[str, Any]], faults: dict[str, Any] | None = None) -> Path:
    """Write the ledger (``pages`` with their execution keys, the fault section, then every claim) as strict JSON.

    The file is replaced in one step (``specbook._atomic``): a build killed while it writes
    leaves the previous ledger or none, never half of one.
    """
    document = {"version": LEDGER_VERSION, "pages": pages, "faults": faults, "claims": entries}
    return _atomic.write_text(path, json.dumps(document, indent=1, allow_nan=False, ensure_ascii=False) + "\n")


def read_ledger(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a ledger written by the build; raise ``ValueError`` naming the file if it is not one."""
    path = Path(path)
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ValueError(f"{path} is not a claim ledger: {error}") from None
    if not isinstance(document, dict) or not isinstance(document.get("claims"), list):
        raise ValueError(f"{path} is not a claim ledger: expected an object with a 'claims' list")
    return document

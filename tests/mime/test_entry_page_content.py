"""The generated entry pages' content, pinned against golden files.

Every registered entry's page (``mime.docs.entry_page``) is written out as canonical text:
each section's title, its text blocks and every table's header and rows, in order. The text
is compared with ``tests/mime/golden/<namespace>-<name>-<version>.txt``, which was written
from the code before the declaration layer was right-sized. A change to the declarations,
their text or the generator that changes what a page shows fails here and names the entry.

To accept an intended change of a page, regenerate the golden files with
``MIME_WRITE_GOLDEN=1 pytest tests/mime/test_entry_page_content.py`` and review the diff.
"""

import os
from pathlib import Path

import pytest

from mime import REGISTRY
from mime.docs import SECTION_TITLES, entry_page

GOLDEN = Path(__file__).parent / "golden"


def canonical(entry) -> str:
    """The page's content as plain text: titles, text blocks, and each table as header and rows."""
    page = entry_page(entry)
    out = [f"# page of {entry.label()}"]
    for title in ("",) + tuple(SECTION_TITLES):
        out.append(f"\n## section {title or '(introduction)'}")
        for block in page.section(title).blocks:
            if isinstance(block, str):
                out.append("### text")
                out.append(block)
            else:
                records = block.records()
                out.append(f"### table of {len(records)} rows")
                for n, row in enumerate(records):
                    for header, value in row.items():
                        out.append(f"[{n}] {header}: {value}")
    return "\n".join(out) + "\n"


ENTRIES = REGISTRY.entries()


def test_every_registered_entry_has_a_golden_page():
    names = {f"{c.namespace}-{c.name}-{c.version}.txt" for c in ENTRIES}
    assert len(ENTRIES) >= 2
    assert names == {p.name for p in GOLDEN.glob("*.txt")}


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda c: c.label())
def test_page_content_is_unchanged(entry):
    path = GOLDEN / f"{entry.namespace}-{entry.name}-{entry.version}.txt"
    text = canonical(entry)
    if os.environ.get("MIME_WRITE_GOLDEN") == "1":
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")

"""The book's guarantee: a false claim fails both the strict build and pytest on its page.

A minimal book is built in a temporary folder with this project's own
``_config.yml`` and root ``conftest.py``: one page whose claim is true, one whose
claim is false, and one citing a key the bibliography does not have.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from _pages import FRONT

pytestmark = pytest.mark.slow  # its builds (or subprocess runs) take tens of seconds

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def _page(expected: str, cite: str = "Roache2002") -> str:
    return FRONT + textwrap.dedent(
        f"""
        # A page with one claim

        The measured order is {{glue:text}}`tiny_order:.3f`, as {{cite}}`{cite}` describes.

        ```{{code-cell}} ipython3
        import specbook
        specbook.claim("tiny_order", 1.0 + 1e-3, {expected}, atol=0.02, source=specbook.closed_form("first order"))
        ```

        ```{{code-cell}} ipython3
        specbook.claims_table()
        ```

        ```{{bibliography}}
        ```
        """
    )


def _book(folder: Path, page: str) -> Path:
    folder.mkdir(parents=True)
    shutil.copy(ROOT / "_config.yml", folder / "_config.yml")
    shutil.copy(ROOT / "bibliography.bib", folder / "bibliography.bib")
    shutil.copy(ROOT / "conftest.py", folder / "conftest.py")
    (folder / "_toc.yml").write_text("format: jb-book\nroot: page\n")
    (folder / "page.md").write_text(page)
    return folder


def _build(folder: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [str(BIN / "jupyter-book"), "build", "-W", "-n", "--keep-going", str(folder)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )


def _pytest(folder: Path) -> subprocess.Popen:
    return subprocess.Popen(
        # Under pytest-xdist, as make test runs it: the claim must still be named in the summary.
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "1", "--rootdir", str(folder),
         str(folder / "page.md")],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=folder,
    )


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    """Build and test the three minimal books, concurrently; returns (code, output) pairs."""
    base = tmp_path_factory.mktemp("books")
    books = {
        "true": _book(base / "true", _page("1.0")),
        "false": _book(base / "false", _page("2.0")),
        "cite": _book(base / "cite", _page("1.0", cite="NoSuchKey1999")),
    }
    runs = {("build", k): _build(v) for k, v in books.items()}
    runs.update({("pytest", k): _pytest(v) for k, v in books.items() if k != "cite"})
    results = {}
    for key, process in runs.items():
        output, _ = process.communicate(timeout=600)
        results[key] = (process.returncode, output)
    return results


def test_a_true_claim_builds_with_zero_warnings(outcomes):
    code, output = outcomes[("build", "true")]
    assert code == 0, output[-3000:]
    assert "WARNING:" not in output  # Sphinx's warnings (the kernel's own log lines say "WARNING |")


def test_a_false_claim_fails_the_strict_build_and_names_the_claim(outcomes):
    code, output = outcomes[("build", "false")]
    assert code != 0
    assert "ClaimError" in output and "'tiny_order'" in output


def test_a_true_claim_passes_under_pytest(outcomes):
    code, output = outcomes[("pytest", "true")]
    assert code == 0, output[-3000:]
    assert "2 passed" in output  # both code cells ran as tests


def test_a_false_claim_fails_under_pytest_and_names_the_claim(outcomes):
    code, output = outcomes[("pytest", "false")]
    assert code == 1, output[-3000:]
    assert "FAILED CLAIM 'tiny_order'" in output
    assert "failed claims" in output  # the summary section lists it again


def test_an_unknown_citation_fails_the_strict_build(outcomes):
    code, output = outcomes[("build", "cite")]
    assert code != 0
    assert "NoSuchKey1999" in output


def test_no_converted_notebook_is_written_beside_a_page(outcomes, tmp_path_factory):
    for folder in ("true", "false"):
        page_dir = tmp_path_factory.getbasetemp() / "books0" / folder
        assert not list(page_dir.glob("*.ipynb"))

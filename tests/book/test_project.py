"""The project's promises about its own set-up: two commands, CI, the book's configuration."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def test_readme_quick_start_has_exactly_the_two_commands():
    readme = (ROOT / "README.md").read_text()
    quick = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```sh\n(.*?)```", quick, re.S)
    commands = [line.split("#")[0].strip() for block in blocks for line in block.splitlines() if line.strip()]
    assert commands == ["make book", "make test"]
    assert "make page PAGE=" in readme


def test_ci_runs_make_test_and_nothing_less():
    lines = [l.strip() for l in (ROOT / ".ci/run").read_text().splitlines() if l.strip() and not l.startswith("#")]
    assert "make test" in lines


def test_config_makes_a_failing_cell_fail_the_build():
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    # stale pages run in parallel into the cache first; Sphinx then reads every page afresh
    assert config["execute"]["execute_notebooks"] == "cache"
    makefile = (ROOT / "Makefile").read_text()
    book_recipe = makefile.split("\nbook-now:", 1)[1].split("\n\n", 1)[0]
    assert book_recipe.index("specbook.execute") < book_recipe.index("$(JB)")
    emptied = next(line for line in book_recipe.split("\n") if "rm -rf" in line)
    assert "$(BUILD)/.doctrees" in emptied  # a fresh environment: no warning hidden
    assert ".jupyter_cache" not in emptied  # the cache is kept: pages re-run by their keys
    assert config["execute"]["allow_errors"] is False
    assert config["execute"]["timeout"] >= 300
    assert config["sphinx"]["config"]["nb_execution_raise_on_error"] is True
    assert config["bibtex_bibfiles"] == ["bibliography.bib"]
    assert config["only_build_toc_files"] is True
    for pattern in (".*", "src", "tests", "bench", "README.md", "_build"):
        assert pattern in config["exclude_patterns"]
    assert {"sphinx.ext.autodoc", "sphinx.ext.napoleon", "sphinx-mathjax-offline"} <= set(config["sphinx"]["extra_extensions"])
    pairs = config["sphinx"]["config"]["nitpick_ignore_regex"]
    assert ["py:class", "jax\\..*"] in pairs and all(len(p) == 2 for p in pairs)


def test_book_page_and_test_each_run_under_the_build_lock():
    makefile = (ROOT / "Makefile").read_text()
    assert "LOCKED  = $(BIN)/python -m specbook.buildlock" in makefile
    for target, runs in (("book", "book-now"), ("test", "test-now"), ("page", "specbook.execute")):
        recipe = makefile.split(f"\n{target}:", 1)[1].split("\n\n", 1)[0]
        assert re.search(rf"\$\(LOCKED\) .*{re.escape(runs)}", recipe), (target, recipe)


def _toc_files():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]]
    for part in toc.get("parts", []):
        files += [chapter["file"] for chapter in part["chapters"]]
    return files


def test_every_toc_entry_exists_and_no_notebook_lies_beside_a_page():
    for name in _toc_files():
        assert (ROOT / f"{name}.md").exists(), name
    assert not list((ROOT / "book").rglob("*.ipynb"))


def test_pytest_collects_the_book_pages_cells():
    listing = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "book/intro.md", "book/authoring.md"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout
    assert "book/intro.md::Cell 0" in listing
    assert "book/authoring.md::Cell 3" in listing


def test_the_bibliography_holds_the_seeds_references():
    bib = (ROOT / "bibliography.bib").read_text()
    for key in ("Hairer2006", "LeVeque2007", "Roache2002", "StewartTrinkle1996"):
        assert re.search(rf"@\w+\{{{key},", bib), key


def _fake_bin(folder: Path) -> Path:
    """A BIN whose python and lint-imports only log their arguments, one line each, to calls.log."""
    bin_ = folder / "bin"
    bin_.mkdir()
    for name in ("python", "lint-imports"):
        (bin_ / name).write_text(f'#!/bin/sh\necho "{name} $*" >> "{folder}/calls.log"\n')
        (bin_ / name).chmod(0o755)
    return bin_


def _test_now(folder: Path, install: str, chromium: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["make", "-f", str(ROOT / "Makefile"), "--no-print-directory", "test-now", f"BIN={_fake_bin(folder)}",
         "STAMP=", f"CHROMIUM={chromium}", f"CHROMIUM_INSTALL={install}", "CHROMIUM_WAIT=60"],
        cwd=folder, capture_output=True, text=True, timeout=120)


def test_a_missing_chromium_installs_beside_the_stages_and_the_browser_stage_waits_for_it(tmp_path):
    chromium = tmp_path / "chromium"
    # the install ends only once the fault catalogue has started: the stages ran beside it ($$: make's)
    install = (f'for i in $$(seq 100); do grep -q specbook.faults "{tmp_path}/calls.log" 2>/dev/null && break; '
               f'sleep 0.1; done; '
               f'echo installed >> "{tmp_path}/calls.log"; touch "{chromium}"; chmod +x "{chromium}"')
    done = _test_now(tmp_path, install, chromium)
    assert done.returncode == 0, done.stdout + done.stderr
    calls = (tmp_path / "calls.log").read_text().splitlines()
    assert calls.index("installed") > calls.index("python -m specbook.faults --jobs 2")
    assert calls[-1] == "python -m pytest -q -p no:cacheprovider tests/browser --browser"
    assert "installing it in the background" in done.stdout


def test_a_failed_chromium_install_fails_make_test_before_the_browser_stage_with_its_log(tmp_path):
    done = _test_now(tmp_path, "echo 'E: Unable to locate package chromium'; false", tmp_path / "chromium")
    assert done.returncode != 0
    assert "installing Chromium failed" in done.stdout and "Unable to locate package chromium" in done.stdout
    assert "tests/browser" not in (tmp_path / "calls.log").read_text()

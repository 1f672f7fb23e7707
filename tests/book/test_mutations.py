"""A change to the code that breaks a page's claim fails that page, naming the claim.

Each case copies ``src/`` to a temporary folder, makes one small, plausible
mistake in it, and runs the page that claims the behaviour under pytest with the
mutated copy first on ``PYTHONPATH``. The page must fail, and the failure must
name the claim that broke. The cases run concurrently.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Mutation:
    name: str
    file: str  # relative to src/
    old: str
    new: str
    page: str
    claim: str


MUTATIONS = [
    Mutation(
        "ball declared order 2",
        "maddening/nodes/ball.py",
        "temporal=1.0",
        "temporal=2.0",
        "book/maddening/ball.md",
        "ball_order",
    ),
    Mutation(
        "central differences kick twice with the old acceleration",
        "maddening/core/simulation/_second_order_schemes.py",
        "new.update({r: _step(mid[r], second[r], half) for r in rates})",
        "new.update({r: _step(mid[r], first[r], half) for r in rates})",
        "book/notes/contact-mode-stability.md",
        "cms_formula_cd_magnitude_inside",
    ),
    Mutation(
        "contact 0.4.0 holds the centre, as 0.1.0 did",
        "mime/interactions/contact.py",
        "return build_confinement(\n            margin=margin, spacing=spacing_m, rule=values[\"rule\"], body=body, surface=surface\n        )",
        "from mime.interactions._projection import build_centre_confinement\n\n        "
        "return build_centre_confinement(margin=margin, rule=values[\"rule\"], body=body, surface=surface)",
        "book/mime/contact.md",
        "narrow_tube_040_keeps_margin",
    ),
]


def _launch(mutation: Mutation, folder: Path) -> subprocess.Popen:
    src = folder / "src"
    shutil.copytree(ROOT / "src", src, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    target = src / mutation.file
    text = target.read_text()
    assert text.count(mutation.old) == 1, f"{mutation.name}: the mutated text must occur once in {mutation.file}"
    target.write_text(text.replace(mutation.old, mutation.new))
    env = dict(os.environ, PYTHONPATH=f"{src}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    return subprocess.Popen(
        [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", mutation.page],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    runs = {m.name: _launch(m, tmp_path_factory.mktemp("mutant")) for m in MUTATIONS}
    return {name: (p.wait(timeout=900), p.stdout.read()) for name, p in runs.items()}


@pytest.mark.parametrize("mutation", MUTATIONS, ids=lambda m: m.name)
def test_the_mutation_fails_its_page_and_names_the_claim(outcomes, mutation):
    code, output = outcomes[mutation.name]
    assert code == 1, output[-3000:]
    assert f"FAILED CLAIM '{mutation.claim}'" in output, output[-3000:]

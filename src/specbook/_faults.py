"""A fault of the catalogue: a patch of the real code and the claims that must catch it (see specbook.faults)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Fault", "Patch"]


@dataclass(frozen=True)
class Patch:
    """Replace ``old`` (which must occur exactly once) by ``new`` in ``file``, a path below ``src/``."""

    file: str
    old: str
    new: str


@dataclass(frozen=True)
class Fault:
    """A plausible bug, as a patch of the real code, and what must catch it.

    Attributes:
        name: A short identifier (``ball_forward_euler``).
        area: What it belongs to: ``ball``, ``reflection``, ``contact``, ``stability note``,
            ``registry`` or ``specbook``.
        what: What the patch changes, in a sentence a reader can follow.
        patches: The text patches of files under ``src/`` (one, usually).
        targets: The pages (``book/...md``) and tests (``tests/...py[::name]``) that exercise
            the patched code; each runs in its own ``pytest -x`` process.
        caught_by: The claims (page targets) and test ids (test targets) that must fail: the
            first failing claim of each page, every failing test of each test target.
    """

    name: str
    area: str
    what: str
    patches: tuple[Patch, ...]
    targets: tuple[str, ...]
    caught_by: tuple[str, ...]

    def __post_init__(self) -> None:
        if not self.name.isidentifier():
            raise ValueError(f"name must be an identifier, got {self.name!r}")
        if not self.patches or not self.targets or not self.caught_by:
            raise ValueError(f"fault {self.name!r} needs at least one patch, one target and one catching claim")

"""Compare two claim ledgers: which measured values moved, which claims came and went.

Usage::

    python -m specbook.diff OLD.json NEW.json

A claim is the same claim in both when its page and key match. It is listed as *moved* when
its measured value changed by more than a tenth of its tolerance (``atol + rtol * |expected|``;
for an exact claim, any change at all), and it is always listed when it stopped or started
holding. ``make book`` prints this against the previous build's ledger. The comparison
informs; it never fails a build. The exit status is 0 whatever the differences (a moved
value is information; a failed claim fails the build itself), and 0 with a warning when the
earlier ledger cannot be read (a build interrupted long ago, a file edited by hand): there
is then nothing to compare with. It is 2 only when the later ledger, the one just built,
is not a ledger.
"""

from __future__ import annotations

import argparse
import sys

from specbook._diff import MOVE_FRACTION, LedgerDiff, diff_ledgers
from specbook.ledger import read_ledger

__all__ = ["MOVE_FRACTION", "LedgerDiff", "diff_ledgers", "main"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m specbook.diff", description=__doc__.split("\n\n")[0])
    parser.add_argument("old", help="the earlier ledger (claims.json)")
    parser.add_argument("new", help="the later ledger (claims.json)")
    args = parser.parse_args(argv)
    try:
        new = read_ledger(args.new)
    except (OSError, ValueError) as error:
        print(f"specbook.diff: {error}", file=sys.stderr)
        return 2
    try:
        old = read_ledger(args.old)
    except (OSError, ValueError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else error
        print(f"specbook.diff: warning: the earlier ledger cannot be read, so nothing is compared "
              f"({reason}); the next build compares with this one", file=sys.stderr)
        return 0
    changes = diff_ledgers(old, new)
    total = len(new.get("claims", []))
    if not changes:
        print(f"specbook.diff: no claim moved, none added or removed ({total} claims)")
        return 0
    print(f"specbook.diff: {len(changes.moved)} moved, {len(changes.added)} added, "
          f"{len(changes.removed)} removed ({total} claims)")
    for line in changes.lines():
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())

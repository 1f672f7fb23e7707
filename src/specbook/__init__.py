"""specbook: the book's own machinery, apart from the physics.

A page of the book *claims* things about the code it documents. A claim is a
declared value (kept in the code), a measurement (made by the page while the
book builds) and a tolerance. :func:`claim` glues both numbers for the prose,
records the claim for the page's :func:`claims_table`, and raises
:class:`ClaimError` when they disagree, so a false claim fails the build.

specbook imports no physics package: the pages pass it plain values.
"""

from specbook._claims import (
    RECORD_ENV, Claim, ClaimError, Source, all_claims, check, claim, closed_form, declared, example, failed_claim,
    forget, independent, raising, record_mode, recorded_failures, reset_claims, seed_figure,
)
from specbook._glue import as_float, glue
from specbook._numbers import scientific
from specbook._tables import Table, claims_table, mapping_table, resolve, table
from specbook._figures import (
    COLUMN_PX, LEGEND_CLEARANCE_PT, PROSE_MIN_PX, FigureDefect, FigureTooSmall, figure, figure_defects, legend_above,
    smallest_font_pt,
)
from specbook._defects import KnownDefects, anomaly_label, known_defects
from specbook._diff import diff_ledgers
from specbook.keys import environment_record
from specbook.ledger import read_ledger

__all__ = [
    "COLUMN_PX",
    "Claim",
    "ClaimError",
    "FigureDefect",
    "FigureTooSmall",
    "KnownDefects",
    "LEGEND_CLEARANCE_PT",
    "PROSE_MIN_PX",
    "RECORD_ENV",
    "Source",
    "Table",
    "all_claims",
    "anomaly_label",
    "as_float",
    "check",
    "claim",
    "claims_table",
    "closed_form",
    "declared",
    "diff_ledgers",
    "environment_record",
    "example",
    "failed_claim",
    "figure",
    "figure_defects",
    "forget",
    "glue",
    "independent",
    "known_defects",
    "legend_above",
    "mapping_table",
    "raising",
    "read_ledger",
    "record_mode",
    "recorded_failures",
    "reset_claims",
    "resolve",
    "scientific",
    "seed_figure",
    "smallest_font_pt",
    "table",
]

"""How a claim's measured and expected values are written for a reader.

A claims table prints the two values side by side with six significant digits. That hides a
difference that uses most of a tight tolerance: ``1.0000000008`` against ``1`` with a tolerance
of ``1e-09`` read "measured 1; expected 1". Writing more digits would show it, but a long run
of zeros or nines reads as a float's binary noise. So where six digits cannot resolve a tenth
of what the tolerance allows, and the difference is more than that tenth, the measured value is
written as the expected one plus the difference, ``1 + 8.1e-10``, where the expected value is
written exactly; where it is not, both get the fewest digits (six or more) that tell them apart.

Prose writes a small or large number in powers of ten (:func:`scientific`: ``1.5 × 10⁻¹⁸``), not
in a float's e-notation.

This module imports nothing of the book: both the per-page claims table
(:mod:`specbook._tables`) and the Claims page (:mod:`specbook._claims_page`) use it, and so do the
pages' sentences (``specbook.scientific``).
"""

from __future__ import annotations

import math

__all__ = ["allowed", "claim_values", "scientific"]

DIGITS = 6
"""The significant digits a claim's values are written with."""


def allowed(expected: float, atol: float | None, rtol: float | None) -> float:
    """What a claim's tolerance allows, ``atol + rtol * |expected|`` (a missing tolerance counts as zero).

    >>> allowed(2.0, 0.5, 0.25), allowed(2.0, None, None)
    (1.0, 0.0)
    """
    return (atol or 0.0) + (rtol or 0.0) * abs(expected)


_SUPERSCRIPTS = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
_UNBROKEN = "\u00a0×\u00a0"


def scientific(value: float, digits: int = 2) -> str:
    """``value`` in powers of ten as prose writes it, to ``digits`` significant digits.

    The mantissa and the power are joined by no-break spaces, so the number never breaks over two
    lines; a mantissa of exactly one is left out (a power of ten), and a minus sign is the
    typographic one:

    >>> scientific(1.4999e-18), scientific(-3.0e-5, digits=1), scientific(1e-12, digits=1)
    ('1.5\xa0×\xa010⁻¹⁸', '−3\xa0×\xa010⁻⁵', '10⁻¹²')
    >>> scientific(2.5e6, digits=3), scientific(9.96e-7, digits=2)
    ('2.50\xa0×\xa010⁶', '1.0\xa0×\xa010⁻⁶')

    Zero of either sign is ``0``; infinities and NaN (a value a fault may bend) are written as Python writes them:

    >>> scientific(0.0), scientific(float("inf")), scientific(float("nan"))
    ('0', 'inf', 'nan')

    Raises:
        ValueError: where ``digits`` is not a whole number of at least 1, naming it.
    """
    if isinstance(digits, bool) or not isinstance(digits, int) or digits < 1:
        raise ValueError(f"digits = {digits!r} is not allowed; expected a whole number of at least 1")
    value = float(value)
    if value == 0.0:
        return "0"  # either sign
    if not math.isfinite(value):
        return f"{value:g}"
    mantissa, exponent = f"{value:.{digits - 1}e}".split("e")
    power = "10" + str(int(exponent)).translate(_SUPERSCRIPTS)
    sign, digits_shown = ("−", mantissa[1:]) if mantissa.startswith("-") else ("", mantissa)
    if digits_shown == "1":
        return sign + power
    return sign + digits_shown + _UNBROKEN + power


def _written(value: float) -> str:
    return f"{value:.{DIGITS}g}"


def claim_values(measured: float, expected: float, atol: float | None = None, rtol: float | None = None
                 ) -> tuple[str, str]:
    """A claim's measured and expected values as a reader sees them: ``(measured, expected)``.

    Six significant digits, unless they would hide a difference of more than a tenth of what the
    tolerance allows (any difference, for an exact claim). Then, where the expected value is written
    exactly, the measured value is the expected one plus the difference, to two digits:

    >>> claim_values(1.0000000008125605, 1.0, atol=1e-9)  # 81 % of the tolerance
    ('1 + 8.1e-10', '1')
    >>> claim_values(0.1 + 0.2, 0.3)  # an exact claim that fails by one rounding
    ('0.3 + 5.6e-17', '0.3')
    >>> claim_values(0.25, 0.5, atol=0.5), claim_values(316.2310629737644, 316.2310601487156, rtol=1.6e-07)
    (('0.25', '0.5'), ('316.231', '316.231'))

    The last pair uses a twentieth of its tolerance, so six digits are enough to read it. The line is
    a tenth: a difference of 15 % of the tolerance that six digits hide is written out, one of 8 % is not:

    >>> claim_values(1.0 + 1.5e-10, 1.0, atol=1e-9), claim_values(1.0 + 8e-11, 1.0, atol=1e-9)
    (('1 + 1.5e-10', '1'), ('1', '1'))

    Where the expected value itself is not written exactly, both are written with the fewest
    digits, six or more, that tell them apart (the same count, trailing zeros kept), each within a
    twentieth of the tolerance of its value (of their difference, for an exact claim):

    >>> claim_values(0.6 + 4e-11, 0.6 - 1e-15, atol=5e-11)
    ('0.60000000004', '0.60000000000')
    >>> claim_values(1247.5566519727263, 1247.5603072237213, rtol=1.5625e-05)
    ('1247.557', '1247.560')
    >>> claim_values(0.5, 1 / 3)  # an exact claim: as many digits as tell the two apart
    ('0.500000', '0.333333')
    >>> claim_values(float("nan"), 1.0, atol=0.1)
    ('nan', '1')
    """
    m_text, e_text = _written(measured), _written(expected)
    if not (math.isfinite(measured) and math.isfinite(expected)) or measured == expected:
        return m_text, e_text
    tenth = allowed(expected, atol, rtol) / 10
    difference = measured - expected
    resolved = (abs(float(m_text) - measured) <= tenth / 2 and abs(float(e_text) - expected) <= tenth / 2
                and m_text != e_text)
    if resolved or (tenth > 0 and abs(difference) <= tenth):
        return m_text, e_text
    if float(e_text) == expected:
        return f"{e_text} {'+' if difference > 0 else '-'} {abs(difference):.2g}", e_text
    # each text within a twentieth of the tolerance of its value; of the difference, for an exact claim
    close = tenth / 2 if tenth > 0 else abs(difference) / 20
    for digits in range(DIGITS, 18):  # at 17 digits each is its own value, so the loop always returns
        # '#': trailing zeros kept, so the two show as many digits; never a bare trailing point ('1234568.')
        m_text, e_text = (f"{v:#.{digits}g}".rstrip(".") for v in (measured, expected))
        if (m_text != e_text and abs(float(m_text) - measured) <= close
                and abs(float(e_text) - expected) <= close):
            break
    return m_text, e_text

"""The numbers the contact-mode stability note states, each kept once, with its source.

The note (the seed ``contact-mode-stability.txt``) states rounded values for its
examples. They are declared here, once, so that the book's page can compare each
live measurement with the note: a ``NoteFigure`` holds the value as printed and a
tolerance of half a unit in its last printed digit. The configurations of the
examples (the bar, the off-centre contact) are declared beside them.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["BAR", "FIGURES", "NoteFigure", "OFF_CENTRE", "SINGLE_MODE", "figure"]

SOURCE = "contact-mode stability note (seed file contact-mode-stability.txt)"


@dataclass(frozen=True)
class NoteFigure:
    """One number the note states: ``value`` as printed, ``atol`` half its last digit, ``unit``."""

    key: str
    quantity: str
    value: float
    atol: float
    unit: str = ""
    source: str = SOURCE


SINGLE_MODE = {"omega": 1000.0, "h": 1e-3}
"""The single-mode example, omega = 1000 rad/s and h = 1 ms (so z = 1)."""

BAR = {"mass": 2.0, "inertia": 0.005, "offset": 0.10, "stiffness": 1e5}
"""The coupled-mode bar, with m (kg), I (kg m^2), supports at -a and +a (m) and k per support (N/m)."""

OFF_CENTRE = {"mass": 2.0, "inertia": 0.020, "offset": 0.10, "stiffness": 1e5}
"""The effective-mass example, with m (kg), I (kg m^2), the contact offset r (m) and k (N/m)."""

FIGURES: tuple[NoteFigure, ...] = (
    NoteFigure("cd_frequency", "central differences, numerical frequency at omega = 1000 rad/s, h = 1 ms", 1047.2, 0.05, "rad/s"),
    NoteFigure("cd_phase_error", "central differences, relative frequency error there", 4.72, 0.005, "%"),
    NoteFigure("be_amplitude_loss", "backward Euler, amplitude lost per step at z = 1", 29.3, 0.05, "%"),
    NoteFigure("tr_frequency", "trapezoidal rule, numerical frequency at omega = 1000 rad/s, h = 1 ms", 927.3, 0.05, "rad/s"),
    NoteFigure("tr_phase_error", "trapezoidal rule, relative frequency error there", -7.27, 0.005, "%"),
    NoteFigure("cd_limit", "central differences, stability limit of h omega_max", 2.0, 1e-6, ""),
    NoteFigure("bar_A_diagonal", "the bar's Delassus matrix, diagonal entries", 2.5, 1e-9, "1/kg"),
    NoteFigure("bar_A_offdiagonal", "the bar's Delassus matrix, off-diagonal entries", -1.5, 1e-9, "1/kg"),
    NoteFigure("bar_A_eig_low", "the bar's Delassus matrix, smaller eigenvalue", 1.0, 1e-9, "1/kg"),
    NoteFigure("bar_A_eig_high", "the bar's Delassus matrix, larger eigenvalue", 4.0, 1e-9, "1/kg"),
    NoteFigure("bar_omega_translation", "the bar's translation (equal-gap) mode", 316.2, 0.05, "rad/s"),
    NoteFigure("bar_omega_rocking", "the bar's rocking (opposite-gap) mode", 632.5, 0.05, "rad/s"),
    NoteFigure("bar_omega_independent", "each support taken alone", 500.0, 0.5, "rad/s"),
    NoteFigure("bar_critical_step", "central differences, critical step on the bar", 3.162, 0.0005, "ms"),
    NoteFigure("meff_off_centre", "effective mass of a contact at r = 0.10 m", 1.0, 1e-9, "kg"),
    NoteFigure("meff_centre", "effective mass of a contact at the centre", 2.0, 1e-9, "kg"),
    NoteFigure("omega_off_centre", "penalty frequency off the centre", 316.2, 0.05, "rad/s"),
    NoteFigure("omega_centre", "penalty frequency at the centre", 223.6, 0.05, "rad/s"),
    NoteFigure("reduced_two_particles", "reduced mass of two 2 kg particles", 1.0, 1e-9, "kg"),
    NoteFigure("reduced_wall", "effective mass of a 2 kg particle against a wall", 2.0, 1e-9, "kg"),
)
"""Every figure the note states, in the order the note states them."""

_BY_KEY = {f.key: f for f in FIGURES}


def figure(key: str) -> NoteFigure:
    """The declared figure ``key``; an unknown key raises ``maddening.ValidationError``.

    >>> figure("cd_frequency").value
    1047.2
    """
    from maddening.errors import invalid

    if key not in _BY_KEY:
        raise invalid("key", key, f"one of {sorted(_BY_KEY)}", where="note_figures.figure")
    return _BY_KEY[key]

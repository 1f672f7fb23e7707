"""maddening.analysis: what the integrators do to fast linear modes, measured from the integrators.

- ``stability``: step matrices, amplification factors, numerical frequency and the
  stability limit of each registered integrator, by stepping an oscillator node.
- ``contact_modes``: Delassus matrix, effective and reduced mass, coupled penalty
  modes and the critical step of a frozen contact configuration.
"""

from maddening.analysis._oscillator import OscillatorNode, oscillator_series
from maddening.analysis.contact_modes import (
    CoupledModes,
    coupled_modes,
    critical_step,
    delassus,
    effective_mass,
    reduced_mass,
)
from maddening.analysis.stability import (
    Amplification,
    amplification,
    numerical_frequency,
    spectral_radius,
    stability_limit,
    step_matrix,
)

__all__ = [
    "Amplification",
    "CoupledModes",
    "OscillatorNode",
    "amplification",
    "coupled_modes",
    "critical_step",
    "delassus",
    "effective_mass",
    "numerical_frequency",
    "oscillator_series",
    "reduced_mass",
    "spectral_radius",
    "stability_limit",
    "step_matrix",
]

"""Linear stability of the registered integrators, measured by stepping them.

On the undamped oscillator ``x'' + omega^2 x = 0`` every one-step method of
``maddening.core.simulation.integrators`` is a linear map of ``(x, v)``:
``(x, v)_{n+1} = S(z) (x, v)_n``. Its eigenvalues ``lambda`` (the amplification
factors) depend on the step ``h`` and the frequency only through ``z = h omega``.
Nothing here types a formula for ``S``: :func:`step_matrix` applies the real
integrator (``integrate_node``) to the two basis states of an oscillator node and
reads the columns off the results.

From ``S``:

- :func:`amplification`: the eigenvalues and their magnitudes ``|lambda|``;
- :func:`numerical_frequency`: the phase the step turns, ``theta = max |arg lambda|``,
  over ``h``: the angular frequency (rad/s) a simulated oscillation shows;
- :func:`stability_limit`: the largest ``z`` up to which every ``|lambda| <= 1``.

>>> round(stability_limit("central_difference"), 6)
2.0
>>> stability_limit("euler"), stability_limit("trapezoidal")
(0.0, inf)
"""

from __future__ import annotations

import functools
import math
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from maddening.analysis._oscillator import OscillatorNode
from maddening.errors import concrete_number, invalid

__all__ = [
    "Amplification",
    "STABILITY_TOLERANCE",
    "amplification",
    "numerical_frequency",
    "spectral_radius",
    "stability_limit",
    "step_matrix",
]

STABILITY_TOLERANCE = 1e-10
"""How far above 1 a spectral radius may round and still count as stable."""

_Z_RANGE = (1e-3, 1e3)
_GRID = 257
_BATCH = 512
"""Step matrices are computed in whole batches of this many (the rest padded), so that one
compiled program per method serves every call up to this size: a single ``z``, a plotted grid
and the 257-point search of :func:`stability_limit` alike."""


class Amplification(NamedTuple):
    """The amplification factors of one step: ``eigenvalues`` (complex) and ``magnitudes``.

    Each has shape ``z.shape + (2,)``, largest magnitude first; of a complex-conjugate pair, the factor with
    the positive imaginary part first (its argument is the phase per step, ``+h omega_h``).
    """

    eigenvalues: np.ndarray
    magnitudes: np.ndarray


def _check_method(method: Any) -> str:
    from maddening.core.simulation.integrators import METHODS

    if not isinstance(method, str) or method not in METHODS:
        raise invalid("method", method, f"one of {sorted(METHODS)}", where="maddening.analysis.stability")
    return method


@functools.lru_cache(maxsize=None)
def _batched_step_matrices(method: str) -> Any:
    """A jitted map ``(omega[n], h[n]) -> S[n, 2, 2]`` built on ``integrate_node``."""
    from maddening.core.simulation.integrators import integrate_node

    node = OscillatorNode(omega=1.0, method=method)

    def one(omega: Any, h: Any, zeta: Any) -> Any:
        def image(column: Any) -> Any:
            state = {"position": column[0], "velocity": column[1]}
            out = integrate_node(node, state, None, h, method=method, params={"omega": omega, "zeta": zeta})
            return jnp.stack([out["position"], out["velocity"]])

        return jax.vmap(image, in_axes=1, out_axes=1)(jnp.eye(2, dtype=h.dtype))

    return jax.jit(jax.vmap(one, in_axes=(0, 0, None)))


def _positive(value: Any, name: str, where: str) -> np.ndarray:
    array = np.asarray(value, dtype=np.float64)
    if array.dtype.kind not in "f" or not np.all(np.isfinite(array)) or np.any(array <= 0):
        raise invalid(name, value, "finite numbers > 0", where=where)
    return array


def _zeta(zeta: Any, where: str) -> float:
    return concrete_number(zeta, "zeta", "a damping ratio >= 0", where=where, finite=True, at_least=0.0)


def _matrices(method: str, omega: np.ndarray, h: np.ndarray, zeta: float = 0.0) -> np.ndarray:
    omega, h = np.broadcast_arrays(omega, h)
    shape = omega.shape
    n = omega.size
    pad = (-n) % _BATCH if n else _BATCH  # whole batches, padded with omega = h = 1: one compiled program
    w = np.concatenate([omega.ravel(), np.ones(pad)])
    dt = np.concatenate([h.ravel(), np.ones(pad)])
    with jax.enable_x64(True):
        out = _batched_step_matrices(method)(jnp.asarray(w), jnp.asarray(dt), jnp.asarray(zeta, jnp.float64))
        out = np.asarray(out, dtype=np.float64)[:n]
    return out.reshape(shape + (2, 2))


def step_matrix(method: str, omega: float, h: float, *, zeta: float = 0.0) -> np.ndarray:
    """The one-step map ``S`` of ``method`` on ``x'' + 2 zeta omega x' + omega^2 x = 0``, on ``(x, v)``.

    Column ``j`` is the state one step of ``h`` seconds after the basis state
    ``e_j`` (``e_0 = (1 m, 0)``, ``e_1 = (0, 1 m/s)``), computed by ``integrate_node``.

    Args:
        method: A registered integrator.
        omega: Angular frequency, rad/s (> 0).
        h: Step, s (> 0).
        zeta: Damping ratio (>= 0; the default 0 is the undamped oscillator).

    Returns:
        A float64 array of shape ``(2, 2)``.

    >>> step_matrix("euler", 2.0, 0.1).round(12).tolist()
    [[1.0, 0.1], [-0.4, 1.0]]
    """
    method = _check_method(method)
    where = "step_matrix"
    concrete_number(omega, "omega", "a frequency > 0 (rad/s)", where=where)
    concrete_number(h, "h", "a time step > 0 (s)", where=where)
    return _matrices(method, _positive(omega, "omega", where), _positive(h, "h", where), _zeta(zeta, where))


def _sorted_eigenvalues(matrices: np.ndarray) -> np.ndarray:
    eig = np.linalg.eigvals(matrices)
    key = np.lexsort((-eig.imag, -np.abs(eig)), axis=-1)
    return np.take_along_axis(eig, key, axis=-1)


def amplification(method: str, z: Any, *, zeta: float = 0.0) -> Amplification:
    """The amplification factors of ``method`` at ``z = h omega`` (a number or an array).

    Computed from :func:`step_matrix` at ``omega = 1`` rad/s and ``h = z`` s (the
    factors depend on ``z`` only).

    >>> a = amplification("backward_euler", 1.0)
    >>> round(float(a.magnitudes[0]), 6)
    0.707107
    """
    method = _check_method(method)
    z = _positive(z, "z", "amplification")
    eig = _sorted_eigenvalues(_matrices(method, np.ones_like(z), z, _zeta(zeta, "amplification")))
    return Amplification(eig, np.abs(eig))


def spectral_radius(method: str, z: Any, *, zeta: float = 0.0) -> np.ndarray:
    """The largest amplification magnitude at ``z`` (a number or an array)."""
    return amplification(method, z, zeta=zeta).magnitudes[..., 0]


def numerical_frequency(method: str, omega: float, h: float) -> float:
    """The angular frequency (rad/s) that ``method`` gives an oscillation of ``omega`` at step ``h``.

    The phase per step is ``theta = max |arg lambda|`` over the amplification
    factors; the numerical frequency is ``theta / h``.

    >>> round(numerical_frequency("central_difference", 1000.0, 1e-3), 1)
    1047.2
    """
    method = _check_method(method)
    where = "numerical_frequency"
    w = float(_positive(omega, "omega", where))
    dt = float(_positive(h, "h", where))
    eig = _sorted_eigenvalues(_matrices(method, np.asarray(w), np.asarray(dt)))
    return float(np.max(np.abs(np.angle(eig))) / dt)


def stability_limit(method: str, *, zeta: float = 0.0, tolerance: float = STABILITY_TOLERANCE) -> float:
    """The largest ``z = h omega`` up to which every amplification magnitude is at most 1.

    Found numerically: the spectral radius is evaluated on a logarithmic grid of
    ``z`` from 1e-3 to 1e3; if the first point is already unstable the method has
    no stable step on the undamped oscillator (returns ``0.0``); if no point is
    unstable it has no limit in the range (returns ``inf``); otherwise the first
    stable-to-unstable interval is refined by repeated linear grids to the
    rounding of the float64 step map. A radius counts as stable while it is at
    most ``1 + tolerance``. With ``zeta > 0`` the probe is the damped oscillator.

    >>> round(stability_limit("symplectic_euler"), 6)
    2.0
    """
    method = _check_method(method)
    tolerance = concrete_number(tolerance, "tolerance", "a finite number >= 0 (how far past 1 a radius counts "
                                "as stable)", where="stability_limit", finite=True, at_least=0.0)
    low, high = _Z_RANGE
    grid = np.geomspace(low, high, _GRID)
    unstable = spectral_radius(method, grid, zeta=zeta) > 1.0 + tolerance
    if unstable[0]:
        return 0.0
    if not unstable.any():
        return math.inf
    i = int(np.argmax(unstable))
    a, b = grid[i - 1], grid[i]
    for _ in range(8):
        grid = np.linspace(a, b, _GRID)
        unstable = spectral_radius(method, grid, zeta=zeta) > 1.0 + tolerance
        i = int(np.argmax(unstable))
        a, b = grid[i - 1], grid[i]
        if b - a < 1e-14 * b:
            break
    return float(a)

"""Normal-contact penalty modes of a frozen configuration: Delassus matrix, effective mass, coupled modes.

Freeze a configuration with generalized coordinates ``q``, a symmetric
positive-definite mass matrix ``M`` and normal gaps whose small changes are
``xi = J q`` (one row of ``J`` per gap, in metres per unit of ``q``). A diagonal
of penalty stiffnesses ``K`` (N/m) gives the generalized restoring force
``-J^T K J q``, and the gaps then obey::

    xi'' + A K xi = 0,        A = J M^-1 J^T   (the Delassus matrix, 1/kg)

``A K`` is not symmetric when the stiffnesses differ, but it is similar to the
symmetric positive-semidefinite ``S = K^1/2 A K^1/2`` (``A K = K^-1/2 S K^1/2``),
so its eigenvalues are real and >= 0. Each positive eigenvalue is a squared
angular frequency; a zero eigenvalue belongs to a gap combination no motion can
produce (more gaps than the coordinates can move independently), a *redundant*
gap coordinate, not an oscillation. Which eigenvalues count as zero is decided
relative to the largest (``REDUNDANT_RTOL``), so the answer does not depend on
the units ``J``, ``M`` and ``K`` are measured in.

For one gap, the inertia that gap sees is ``m_eff = 1 / (J M^-1 J^T)`` (kg), and
a spring ``k`` on it oscillates at ``sqrt(k / m_eff)``.

>>> import numpy as np
>>> J = np.array([[1.0, -0.1], [1.0, 0.1]])
>>> M = np.diag([2.0, 0.005])
>>> delassus(J, M).round(12).tolist()
[[2.5, -1.5], [-1.5, 2.5]]
>>> coupled_modes(J, M, [1e5, 1e5]).frequencies.round(1).tolist()
[316.2, 632.5]
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from maddening.errors import concrete_number, finite_number, invalid

__all__ = [
    "CoupledModes",
    "REDUNDANT_RTOL",
    "coupled_modes",
    "critical_step",
    "delassus",
    "effective_mass",
    "reduced_mass",
]

REDUNDANT_RTOL = 1e-10
"""An eigenvalue of ``S`` at most this share of the largest counts as zero (a redundant gap).

Rounding leaves a true zero eigenvalue of ``S`` near ``1e-15`` of the largest (the
symmetric eigensolver's backward error is a few ``eps ||S||``, whatever the
conditioning of ``M``), five orders below this; a genuine mode slower than
``sqrt(REDUNDANT_RTOL) = 1e-5`` times the fastest frequency is reported as redundant.
"""

_NORMAL_FLOOR = float(np.finfo(np.float64).tiny / np.finfo(np.float64).eps)
"""About 1e-292: a matrix whose largest entry is below this has lost relative precision to gradual underflow."""


def _in_range(matrix: np.ndarray, moving: bool, argument: str, value: Any, what: str, where: str) -> None:
    """Refuse a computed matrix that overflowed, or (``moving``: its exact value is not zero) underflowed.

    Either would be reported silently as a wrong answer: an infinite entry makes the
    eigensolver return zeros (a stiff contact read as no contact, ``critical_step``
    ``inf``), and a subnormal one loses its digits.
    """
    largest = float(np.max(np.abs(matrix))) if np.all(np.isfinite(matrix)) else math.inf
    if not math.isfinite(largest) or (moving and largest < _NORMAL_FLOOR):
        raise invalid(
            argument, value,
            f"{what} within float64's range (largest entry between {_NORMAL_FLOOR:.0e} and "
            f"{np.finfo(np.float64).max:.1e}; here {largest:.3g}): measure J, M and K in other units",
            where=where,
        )


def _jacobian(J: Any, where: str) -> np.ndarray:
    array = np.asarray(J, dtype=np.float64) if _numeric(J) else None
    if array is not None and array.ndim == 1:
        array = array[None, :]
    if array is None or array.ndim != 2 or array.size == 0 or not np.all(np.isfinite(array)):
        raise invalid("J", J, "a finite gap Jacobian of shape (gaps, coordinates)", where=where)
    return array


def _numeric(value: Any) -> bool:
    try:
        return np.asarray(value).dtype.kind in "iuf"
    except Exception:  # noqa: BLE001
        return False


def _mass(M: Any, n: int, where: str) -> np.ndarray:
    array = np.asarray(M, dtype=np.float64) if _numeric(M) else None
    allowed = f"a symmetric positive-definite mass matrix of shape ({n}, {n})"
    if array is None or array.shape != (n, n) or not np.all(np.isfinite(array)):
        raise invalid("M", M, allowed, where=where)
    if not np.allclose(array, array.T, rtol=1e-12, atol=0.0):
        raise invalid("M", M, allowed, where=where)
    try:
        np.linalg.cholesky(array)
    except np.linalg.LinAlgError:
        raise invalid("M", M, allowed, where=where) from None
    return array


def _stiffness(K: Any, gaps: int, where: str) -> np.ndarray:
    array = np.asarray(K, dtype=np.float64) if _numeric(K) else None
    allowed = f"{gaps} positive stiffnesses (N/m), as a vector or a diagonal matrix"
    if array is not None and array.shape == (gaps, gaps):
        if np.any(array - np.diag(np.diag(array))):
            raise invalid("K", K, allowed, where=where)
        array = np.diag(array)
    if array is None or array.shape != (gaps,) or not np.all(np.isfinite(array)) or np.any(array <= 0):
        raise invalid("K", K, allowed, where=where)
    return array


def delassus(J: Any, M: Any) -> np.ndarray:
    """The Delassus matrix ``A = J M^-1 J^T`` (1/kg): gap acceleration per unit normal force.

    Args:
        J: Gap Jacobian, shape ``(gaps, coordinates)`` (a single row may be 1-D).
        M: Symmetric positive-definite mass matrix, shape ``(coordinates, coordinates)``.
    """
    Jm = _jacobian(J, "delassus")
    Mm = _mass(M, Jm.shape[1], "delassus")
    with np.errstate(over="ignore", invalid="ignore"):
        A = Jm @ np.linalg.solve(Mm, Jm.T)
    # a nonzero row of J has J_i M^-1 J_i^T > 0 exactly: a zero or subnormal A then is underflow
    _in_range(A, bool(np.any(Jm)), "J", J, "a gap Jacobian whose Delassus matrix J M^-1 J^T (with this M) lies",
              "delassus")
    return 0.5 * (A + A.T)


def effective_mass(J: Any, M: Any) -> float:
    """The inertia one normal gap sees, ``m_eff = 1 / (J M^-1 J^T)`` (kg).

    An impulse ``P`` (N s) along the gap changes its rate by ``P / m_eff``.
    Raises ``maddening.ValidationError`` for more than one gap, or a gap no
    motion can change (``J M^-1 J^T = 0``).

    >>> effective_mass([1.0, 0.1], [[2.0, 0.0], [0.0, 0.02]])
    1.0
    """
    Jm = _jacobian(J, "effective_mass")
    if Jm.shape[0] != 1:
        raise invalid("J", J, "the Jacobian of one gap (a single row)", where="effective_mass")
    a = float(delassus(Jm, M)[0, 0])
    if not a > 0:
        raise invalid("J", J, "a gap some motion changes (J M^-1 J^T > 0)", where="effective_mass")
    return 1.0 / a


def reduced_mass(m1: float, m2: float = math.inf) -> float:
    """The effective mass of the gap between two free particles, ``m1 m2 / (m1 + m2)`` (kg).

    ``m2 = inf`` is a fixed wall, and the answer is ``m1``.

    >>> reduced_mass(2.0, 2.0), reduced_mass(2.0)
    (1.0, 2.0)
    """
    for name, value in (("m1", m1), ("m2", m2)):
        finite_number(value, name, "a mass > 0 (kg), or inf for a fixed wall", where="reduced_mass", above=0,
                      infinite=True)
    if math.isinf(m1) and math.isinf(m2):
        raise invalid("m2", m2, "a finite mass when m1 is a wall", where="reduced_mass")
    if math.isinf(m2):
        return float(m1)
    if math.isinf(m1):
        return float(m2)
    return 1.0 / (1.0 / m1 + 1.0 / m2)


@dataclass(frozen=True)
class CoupledModes:
    """The small oscillations of gaps held by penalty springs at a frozen configuration.

    Attributes:
        frequencies: Angular frequencies of the oscillating modes, rad/s, ascending.
        gap_shapes: Their gap shapes ``xi`` (one column per mode, largest entry +1).
        squared: Every eigenvalue of ``S`` (rad^2/s^2), ascending; zeros included.
        redundant: How many eigenvalues are zero (redundant gap coordinates).
        redundant_shapes: Their directions in ``K^1/2 xi`` coordinates (columns).
        delassus: ``A = J M^-1 J^T``, 1/kg.
        symmetric: ``S = K^1/2 A K^1/2``, 1/s^2.
        stiffness: The diagonal of ``K``, N/m.
    """

    frequencies: np.ndarray
    gap_shapes: np.ndarray
    squared: np.ndarray
    redundant: int
    redundant_shapes: np.ndarray
    delassus: np.ndarray
    symmetric: np.ndarray
    stiffness: np.ndarray

    @property
    def highest(self) -> float:
        """The largest angular frequency, rad/s."""
        return float(self.frequencies[-1])


def coupled_modes(J: Any, M: Any, K: Any, *, rtol: float = REDUNDANT_RTOL) -> CoupledModes:
    """Frequencies and gap shapes of ``xi'' + A K xi = 0``, from the symmetric ``K^1/2 A K^1/2``.

    Redundant gap coordinates are the eigenvalues ``lambda_i`` of ``S = K^1/2 A K^1/2``
    with ``lambda_i <= rtol * lambda_max`` (all of them when ``lambda_max <= 0``, a
    ``J`` of zeros); they are reported as exactly zero. The test is relative to the
    largest eigenvalue, never absolute: scaling ``J``, ``M`` or ``K`` by a constant
    (other units) scales every eigenvalue alike and leaves the count unchanged, and a
    single gap that motion changes, however little (``J = [[1e-120]]``), is a mode.
    The number of redundant gaps is ``gaps - rank(J)`` whenever the singular values of
    ``K^1/2 J M^-1/2`` are either within rounding of zero or above ``sqrt(rtol)``
    times the largest. Inputs whose ``A`` or ``S`` overflow float64, or underflow
    into its subnormal range, are refused (``maddening.ValidationError``) rather than
    answered wrongly.

    Args:
        J: Gap Jacobian, ``(gaps, coordinates)``.
        M: Mass matrix, ``(coordinates, coordinates)``, symmetric positive-definite.
        K: Penalty stiffnesses, N/m: a vector of ``gaps`` positive numbers or a diagonal matrix.
        rtol: Eigenvalues at most ``rtol`` times the largest are reported as redundant;
            a real number with ``0 <= rtol < 1`` (default ``REDUNDANT_RTOL = 1e-10``).

    >>> coupled_modes([[1.0, 0.0], [1.0, 0.0]], np.eye(2), [1.0, 1.0]).redundant
    1
    >>> coupled_modes([[1e-120, 0.0], [1e-120, 0.0]], np.eye(2), [1.0, 1.0]).redundant
    1
    """
    allowed = "a relative tolerance 0 <= rtol < 1"
    tolerance = concrete_number(rtol, "rtol", allowed, where="coupled_modes")
    if tolerance is None or not 0.0 <= tolerance < 1.0:
        raise invalid("rtol", rtol, allowed, where="coupled_modes")
    A = delassus(J, M)
    k = _stiffness(K, A.shape[0], "coupled_modes")
    root = np.sqrt(k)
    with np.errstate(over="ignore", invalid="ignore"):
        S = root[:, None] * A * root[None, :]
    _in_range(S, bool(np.any(A)), "K", K, "stiffnesses with which K^1/2 J M^-1 J^T K^1/2 lies", "coupled_modes")
    S = 0.5 * (S + S.T)
    values, vectors = np.linalg.eigh(S)
    zero = values <= tolerance * max(float(values.max()), 0.0)
    values = np.where(zero, 0.0, values)
    shapes = vectors[:, ~zero] / root[:, None]
    big = np.take_along_axis(shapes, np.argmax(np.abs(shapes), axis=0)[None, :], axis=0)
    shapes = shapes / big
    return CoupledModes(
        frequencies=np.sqrt(values[~zero]),
        gap_shapes=shapes,
        squared=values,
        redundant=int(zero.sum()),
        redundant_shapes=vectors[:, zero],
        delassus=A,
        symmetric=S,
        stiffness=k,
    )


def critical_step(method: str, J: Any, M: Any, K: Any) -> float:
    """The largest stable step (s) of ``method`` on the frozen penalty modes: ``z_limit / omega_max``.

    ``z_limit`` is :func:`maddening.analysis.stability.stability_limit`; a method with
    no limit returns ``inf``, one with no stable step returns ``0.0``.

    >>> import numpy as np
    >>> J, M = np.array([[1.0, -0.1], [1.0, 0.1]]), np.diag([2.0, 0.005])
    >>> round(critical_step("central_difference", J, M, [1e5, 1e5]) * 1e3, 3)
    3.162
    """
    from maddening.analysis.stability import stability_limit

    limit = stability_limit(method)
    modes = coupled_modes(J, M, K)
    if modes.frequencies.size == 0:
        return math.inf
    return limit / modes.highest

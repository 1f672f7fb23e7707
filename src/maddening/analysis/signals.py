"""Reading frequencies, growth and event times off simulated time series.

- :func:`zero_crossings`: the instants a sampled signal changes sign, each located
  by linear interpolation between its two samples;
- :func:`crossing_frequency`: the angular frequency ``2 pi (N - 1) / (t_N - t_1)`` from
  the first and last of the ``N`` rising crossings of the signal minus its mean (one
  per period; counting one direction only keeps a mean that is slightly off from
  biasing the count);
- :func:`growth_per_step`: the geometric mean ratio ``(A_n / A_0)^(1/n)`` of an amplitude.

>>> import numpy as np
>>> t = np.linspace(0.0, 10.0, 10001)
>>> round(crossing_frequency(t, np.sin(3.0 * t + 0.2)), 6)
3.0
"""

from __future__ import annotations

from typing import Any

import numpy as np

from maddening.errors import invalid

__all__ = ["crossing_frequency", "growth_per_step", "zero_crossings"]


def _reals(value: Any, argument: str, allowed: str, where: str) -> np.ndarray:
    """``value`` as a float64 array when it holds real numbers only (text, bools and objects are refused)."""
    try:
        array = np.asarray(value)
    except (TypeError, ValueError):
        array = np.asarray(None)
    if array.dtype.kind not in "iuf":
        raise invalid(argument, value if array.size <= 4 else f"array of shape {array.shape}", allowed, where=where)
    return array.astype(np.float64)


def _series(t: Any, x: Any, where: str) -> tuple[np.ndarray, np.ndarray]:
    allowed_t = "at least three finite, increasing times"
    t = _reals(t, "t", allowed_t, where)
    if t.ndim != 1 or t.size < 3 or not np.all(np.isfinite(t)) or np.any(np.diff(t) <= 0):
        raise invalid("t", f"array of shape {t.shape}", allowed_t, where=where)
    allowed_x = "finite samples, one per time of t"
    x = _reals(x, "x", allowed_x, where)
    if x.shape != t.shape or not np.all(np.isfinite(x)):
        raise invalid("x", f"array of shape {x.shape}", allowed_x, where=where)
    return t, x


def zero_crossings(t: Any, x: Any, *, direction: int = 0) -> np.ndarray:
    """The interpolated times at which ``x`` changes sign (``direction`` +1: rising only, -1: falling only)."""
    t, x = _series(t, x, "zero_crossings")
    if isinstance(direction, (bool, np.bool_)) or direction not in (-1, 0, 1):
        raise invalid("direction", direction, "-1, 0 or +1", where="zero_crossings")
    a, b = x[:-1], x[1:]
    hit = (a < 0) & (b >= 0) if direction > 0 else (a > 0) & (b <= 0) if direction < 0 else (a * b < 0) | ((b == 0) & (a != 0))
    i = np.nonzero(hit)[0]
    return t[i] + (t[i + 1] - t[i]) * a[i] / (a[i] - b[i])


def crossing_frequency(t: Any, x: Any) -> float:
    """The angular frequency (rad/s) of an oscillation from its zero crossings about its mean.

    Raises ``maddening.ValidationError`` when the series crosses fewer than three times.
    """
    t, x = _series(t, x, "crossing_frequency")
    times = zero_crossings(t, x - x.mean(), direction=1)
    if times.size < 2:
        raise invalid("x", f"{times.size} rising crossings", "a series that rises through its mean at least twice",
                      where="crossing_frequency")
    return float(2 * np.pi * (times.size - 1) / (times[-1] - times[0]))


def growth_per_step(amplitude: Any) -> float:
    """The mean factor per sample of a positive amplitude series: ``(A[-1] / A[0]) ** (1 / (len - 1))``."""
    a = _reals(amplitude, "amplitude", "at least two finite amplitudes > 0", "growth_per_step")
    if a.ndim != 1 or a.size < 2 or not np.all(np.isfinite(a)) or np.any(a <= 0):
        raise invalid("amplitude", f"array of shape {a.shape}", "at least two finite amplitudes > 0",
                      where="growth_per_step")
    return float(np.exp(np.log(a[-1] / a[0]) / (a.size - 1)))

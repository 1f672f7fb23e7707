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


def _series(t: Any, x: Any, where: str) -> tuple[np.ndarray, np.ndarray]:
    t = np.asarray(t, dtype=np.float64)
    x = np.asarray(x, dtype=np.float64)
    if t.ndim != 1 or t.shape != x.shape or t.size < 3 or not np.all(np.isfinite(x)) or np.any(np.diff(t) <= 0):
        raise invalid("x", f"array of shape {x.shape}", "finite samples on increasing times t of the same shape",
                      where=where)
    return t, x


def zero_crossings(t: Any, x: Any, *, direction: int = 0) -> np.ndarray:
    """The interpolated times at which ``x`` changes sign (``direction`` +1: rising only, -1: falling only)."""
    t, x = _series(t, x, "zero_crossings")
    if direction not in (-1, 0, 1):
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
    a = np.asarray(amplitude, dtype=np.float64)
    if a.ndim != 1 or a.size < 2 or not np.all(np.isfinite(a)) or np.any(a <= 0):
        raise invalid("amplitude", f"array of shape {a.shape}", "at least two finite amplitudes > 0",
                      where="growth_per_step")
    return float(np.exp(np.log(a[-1] / a[0]) / (a.size - 1)))

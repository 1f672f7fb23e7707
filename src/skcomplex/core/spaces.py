"""The space the elements move in."""

from __future__ import annotations

from skcomplex._constraints import Interval, validate_params

__all__ = ["ContinuousSpace"]


class ContinuousSpace:
    """Euclidean space of ``n_dim`` dimensions.

    A vector state of an element must have ``n_dim`` components; a scalar state
    is one coordinate (several scalar states can make up a position).

    Args:
        n_dim: The number of dimensions, an integer >= 1.

    >>> ContinuousSpace(n_dim=2)
    ContinuousSpace(n_dim=2)
    >>> ContinuousSpace(n_dim=0)
    Traceback (most recent call last):
    ...
    skcomplex.exceptions.ValidationError: ContinuousSpace: n_dim must be an int >= 1, got 0
    """

    _parameter_constraints: dict = {"n_dim": [Interval(int, 1, None, closed="left")]}

    @validate_params(_parameter_constraints)
    def __init__(self, n_dim: int) -> None:
        self.n_dim = n_dim

    def __repr__(self) -> str:
        return f"ContinuousSpace(n_dim={self.n_dim})"

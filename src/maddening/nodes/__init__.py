"""maddening.nodes: the concrete nodes."""

from maddening.nodes.ball import BallNode

__all__ = ["BallNode"]

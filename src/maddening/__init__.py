"""maddening: a node framework for executable, verified simulation.

Nodes (``maddening.core``) declare their algorithm, order and fields; the
integrators (``maddening.core.simulation.integrators``) advance them from their
right-hand sides; ``maddening.verification`` measures their order; and
``maddening.anomalies`` records their known defects.
"""

__version__ = "0.4.0"

from maddening.errors import ValidationError  # noqa: E402
from maddening import anomalies, core, verification  # noqa: E402
from maddening.core.simulation import integrators  # noqa: E402
from maddening.core.simulation.integrators import integrate_node  # noqa: E402
from maddening.nodes import BallNode  # noqa: E402
from maddening import _records  # noqa: E402,F401  (registers the package's anomalies and benchmarks)

__all__ = [
    "BallNode",
    "ValidationError",
    "__version__",
    "anomalies",
    "core",
    "integrate_node",
    "integrators",
    "verification",
]

"""maddening.core: nodes and what they declare.

A node (``Node``) declares its algorithm in ``NodeMeta`` and its fields with
``StateField``, ``ParamField`` and ``BoundaryInputField``.
"""

from maddening.core._meta import (
    ChangelogEntry,
    DiscretizationOrder,
    NodeMeta,
    Reference,
    Stability,
    ValidatedRegime,
)
from maddening.core._specs import BoundaryInputField, ParamField, StateField
from maddening.core.node import Node, as_state_dtype, check_timestep

__all__ = [
    "BoundaryInputField",
    "ChangelogEntry",
    "DiscretizationOrder",
    "Node",
    "NodeMeta",
    "ParamField",
    "Reference",
    "Stability",
    "StateField",
    "ValidatedRegime",
    "as_state_dtype",
    "check_timestep",
]

for _obj in (BoundaryInputField, ChangelogEntry, DiscretizationOrder, Node, NodeMeta, ParamField,
             Reference, Stability, StateField, ValidatedRegime, as_state_dtype, check_timestep):
    _obj.__module__ = __name__  # documented (and cross-referenced) as maddening.core.<name>
del _obj

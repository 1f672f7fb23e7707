"""MIME's dynamics nodes: ``RigidInertialNode`` (a rigid body that holds a contact's
confinement in its own update) and its applied loads."""

from mime.nodes.rigid import (
    FLAGS,
    ConstantLoad,
    Load,
    PropulsionForce,
    RigidInertialNode,
    RotatingFieldTorque,
    SumLoad,
)

__all__ = ["RigidInertialNode", "Load", "ConstantLoad", "RotatingFieldTorque", "PropulsionForce", "SumLoad", "FLAGS"]

try:  # engineer E's planar bar, when it is present
    from mime.nodes.planar_bar import PlanarBarNode  # noqa: F401
except ModuleNotFoundError as exc:  # pragma: no cover - until the file exists
    if exc.name != "mime.nodes.planar_bar":
        raise
else:
    __all__.append("PlanarBarNode")

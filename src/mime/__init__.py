"""MIME: rigid bodies against fixed structures, declared as versioned registry entries.

- :mod:`mime.units`: quantities (``mm(0.1)``) converted to SI floats at the physics boundary;
- :mod:`mime.geometry`: the kinds a body's hull is made of (``Sphere``, ``Screw``, ``Mesh``, ...), and ``Hull``;
- :mod:`mime.scene`: the fixed structures' surfaces (``Floor``, ``Tube``);
- :mod:`mime.nodes`: ``RigidInertialNode`` and its applied loads;
- :mod:`mime.registry`: entries, their declarations, the registry and profiles;
- :mod:`mime.interactions`: ``Contact`` 0.4.0 and the kept ``CentreContact`` 0.1.0;
- :mod:`mime.experiment`: attaching entries, building by profile, running, saving and loading;
- :mod:`mime.docs`: an entry's page as data, read from its declarations;
- :mod:`mime.anomalies`: MIME's known defects (its own registry of records).

Errors for bad input are ``mime.ValidationError``, which is :class:`maddening.ValidationError`;
a bad saved document raises :class:`mime.errors.DocumentError`, a subclass of it.
See ``ARCHITECTURE.md`` at the repository's root for how the modules depend on each other.
"""

from mime.errors import DocumentError, ValidationError
from mime import units
from mime.units import Length, Quantity, m, mm, um
from mime.document_kinds import document_kind, register_kind
from mime.geometry import (
    Box,
    Capsule,
    Cylinder,
    Ellipsoid,
    Hull,
    Mesh,
    Part,
    PointSet,
    Screw,
    Sphere,
)
from mime.scene import Floor, Tube
from mime.registry import (
    PROFILES,
    REGISTRY,
    DefaultKind,
    Entry,
    GradientStatus,
    Interaction,
    Registry,
    SettingRole,
    register,
)
from mime import interactions
from mime.interactions import KEPT, CentreContact, Contact
from mime.nodes import ConstantLoad, Load, PropulsionForce, RigidInertialNode, RotatingFieldTorque, SumLoad
from mime import experiment
from mime.experiment import Experiment, RunRecord
from mime import sweep  # batched runs over starts of one body, sharded over a device mesh

__all__ = [
    "DocumentError",
    "ValidationError",
    "units",
    "Length",
    "Quantity",
    "m",
    "mm",
    "um",
    "Sphere",
    "Ellipsoid",
    "Cylinder",
    "Capsule",
    "Screw",
    "Box",
    "Mesh",
    "PointSet",
    "Part",
    "Hull",
    "Floor",
    "Tube",
    "RigidInertialNode",
    "Load",
    "ConstantLoad",
    "RotatingFieldTorque",
    "PropulsionForce",
    "SumLoad",
    "PROFILES",
    "REGISTRY",
    "DefaultKind",
    "Entry",
    "GradientStatus",
    "Interaction",
    "Registry",
    "SettingRole",
    "register",
    "interactions",
    "KEPT",
    "CentreContact",
    "Contact",
    "experiment",
    "Experiment",
    "RunRecord",
    "document_kind",
    "register_kind",
]

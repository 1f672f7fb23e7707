"""MIME: rigid bodies against fixed structures, declared as versioned registry entries.

- :mod:`mime.units`: quantities (``mm(0.1)``) converted to SI floats at the physics boundary;
- :mod:`mime.registry`: entries, their declarations, the registry and profiles;
- :mod:`mime.interactions`: ``Contact`` 0.4.0 and the kept ``CentreContact`` 0.1.0;
- :mod:`mime.experiment`: attaching entries, building by profile, running, saving and loading;
- :mod:`mime.docs`: an entry's page rendered from its declarations.

Errors for bad input are :class:`mime.errors.ValidationError`; a bad saved document raises
:class:`mime.errors.DocumentError`.
"""

from mime.errors import DocumentError, ValidationError
from mime import units
from mime.units import Length, Quantity, m, mm, um
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
from mime import experiment
from mime.experiment import Experiment, RunRecord, document_kind, register_kind
from mime import sweep  # noqa: E402  (batched runs over starts of one body, sharded over a device mesh)
from mime import anomalies  # registers MIME's anomaly records into maddening.anomalies

__all__ = [
    "DocumentError",
    "ValidationError",
    "units",
    "Length",
    "Quantity",
    "m",
    "mm",
    "um",
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

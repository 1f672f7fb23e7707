"""MIME's interactions: ``Contact`` (current) and the versions kept beside it (``KEPT``).

A script that writes ``Contact`` gets the current version; a saved document
that names a kept version loads that version's class from the registry.

>>> [c.version for c in KEPT]
['0.1.0']
"""

from mime.interactions.contact import Contact
from mime.interactions._previous import CentreContact

KEPT: tuple[type, ...] = (CentreContact,)
"""Earlier versions kept registered, so documents that name them load."""

__all__ = ["Contact", "CentreContact", "KEPT"]

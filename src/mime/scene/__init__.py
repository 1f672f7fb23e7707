"""Fixed structures and their surfaces: ``Tube`` (its ``inner_surface`` faces the lumen),
``Floor`` (its ``surface`` faces up) and ``Plane``.

Each surface gives a signed distance, positive on its free side, and the outward
normal pointing into that side.
"""

from mime.scene._surfaces import (
    Floor,
    InnerSurface,
    OpaqueShape,
    Plane,
    PlaneShape,
    Surface,
    Tube,
    TubeWallShape,
    shape_of,
)

__all__ = ["Surface", "Plane", "Floor", "Tube", "InnerSurface", "PlaneShape", "TubeWallShape", "OpaqueShape",
           "shape_of"]

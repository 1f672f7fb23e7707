"""A system: elements, the interactions between them, and their space."""


from collections.abc import Sequence

from skcomplex._constraints import InstanceOf, SequenceOf, validate_params
from skcomplex.core.elements import PointElement
from skcomplex.core.interactions import Interaction
from skcomplex.core.spaces import ContinuousSpace
from skcomplex.exceptions import ValidationError

__all__ = ["System"]


class System:
    """The elements, their interactions and the space they live in.

    Labels must be unique among elements and among interactions. The
    consistency of interactions with elements (targets, state names,
    dimensions) is checked by ``Simulation.check()``.

    Args:
        elements: The elements, ``PointElement`` instances.
        interactions: The interactions, instances of ``Interaction`` subclasses.
        space: The space, a ``ContinuousSpace``.

    >>> System(elements=[PointElement('ball', x=0.0)], interactions=[], space=ContinuousSpace(1))
    System(elements=['ball'], interactions=[], space=ContinuousSpace(n_dim=1))
    """

    _parameter_constraints: dict = {
        "elements": [SequenceOf(PointElement)],
        "interactions": [SequenceOf(Interaction)],
        "space": [InstanceOf(ContinuousSpace)],
    }

    @validate_params(_parameter_constraints)
    def __init__(
        self,
        elements: Sequence[PointElement],
        interactions: Sequence[Interaction],
        space: ContinuousSpace,
    ) -> None:
        elements = list(elements)
        interactions = list(interactions)
        for kind, items in (("elements", elements), ("interactions", interactions)):
            labels = [item.label for item in items]
            duplicates = sorted({label for label in labels if labels.count(label) > 1})
            if duplicates:
                raise ValidationError(f"System: {kind} labels must be unique, got duplicates {duplicates}")
        self.elements = elements
        self.interactions = interactions
        self.space = space

    def element(self, label: str) -> PointElement:
        """Return the element with ``label``, or raise ``ValidationError`` listing the known ones."""
        for element in self.elements:
            if element.label == label:
                return element
        raise ValidationError(
            f"no element {label!r} in the system; known elements: {[e.label for e in self.elements]}"
        )

    def __repr__(self) -> str:
        return (
            f"System(elements={[e.label for e in self.elements]}, "
            f"interactions={[i.label for i in self.interactions]}, space={self.space!r})"
        )

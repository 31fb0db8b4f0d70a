"""The constraint types; ``Constraint.<Type>`` names each one."""

from kinetree.multibody.constraint import Constraint
from kinetree.multibody.constraints.custom import Custom

Constraint.Custom = Custom

__all__ = ["Constraint"]

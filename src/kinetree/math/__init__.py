"""Spatial algebra and the Function library: the bottom layer, which knows no System."""

from kinetree.math.functions import Function
from kinetree.math.inertia import Inertia, MassProperties, UnitInertia
from kinetree.math.rotation import BodyOrSpaceType, Rotation
from kinetree.math.transform import Transform

__all__ = ["BodyOrSpaceType", "Function", "Inertia", "MassProperties", "Rotation",
           "Transform", "UnitInertia"]

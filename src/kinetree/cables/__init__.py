"""Cables: Simbody 3.8's CableSpan over obstacles and via points, and the older
CablePath / CableSpring API on top of it."""

from kinetree.cables.geometry import Cylinder, Torus
from kinetree.cables.path import (
    CableObstacle,
    CablePath,
    CableSpring,
    CableTrackerSubsystem,
)
from kinetree.cables.span import CableSpan, CableSpanAlgorithm, CableSubsystem

__all__ = [
    "CableObstacle",
    "CablePath",
    "CableSpan",
    "CableSpanAlgorithm",
    "CableSpring",
    "CableSubsystem",
    "CableTrackerSubsystem",
    "Cylinder",
    "Torus",
]

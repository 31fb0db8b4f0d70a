"""Unilateral contacts, enforced by impulses in a SemiExplicitEulerTimeStepper (Simbody's
ConditionalConstraint.h): one file per contact."""

from kinetree.multibody.unilateral.edge_edge_contact import EdgeEdgeContact
from kinetree.multibody.unilateral.hard_stop import HardStopLower, HardStopUpper
from kinetree.multibody.unilateral.point_plane_contact import PointPlaneContact
from kinetree.multibody.unilateral.rope import Rope
from kinetree.multibody.unilateral.sphere_plane_contact import SpherePlaneContact
from kinetree.multibody.unilateral.sphere_sphere_contact import SphereSphereContact
from kinetree.multibody.unilateral.unilateral_contact import (
    UnilateralContact,
    calc_effective_cof,
    calc_effective_cor,
)

__all__ = ["EdgeEdgeContact", "HardStopLower", "HardStopUpper", "PointPlaneContact", "Rope",
           "SpherePlaneContact", "SphereSphereContact", "UnilateralContact",
           "calc_effective_cof", "calc_effective_cor"]

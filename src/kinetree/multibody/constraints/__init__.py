"""The constraint types; ``Constraint.<Type>`` names each one."""

from kinetree.multibody.constraint import Constraint
from kinetree.multibody.constraints.ball import Ball
from kinetree.multibody.constraints.constant_acceleration import ConstantAcceleration
from kinetree.multibody.constraints.constant_angle import ConstantAngle
from kinetree.multibody.constraints.constant_orientation import ConstantOrientation
from kinetree.multibody.constraints.constant_speed import ConstantSpeed
from kinetree.multibody.constraints.coordinate_coupler import CoordinateCoupler
from kinetree.multibody.constraints.custom import Custom
from kinetree.multibody.constraints.line_on_line_contact import LineOnLineContact
from kinetree.multibody.constraints.no_slip1d import NoSlip1D
from kinetree.multibody.constraints.point_in_plane import PointInPlane
from kinetree.multibody.constraints.point_on_line import PointOnLine
from kinetree.multibody.constraints.point_on_plane_contact import PointOnPlaneContact
from kinetree.multibody.constraints.prescribed_motion import PrescribedMotion
from kinetree.multibody.constraints.rod import Rod
from kinetree.multibody.constraints.speed_coupler import SpeedCoupler
from kinetree.multibody.constraints.sphere_on_plane_contact import SphereOnPlaneContact
from kinetree.multibody.constraints.sphere_on_sphere_contact import SphereOnSphereContact
from kinetree.multibody.constraints.weld import Weld

Constraint.Custom = Custom
Constraint.CoordinateCoupler = CoordinateCoupler
Constraint.SpeedCoupler = SpeedCoupler
Constraint.PrescribedMotion = PrescribedMotion
Constraint.ConstantSpeed = ConstantSpeed
Constraint.ConstantAcceleration = ConstantAcceleration
Constraint.NoSlip1D = NoSlip1D
Constraint.Rod = Rod
Constraint.ConstantDistance = Rod
Constraint.Ball = Ball
Constraint.CoincidentPoints = Ball
Constraint.Spherical = Ball
Constraint.Weld = Weld
Constraint.CoincidentFrames = Weld
Constraint.PointInPlane = PointInPlane
Constraint.PointOnLine = PointOnLine
Constraint.ConstantAngle = ConstantAngle
Constraint.ConstantOrientation = ConstantOrientation
Constraint.PointOnPlaneContact = PointOnPlaneContact
Constraint.SphereOnPlaneContact = SphereOnPlaneContact
Constraint.SphereOnSphereContact = SphereOnSphereContact
Constraint.LineOnLineContact = LineOnLineContact

__all__ = ["Constraint"]

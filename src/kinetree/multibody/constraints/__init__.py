"""The constraint types; ``Constraint.<Type>`` names each one."""

from kinetree.multibody.constraint import Constraint
from kinetree.multibody.constraints.constant_acceleration import ConstantAcceleration
from kinetree.multibody.constraints.constant_speed import ConstantSpeed
from kinetree.multibody.constraints.coordinate_coupler import CoordinateCoupler
from kinetree.multibody.constraints.custom import Custom
from kinetree.multibody.constraints.no_slip1d import NoSlip1D
from kinetree.multibody.constraints.prescribed_motion import PrescribedMotion
from kinetree.multibody.constraints.speed_coupler import SpeedCoupler

Constraint.Custom = Custom
Constraint.CoordinateCoupler = CoordinateCoupler
Constraint.SpeedCoupler = SpeedCoupler
Constraint.PrescribedMotion = PrescribedMotion
Constraint.ConstantSpeed = ConstantSpeed
Constraint.ConstantAcceleration = ConstantAcceleration
Constraint.NoSlip1D = NoSlip1D

__all__ = ["Constraint"]

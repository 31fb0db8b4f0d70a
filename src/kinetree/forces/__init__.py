"""Force subsystems and force elements; ``Force.<Type>`` names every built-in element."""

from kinetree.forces.custom import Custom
from kinetree.forces.elements.constant_force import ConstantForce
from kinetree.forces.elements.constant_torque import ConstantTorque
from kinetree.forces.elements.coordinate_limit_force import CoordinateLimitForce
from kinetree.forces.elements.discrete_forces import DiscreteForces
from kinetree.forces.elements.exponential_spring_force import (
    ExponentialSpringForce,
    ExponentialSpringParameters,
)
from kinetree.forces.elements.expression_based_coordinate_force import (
    ExpressionBasedCoordinateForce,
)
from kinetree.forces.elements.global_damper import GlobalDamper
from kinetree.forces.elements.gravity import Gravity
from kinetree.forces.elements.linear_bushing import LinearBushing
from kinetree.forces.elements.mobility_constant_force import MobilityConstantForce
from kinetree.forces.elements.mobility_discrete_force import MobilityDiscreteForce
from kinetree.forces.elements.mobility_linear_damper import MobilityLinearDamper
from kinetree.forces.elements.mobility_linear_spring import MobilityLinearSpring
from kinetree.forces.elements.mobility_linear_stop import MobilityLinearStop
from kinetree.forces.elements.smooth_sphere_half_space_force import (
    SmoothSphereHalfSpaceForce,
)
from kinetree.forces.elements.thermostat import Thermostat
from kinetree.forces.elements.two_point_constant_force import TwoPointConstantForce
from kinetree.forces.elements.two_point_linear_damper import TwoPointLinearDamper
from kinetree.forces.elements.two_point_linear_spring import TwoPointLinearSpring
from kinetree.forces.elements.uniform_gravity import UniformGravity
from kinetree.forces.force import Force
from kinetree.forces.force_subsystem import ForceSubsystem
from kinetree.forces.general import GeneralForceSubsystem

Force.ConstantForce = ConstantForce
Force.ConstantTorque = ConstantTorque
Force.CoordinateLimitForce = CoordinateLimitForce
Force.DiscreteForces = DiscreteForces
Force.ExponentialSpringForce = ExponentialSpringForce
Force.ExpressionBasedCoordinateForce = ExpressionBasedCoordinateForce
Force.GlobalDamper = GlobalDamper
Force.Gravity = Gravity
Force.LinearBushing = LinearBushing
Force.MobilityConstantForce = MobilityConstantForce
Force.MobilityDiscreteForce = MobilityDiscreteForce
Force.MobilityLinearDamper = MobilityLinearDamper
Force.MobilityLinearSpring = MobilityLinearSpring
Force.MobilityLinearStop = MobilityLinearStop
Force.SmoothSphereHalfSpaceForce = SmoothSphereHalfSpaceForce
Force.Thermostat = Thermostat
Force.TwoPointConstantForce = TwoPointConstantForce
Force.TwoPointLinearDamper = TwoPointLinearDamper
Force.TwoPointLinearSpring = TwoPointLinearSpring
Force.UniformGravity = UniformGravity
Force.Custom = Custom

__all__ = ["ExponentialSpringForce", "ExponentialSpringParameters", "Force",
           "ForceSubsystem", "GeneralForceSubsystem"]

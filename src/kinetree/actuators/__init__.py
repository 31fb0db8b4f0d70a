"""OpenSim's actuators: muscles on geometry paths, coordinate, point and torque actuators,
and the controllers that set their excitations."""

from kinetree.actuators.actuator import Actuator, Muscle
from kinetree.actuators.controllers import Controller, PrescribedController
from kinetree.actuators.coordinate_actuator import CoordinateActuator
from kinetree.actuators.point_actuator import PointActuator
from kinetree.actuators.subsystem import ActuatorSubsystem
from kinetree.actuators.torque_actuator import TorqueActuator

__all__ = ["Actuator", "ActuatorSubsystem", "Controller", "CoordinateActuator", "Muscle",
           "PointActuator", "PrescribedController", "TorqueActuator"]

"""OpenSim's model components by OpenSim's names, for models built in code or changed
after ``load_osim``: muscles, actuators and controllers (``kt.osim.Thelen2003Muscle``,
``kt.osim.CoordinateActuator``, ``kt.osim.PrescribedController``), the subsystem that
holds them, paths (``kt.osim.GeometryPath``, ``PathPoint``, ...) and wrap surfaces
(``kt.osim.WrapCylinder``, ...)."""

from kinetree.actuators import (
    Actuator,
    ActuatorSubsystem,
    Controller,
    CoordinateActuator,
    Muscle,
    PointActuator,
    PrescribedController,
    TorqueActuator,
)
from kinetree.actuators.degroote_fregly2016_muscle import DeGrooteFregly2016Muscle
from kinetree.actuators.millard2012_equilibrium_muscle import Millard2012EquilibriumMuscle
from kinetree.actuators.rigid_tendon_muscle import RigidTendonMuscle
from kinetree.actuators.schutte1993_muscle import Schutte1993Muscle_Deprecated
from kinetree.actuators.thelen2003_muscle import Thelen2003Muscle
from kinetree.paths.geometry_path import (
    ConditionalPathPoint,
    GeometryPath,
    MovingPathPoint,
    PathPoint,
    PathWrap,
)
from kinetree.paths.wrap_cylinder import WrapCylinder
from kinetree.paths.wrap_ellipsoid import WrapEllipsoid
from kinetree.paths.wrap_object import WrapObject
from kinetree.paths.wrap_sphere import WrapSphere
from kinetree.paths.wrap_torus import WrapTorus

__all__ = ["Actuator", "ActuatorSubsystem", "ConditionalPathPoint", "Controller",
           "CoordinateActuator", "DeGrooteFregly2016Muscle", "GeometryPath",
           "Millard2012EquilibriumMuscle", "MovingPathPoint", "Muscle", "PathPoint",
           "PathWrap", "PointActuator", "PrescribedController", "RigidTendonMuscle",
           "Schutte1993Muscle_Deprecated", "Thelen2003Muscle", "TorqueActuator",
           "WrapCylinder", "WrapEllipsoid", "WrapObject", "WrapSphere", "WrapTorus"]

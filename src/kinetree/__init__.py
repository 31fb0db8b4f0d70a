"""kinetree: Simbody's multibody dynamics design in Python, with a compiled core.

Every public name is importable from here (``import kinetree as kt``); see API.md for the
contract. Names are Simbody's, methods in snake_case.
"""

# First, before any module that defines a numba kernel: where numba caches them. The
# imports after the call are therefore below code, on purpose:
# ruff: noqa: E402
from kinetree import _compile_cache

_compile_cache.configure()

from kinetree import errors, osim
from kinetree.cables import (
    CableObstacle,
    CablePath,
    CableSpan,
    CableSpanAlgorithm,
    CableSpring,
    CableSubsystem,
    CableTrackerSubsystem,
)
from kinetree.contact import (
    CompliantContactSubsystem,
    ContactEventHandler,
    ContactEventReporter,
    ContactForce,
    ContactGeometry,
    ContactMaterial,
    ContactSurface,
    ContactTrackerSubsystem,
    ElasticFoundationForce,
    GeneralContactSubsystem,
    HuntCrossleyForce,
    PolygonalMesh,
    RigidContact,
)
from kinetree.errors import StageTooLowError
from kinetree.forces import (
    ExponentialSpringForce,
    ExponentialSpringParameters,
    Force,
    ForceSubsystem,
    GeneralForceSubsystem,
)
from kinetree.forces.elements.thermostat import BOLTZMANN_CONSTANT_MD
from kinetree.integrators import (
    CPodesIntegrator,
    ExplicitEulerIntegrator,
    Integrator,
    RungeKutta2Integrator,
    RungeKutta3Integrator,
    RungeKutta4Integrator,
    RungeKuttaFeldbergIntegrator,
    RungeKuttaMersonIntegrator,
    SemiExplicitEuler2Integrator,
    SemiExplicitEulerIntegrator,
    SuccessfulStepStatus,
    TerminationReason,
    VerletIntegrator,
)
from kinetree.io.model import Coordinate, Model
from kinetree.io.osim import load_osim
from kinetree.io.urdf import load_urdf
from kinetree.math import (
    BodyOrSpaceType,
    Function,
    Inertia,
    MassProperties,
    Rotation,
    Transform,
    UnitInertia,
)
from kinetree.multibody import (
    Body,
    Constraint,
    MobilizedBody,
    Motion,
    MultibodySystem,
    SimbodyMatterSubsystem,
)
from kinetree.multibody.check_constraint import check_constraint
from kinetree.multibody.check_mobilizer import check_mobilizer
from kinetree.multibody.unilateral import (
    EdgeEdgeContact,
    HardStopLower,
    HardStopUpper,
    PointPlaneContact,
    Rope,
    SpherePlaneContact,
    SphereSphereContact,
    UnilateralContact,
)
from kinetree.study import (
    Assembler,
    AssemblyCondition,
    Ensemble,
    Markers,
    ObservedPointFitter,
    QValue,
    Trajectory,
    simulate,
    simulate_ensemble,
)
from kinetree.study.semi_explicit_euler_time_stepper import SemiExplicitEulerTimeStepper
from kinetree.study.time_stepper import TimeStepper
from kinetree.study.trc import read_trc
from kinetree.system import Measure, Stage, State, Subsystem, System
from kinetree.system.events import (
    EventTriggerInfo,
    PeriodicEventHandler,
    PeriodicEventReporter,
    ScheduledEventHandler,
    ScheduledEventReporter,
    TriggeredEventHandler,
    TriggeredEventReporter,
)
from kinetree.viz import (
    DecorativeArrow,
    DecorativeBrick,
    DecorativeCylinder,
    DecorativeEllipsoid,
    DecorativeFrame,
    DecorativeGeometry,
    DecorativeLine,
    DecorativeMesh,
    DecorativePoint,
    DecorativeSphere,
    DecorativeText,
    DecorativeTorus,
    Visualizer,
)

__version__ = "0.1.0"

__all__ = [
    "DecorativeArrow",
    "DecorativeBrick",
    "DecorativeCylinder",
    "DecorativeEllipsoid",
    "DecorativeFrame",
    "DecorativeGeometry",
    "DecorativeLine",
    "DecorativeMesh",
    "DecorativePoint",
    "DecorativeSphere",
    "DecorativeText",
    "DecorativeTorus",
    "Visualizer",
    "Assembler",
    "ObservedPointFitter",
    "AssemblyCondition",
    "Body",
    "BodyOrSpaceType",
    "CableObstacle",
    "CablePath",
    "CableSpan",
    "CableSpanAlgorithm",
    "CableSpring",
    "CableSubsystem",
    "CableTrackerSubsystem",
    "check_constraint",
    "check_mobilizer",
    "Constraint",
    "CompliantContactSubsystem",
    "ContactEventHandler",
    "ContactEventReporter",
    "ContactForce",
    "ContactGeometry",
    "ContactMaterial",
    "ContactSurface",
    "ContactTrackerSubsystem",
    "ElasticFoundationForce",
    "GeneralContactSubsystem",
    "HuntCrossleyForce",
    "PolygonalMesh",
    "RigidContact",
    "CPodesIntegrator",
    "EventTriggerInfo",
    "ExplicitEulerIntegrator",
    "BOLTZMANN_CONSTANT_MD",
    "ExponentialSpringForce",
    "ExponentialSpringParameters",
    "Force",
    "ForceSubsystem",
    "Function",
    "GeneralForceSubsystem",
    "Inertia",
    "Integrator",
    "load_osim",
    "load_urdf",
    "Model",
    "Coordinate",
    "Markers",
    "MassProperties",
    "Measure",
    "MobilizedBody",
    "Motion",
    "MultibodySystem",
    "PeriodicEventHandler",
    "PeriodicEventReporter",
    "QValue",
    "read_trc",
    "Rotation",
    "RungeKutta2Integrator",
    "RungeKutta3Integrator",
    "RungeKutta4Integrator",
    "RungeKuttaFeldbergIntegrator",
    "RungeKuttaMersonIntegrator",
    "ScheduledEventHandler",
    "ScheduledEventReporter",
    "SemiExplicitEuler2Integrator",
    "SemiExplicitEulerIntegrator",
    "SimbodyMatterSubsystem",
    "simulate",
    "simulate_ensemble",
    "Ensemble",
    "Stage",
    "StageTooLowError",
    "State",
    "Subsystem",
    "SuccessfulStepStatus",
    "System",
    "TerminationReason",
    "TimeStepper",
    "SemiExplicitEulerTimeStepper",
    "EdgeEdgeContact",
    "HardStopLower",
    "HardStopUpper",
    "PointPlaneContact",
    "Rope",
    "SpherePlaneContact",
    "SphereSphereContact",
    "UnilateralContact",
    "Trajectory",
    "Transform",
    "TriggeredEventHandler",
    "TriggeredEventReporter",
    "UnitInertia",
    "VerletIntegrator",
    "errors",
    "osim",
]

"""kinetree: Simbody's multibody dynamics design in Python, with a compiled core.

Every public name is importable from here (``import kinetree as kt``); see API.md for the
contract. Names are Simbody's, methods in snake_case.
"""

from kinetree import errors
from kinetree.errors import StageTooLowError
from kinetree.forces import Force, ForceSubsystem, GeneralForceSubsystem
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
    MultibodySystem,
    SimbodyMatterSubsystem,
)
from kinetree.multibody.check_constraint import check_constraint
from kinetree.system import Stage, State, Subsystem, System

__version__ = "0.1.0"

__all__ = [
    "Body",
    "BodyOrSpaceType",
    "Constraint",
    "Force",
    "ForceSubsystem",
    "GeneralForceSubsystem",
    "MobilizedBody",
    "MultibodySystem",
    "SimbodyMatterSubsystem",
    "Function",
    "Inertia",
    "MassProperties",
    "Rotation",
    "Stage",
    "StageTooLowError",
    "State",
    "Subsystem",
    "System",
    "Transform",
    "UnitInertia",
    "check_constraint",
    "errors",
]

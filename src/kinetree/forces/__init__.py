"""Force subsystems and force elements; ``Force.<Type>`` names every built-in element."""

from kinetree.forces.custom import Custom
from kinetree.forces.elements.uniform_gravity import UniformGravity
from kinetree.forces.force import Force
from kinetree.forces.force_subsystem import ForceSubsystem
from kinetree.forces.general import GeneralForceSubsystem

Force.UniformGravity = UniformGravity
Force.Custom = Custom

__all__ = ["Force", "ForceSubsystem", "GeneralForceSubsystem"]

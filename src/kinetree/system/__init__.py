"""System, Subsystem, State and Stage: Simbody's computational core, which knows no physics."""

from kinetree.system.measure import Measure
from kinetree.system.stage import Stage
from kinetree.system.state import State
from kinetree.system.subsystem import Subsystem
from kinetree.system.system import System

__all__ = ["Measure", "Stage", "State", "Subsystem", "System"]

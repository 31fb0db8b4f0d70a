"""System, Subsystem, State and Stage: Simbody's computational core, which knows no physics."""

from kinetree.system.stage import Stage
from kinetree.system.state import State
from kinetree.system.subsystem import Subsystem
from kinetree.system.system import System

__all__ = ["Stage", "State", "Subsystem", "System"]

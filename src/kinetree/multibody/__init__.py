"""Bodies, mobilizers and the matter subsystem: minimal-coordinate multibody dynamics."""

from kinetree.multibody.body import Body
from kinetree.multibody.constraints import Constraint
from kinetree.multibody.matter import SimbodyMatterSubsystem
from kinetree.multibody.mobilized_body import MobilizedBody
from kinetree.multibody.motion import Motion
from kinetree.multibody.multibody_system import MultibodySystem

__all__ = ["Body", "Constraint", "MobilizedBody", "Motion", "MultibodySystem",
           "SimbodyMatterSubsystem"]

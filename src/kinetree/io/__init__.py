"""Models from files: OpenSim's .osim (``load_osim``) and URDF (``load_urdf``)."""

from kinetree.io.model import Coordinate, Model
from kinetree.io.osim import OsimError, OsimSkippedWarning, load_osim
from kinetree.io.urdf import load_urdf

__all__ = ["Coordinate", "Model", "OsimError", "OsimSkippedWarning", "load_osim", "load_urdf"]

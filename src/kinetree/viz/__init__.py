"""Visualization: the real-time browser Visualizer, decorations and standalone replays.

``Visualizer`` (``visualizer.py``) serves a System's view to a browser through viser;
``decorations.py`` holds the DecorativeGeometry family; ``scene.py`` turns a System and a
State into viser scene nodes; ``replay.py`` writes a Trajectory as a standalone page;
``meshes.py`` reads mesh files; ``generators.py`` holds per-frame decorations drawn
from results (contact forces as arrows). Nothing here imports viser until a view is made.
"""

from kinetree.viz.decorations import (
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
)
from kinetree.viz.generators import ContactForceArrows
from kinetree.viz.meshes import read_mesh
from kinetree.viz.visualizer import Visualizer

__all__ = ["ContactForceArrows", "DecorativeArrow", "DecorativeBrick", "DecorativeCylinder",
           "DecorativeEllipsoid", "DecorativeFrame", "DecorativeGeometry", "DecorativeLine",
           "DecorativeMesh", "DecorativePoint", "DecorativeSphere", "DecorativeText",
           "DecorativeTorus", "Visualizer", "read_mesh"]

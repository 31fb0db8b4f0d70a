"""Paths of cables and muscles: OpenSim's GeometryPath (path points, conditional and moving
points, wrap surfaces) computed in the compiled realization."""

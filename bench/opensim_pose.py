"""A random pose of an OpenSim model and the same pose in kinetree's, for the benchmarks
that run both."""

from __future__ import annotations


def random_pose(om, ostate, rng) -> None:
    """Each free coordinate of OpenSim's model ``om`` at a random value within its range
    (at most 1 in magnitude) and a random speed in [-1, 1], then assembled."""
    coordinates = om.getCoordinateSet()
    for i in range(coordinates.getSize()):
        c = coordinates.get(i)
        if not (c.getLocked(ostate) or c.isDependent(ostate)):
            c.setValue(ostate, rng.uniform(max(c.getRangeMin(), -1), min(c.getRangeMax(), 1)),
                       False)
            c.setSpeedValue(ostate, rng.uniform(-1, 1))
    om.assemble(ostate)


def copy_pose(model, state, om, ostate) -> None:
    """OpenSim's coordinate values and speeds into kinetree's ``model`` by name."""
    coordinates = om.getCoordinateSet()
    for i in range(coordinates.getSize()):
        c = coordinates.get(i)
        k = model.coordinates[c.getName()]
        k.set_value(state, c.getValue(ostate))
        k.set_speed_value(state, c.getSpeedValue(ostate))

"""What the ports of Simbody's CableSpan tests build their models of: a System with a
matter and a cable subsystem, and unit bodies."""

import kinetree as kt
from kinetree.cables import CableSubsystem


def make_system():
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    return system, matter, CableSubsystem(system)


def a_body():
    """1 kg, its mass center at its origin, unit inertia."""
    return kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(1, 1, 1)))


def free_body(matter, p):
    """A unit body on a Free mobilizer from Ground at p (m)."""
    return kt.MobilizedBody.Free(matter.Ground(), kt.Transform(p), a_body(), kt.Transform())

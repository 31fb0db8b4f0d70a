"""``python -m kinetree warmup``: compile the kernels a typical program uses, ahead of it.

kinetree's kernels are compiled by numba on first use and cached on disk, so the first
program after an install (or an upgrade) spends a minute or more compiling before it
simulates anything. This builds a small model of the common element kinds through the
public API only (Pins, a Ball, a Free body, gravity, a two-point spring, a mobility damper,
a Ball constraint closing a loop, a sphere on a half space with compliant contact),
assembles it, realizes it to ACCELERATION and simulates it briefly, then does the same
without the contact, without the constraint, and without either, so that what it
compiled is cached for the programs that follow. The realization is compiled for the
element kinds a model has, rounded up to the common ones and to all constraints or none
(``engine/kinds.py``): these models' versions serve every model made of common kinds and
built-in constraints, with compliant contact or with none.
"""

from __future__ import annotations

import time

import numpy as np

import kinetree as kt
from kinetree import _compile_cache

SIMULATED_TIME = 0.02  # s: long enough for every stage, and projection, to run


def build_model(closed: bool = True, contact: bool = True
                ) -> tuple[kt.MultibodySystem, kt.State]:
    """The model and a State of it: a four-bar whose crank and rocker turn on Pins and whose
    coupler hangs on a Ball from the crank, its loop closed by a Constraint.Ball at the
    rocker (unless ``closed`` is False) and assembled, a spring pulling the coupler and a
    damper on the crank; and a Free ball resting 1 mm into a floor (with compliant contact
    unless ``contact`` is False)."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    if contact:
        tracker = kt.ContactTrackerSubsystem(system)
        kt.CompliantContactSubsystem(system, tracker)
    kt.Force.UniformGravity(forces, matter, [0, -9.81, 0])

    link = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(0.02, 0.01, 0.02)))
    crank = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), link,
                                 kt.Transform([0, 0.5, 0]))
    coupler = kt.MobilizedBody.Ball(crank, kt.Transform(), link, kt.Transform([-1.0, 0, 0]))
    rocker = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform([1.0, 0, 0]), link,
                                  kt.Transform([0, 0.5, 0]))
    if closed:
        kt.Constraint.Ball(coupler, [0, 0, 0], rocker, [0, 0, 0])
    kt.Force.TwoPointLinearSpring(forces, matter.Ground(), [0.5, 0.5, 0], coupler, [0, 0, 0],
                                  50.0, 0.5)
    kt.Force.MobilityLinearDamper(forces, crank, 0, 0.5)

    rubber = kt.ContactMaterial(1e6, 0.5, 0.9, 0.6, 0.0)
    floor_pose = kt.Transform(kt.Rotation.about_z(-np.pi / 2), [0, -1.5, 0])  # fills y < -1.5
    matter.Ground().upd_body().add_contact_surface(
        floor_pose, kt.ContactSurface(kt.ContactGeometry.HalfSpace(), rubber))
    ball_body = kt.Body.Rigid(kt.MassProperties(0.5, [0, 0, 0], kt.Inertia(0.002)))
    ball_body.add_contact_surface(kt.Transform(),
                                  kt.ContactSurface(kt.ContactGeometry.Sphere(0.1), rubber))
    ball = kt.MobilizedBody.Free(matter.Ground(), ball_body)

    state = system.realize_topology()
    crank.set_one_q(state, 0, 0.3)  # off the default State, which closes the loop
    if closed:
        kt.Assembler(system).assemble(state)
    ball.set_q_to_fit_transform(state, kt.Transform(kt.Rotation(), [2.0, -1.401, 0]))
    ball.set_u(state, [0, 0, -2, 0.5, 0, 0])
    return system, state


def run() -> list[kt.Trajectory]:
    """Realize the model (closed or open, with contact or without) to ACCELERATION and
    simulate it for SIMULATED_TIME."""
    runs = []
    for closed, contact in ((True, True), (True, False), (False, True), (False, False)):
        system, state = build_model(closed, contact)
        state.set_u(state.get_u())  # a State's read-only values given back, as programs do
        system.realize(state, kt.Stage.ACCELERATION)
        runs.append(kt.simulate(system, state, SIMULATED_TIME, progress=False))
    return runs


def main() -> int:
    """Run the warm-up and say how long it took and where the compiled kernels are."""
    start = time.perf_counter()
    run()
    seconds = time.perf_counter() - start
    where = _compile_cache.cache_dir
    if where is None:
        print(f"kinetree warmup: compiled in {seconds:.1f} s, but the kernels could not be "
              f"cached (no writable folder): set NUMBA_CACHE_DIR to a writable folder.")
        return 1
    if where == _compile_cache.PACKAGE_DIR:
        where = f"the __pycache__ folders under {where}"
    print(f"kinetree warmup: done in {seconds:.1f} s; compiled kernels are cached in {where}")
    return 0

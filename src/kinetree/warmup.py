"""``python -m kinetree warmup``: compile every kernel of kinetree once, ahead of any program.

kinetree's kernels are compiled by numba and cached on disk by the content of the source
(``_compile_cache``), so a program of this version of kinetree compiles nothing once
they are there. The warm-up compiles them on every core, in parallel jobs:

- the engine: a model of the inline element kinds (Pins, a Ball, a Free body, gravity, a
  spring, a damper, a Ball constraint closing a loop, a sphere on a half space with
  compliant contact), assembled, realized and simulated briefly with the loop closed or
  open and with contact or without: the one compiled realization, the compiled steps,
  the compiled reports, the projection, the assembler;
- every other element kind, each function of it compiled by itself (``engine/kinds.py``);
- then programs that use them: a model with every mobilizer kind, the matter
  subsystem's operators (mass matrix, Jacobians, inverse dynamics, constraint
  matrices), the flagship example's physics, cables over every obstacle shape, the
  closest points of convex shapes, the rigid-contact stepper, and each
  robot (URDF) and OpenSim model
  bundled with a checkout of the repository, loaded and realized (a model with muscles
  equilibrated and simulated briefly).

It leaves a marker in the cache folder when done, which silences the notice a first
import gives.
"""

from __future__ import annotations

import concurrent.futures
import logging
import multiprocessing
import os
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
    # Open, without contact and in Euler angles: a model whose reports are taken in
    # compiled code (engine/reports.py).
    system, state = build_model(False, False)
    system.get_matter_subsystem().set_use_euler_angles(state, True)
    system.realize(state, kt.Stage.MODEL)
    runs.append(kt.simulate(system, state, SIMULATED_TIME, progress=False))
    return runs


def every_mobilizer_model() -> tuple[kt.MultibodySystem, kt.State]:
    """A chain of one body on every built-in mobilizer kind but Custom (whose hinge is the
    user's Python), off its default State, under gravity."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -9.81, 0])
    body = kt.Body.Rigid(kt.MassProperties(1.0, [0.1, 0.2, 0.05], kt.Inertia(0.3, 0.4, 0.5)))
    M = kt.Transform([0, 0.3, 0])
    mb = kt.MobilizedBody
    parent = matter.Ground()
    for make in (mb.Pin, mb.Slider, mb.Universal, mb.Cylinder, mb.Planar, mb.Gimbal, mb.Ball,
                 mb.Free, mb.Translation, mb.BendStretch, mb.SphericalCoords,
                 mb.LineOrientation, mb.FreeLine, mb.Bushing, mb.Weld):
        parent = make(parent, kt.Transform(), body, M)
    parent = mb.Screw(parent, kt.Transform(), body, M, 0.1)
    parent = mb.Ellipsoid(parent, kt.Transform(), body, M, [0.3, 0.2, 0.1])
    parent = mb.Scapulothoracic(parent, kt.Transform(), body, M, [0.3, 0.2, 0.1])
    parent = mb.CantileverFreeBeam(parent, kt.Transform(), body, M, 0.4)
    functions = [kt.Function.Linear([1.0, 0.0])] + [kt.Function.Constant(0.0, 1)] * 5
    mb.FunctionBased(parent, kt.Transform(), body, M, 1, functions, [[0]] * 6)
    state = system.realize_topology()
    state.upd_q()[:] = 0.1
    state.upd_u()[:] = 0.2
    return system, state


def _engine() -> None:
    run()


def _kinds(family: str, codes: tuple) -> None:
    from kinetree.engine.kinds import address_table

    address_table(family, codes)


def _every_mobilizer() -> None:
    system, state = every_mobilizer_model()
    kt.simulate(system, state, SIMULATED_TIME, progress=False)


class _Nudge(kt.Force.Custom.Implementation):
    """A force in Python: a small generalized force on the first mobility."""

    def calc_force(self, state, body_forces, particle_forces, mobility_forces):
        mobility_forces[0] += 0.01


def _python_model() -> None:
    """The four-bar with a force in Python, stepped by a Runge-Kutta method (the run that
    asks Python for each derivative) and by Verlet (which attempts in Python)."""
    system, state = build_model()
    kt.Force.Custom(system.get_subsystem(1), _Nudge())
    state = system.realize_topology()
    kt.simulate(system, state, SIMULATED_TIME, progress=False)
    kt.simulate(system, state, SIMULATED_TIME, integrator=kt.VerletIntegrator,
                progress=False)


def _opensim(path: str) -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = kt.io.load_osim(path)
    state = model.get_default_state()
    model.system.realize(state, kt.Stage.VELOCITY)
    if model.system.get_matter_subsystem().calc_system_mass(state) == 0.0:
        return              # wrist.osim: its muscles' paths and moment arms only
    model.system.realize(state, kt.Stage.ACCELERATION)
    if model.muscles:
        model.equilibrate_muscles(state)
        kt.simulate(model.system, state, SIMULATED_TIME / 10, progress=False,
                    outputs=model.actuator_subsystem.muscle_outputs())


def _operators() -> None:
    """The matter subsystem's operators a controller or an estimator calls, on the closed
    four-bar with contact, realized to ACCELERATION."""
    system, state = build_model()
    system.realize(state, kt.Stage.ACCELERATION)
    matter = system.get_matter_subsystem()
    nu, nb = state.get_num_u(), matter.get_num_bodies()
    f, F, x = np.ones(nu), np.zeros((nb, 6)), np.full(nu, 0.1)
    matter.calc_m(state)
    matter.calc_m_inv(state)
    matter.multiply_by_m(state, x)
    matter.multiply_by_m_inv(state, f)
    matter.calc_residual_force_ignoring_constraints(state, f, F, x)
    matter.calc_residual_force(state, f, F, x, state.get_multipliers())
    matter.calc_acceleration(state, f, F)
    matter.calc_acceleration_ignoring_constraints(state, f, F)
    matter.multiply_by_g_transpose(state, state.get_multipliers())
    matter.multiply_by_g(state, x)
    matter.calc_g(state)
    matter.calc_g_transpose(state)
    body = matter.get_mobilized_body(1)
    matter.calc_station_jacobian(state, body, [0.1, 0.2, 0.3])
    matter.calc_frame_jacobian(state, body, [0.1, 0.2, 0.3])
    matter.multiply_by_system_jacobian_transpose(state, matter.multiply_by_system_jacobian(
        state, x))
    matter.calc_system_jacobian(state)
    matter.calc_composite_body_inertias(state)
    matter.multiply_by_n_inv(state, matter.multiply_by_n(state, False, x))
    matter.calc_system_mass_properties_in_ground(state)
    matter.calc_system_momentum_about_ground_origin(state)


def _demo() -> None:
    """The flagship example's physics (``kinetree.demo``), without writing its outputs."""
    from kinetree import demo

    system, matter, rod, state = demo.build_linkage()
    traj = kt.simulate(system, state, SIMULATED_TIME, accuracy=demo.ACCURACY,
                       outputs={"rod_error": rod.get_position_error}, progress=False)
    demo.residual_check(system, matter, traj.states()[-1])


def _cables() -> None:
    """A CableSpring over a sphere, simulated, and a CableSpan over each obstacle shape
    (the closed-form and the integrated geodesics), realized to VELOCITY."""
    from kinetree.cables import (
        CableObstacle,
        CablePath,
        CableSpan,
        CableSpring,
        CableSubsystem,
        CableTrackerSubsystem,
        Cylinder,
        Torus,
    )

    body = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(0.1)))
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    tracker = CableTrackerSubsystem(system)
    mass = kt.MobilizedBody.Translation(matter.Ground(), kt.Transform([3, -0.5, 0]), body,
                                        kt.Transform())
    path = CablePath(tracker, matter.Ground(), [-3, 0, 0], mass, [0, 0, 0])
    CableObstacle.Surface(path, matter.Ground(), kt.Transform(),
                          kt.ContactGeometry.Sphere(1.0)).set_contact_point_hints(
        [0, 1, 0], [0, 1, 0])
    CableSpring(forces, path, 10.0, 5.0, 0.05)
    kt.simulate(system, system.realize_topology(), SIMULATED_TIME, progress=False)

    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    end = kt.MobilizedBody.Free(matter.Ground(), kt.Transform([-8, 0.5, 0]), body,
                                kt.Transform())
    cable = CableSpan(CableSubsystem(system), end, [0, 0, 0], matter.Ground(), [10, 0.3, 0.2])
    for x, shape, hint in ((-5, kt.ContactGeometry.Sphere(1.0), [0, 1, 0]),
                           (-1, Cylinder(0.8), [0, 0.8, 0]),
                           (3, kt.ContactGeometry.Ellipsoid([1.0, 1.2, 0.8]), [0, 1.2, 0]),
                           (7, Torus(1.0, 0.3), [0, 1.3, 0])):
        cable.add_obstacle(matter.Ground(), kt.Transform([x, 0, 0]), shape, hint)
    state = system.realize_topology()
    end.set_u(state, [0.1, 0.2, 0.3, 0.1, 0.0, 0.2])
    system.realize(state, kt.Stage.VELOCITY)
    cable.calc_length_dot(state)
    cable.apply_body_forces(state, 1.0, np.zeros((matter.get_num_bodies(), 6)))


def _convex() -> None:
    """The pair query of convex shapes, overlapping and apart."""
    shapes = [kt.ContactGeometry.Sphere(0.1), kt.ContactGeometry.Capsule(0.1, 0.2),
              kt.ContactGeometry.Brick([0.1, 0.1, 0.1]), kt.ContactGeometry.Cylinder(0.1, 0.1),
              kt.ContactGeometry.Ellipsoid([0.1, 0.2, 0.1]),
              kt.ContactGeometry.Convex(np.eye(3).tolist() + [[0, 0, 0]])]
    for shape in shapes:
        for gap in (0.5, 0.05):
            kt.contact.closest_points(kt.Transform(), kt.ContactGeometry.Sphere(0.1),
                                      kt.Transform(kt.Rotation(), [gap, 0, 0]), shape)


def _rigid() -> None:
    """The rigid-contact stepper's impulse solve: a box on a floor, a few steps."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    kt.Force.UniformGravity(kt.GeneralForceSubsystem(system), matter, [0, -9.81, 0])
    material = kt.ContactMaterial(1e6, 0.0, 0.8, 0.6, 0.0)
    matter.Ground().upd_body().add_contact_surface(
        kt.Transform(kt.Rotation.about_z(-np.pi / 2)),
        kt.ContactSurface(kt.ContactGeometry.HalfSpace(), material))
    body = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(0.01)))
    body.add_contact_surface(kt.Transform(), kt.ContactSurface(
        kt.ContactGeometry.Brick([0.1, 0.1, 0.1]), material))
    box = kt.MobilizedBody.Free(matter.Ground(), body)
    kt.contact.generate_unilateral_contacts(matter, min_cor=0.5)
    state = system.realize_topology()
    box.set_q_to_fit_transform(state, kt.Transform(kt.Rotation(), [0, 0.1005, 0]))
    box.set_u_to_fit_linear_velocity(state, [0.5, -1.0, 0])
    stepper = kt.SemiExplicitEulerTimeStepper(system)
    stepper.initialize(state)
    for k in range(1, 6):
        stepper.step_to(1e-3 * k)


def _urdf(path: str) -> None:
    model = kt.io.load_urdf(path)
    kt.simulate(model.system, model.get_default_state(), SIMULATED_TIME, progress=False)


def jobs() -> tuple[list, list]:
    """(first, then): the warm-up's jobs, each (label, function, arguments); those of
    ``then`` run programs on what ``first`` compiles."""
    from kinetree.registry import FAMILIES, INLINE

    first = [("the engine", _engine, ())]
    for family, (_, registry) in FAMILIES.items():
        codes = tuple(c for name, c in registry.items() if name not in INLINE.get(family, ()))
        half = (len(codes) + 1) // 2 if len(codes) > 8 else len(codes)
        for part in (codes[:half], codes[half:]):
            if part:
                first.append((f"{family} kinds", _kinds, (family, part)))
    then = [("every mobilizer", _every_mobilizer, ()), ("operators", _operators, ()),
            ("the demo", _demo, ()), ("a model with Python", _python_model, ()),
            ("cables", _cables, ()), ("convex shapes", _convex, ()),
            ("rigid contact", _rigid, ())]
    bundled = _compile_cache.PACKAGE_DIR.parents[1] / "models"
    then += [(path.stem, _urdf, (str(path),)) for path in sorted(bundled.glob("urdf/*.urdf"))]
    then += [(path.stem, _opensim, (str(path),))
             for path in sorted(bundled.glob("opensim/*.osim"))]
    return first, then


def _run_job(function, arguments) -> float:
    # A worker's compiling is what the warm-up is for: no notice that a program compiles.
    logging.getLogger("kinetree").setLevel(logging.ERROR)
    start = time.process_time()
    function(*arguments)
    return time.process_time() - start


def warm_up(workers: int | None = None, progress: bool = True) -> float:
    """Run the jobs on ``workers`` processes (every core by default), with a progress bar;
    returns the CPU seconds they took in all."""
    from tqdm import tqdm

    first, then = jobs()
    workers = workers or os.cpu_count() or 1
    cpu = 0.0
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(workers, mp_context=context) as pool, \
            tqdm(total=len(first) + len(then), desc="kinetree warmup", unit="job",
                 disable=not progress) as bar:
        pending = {pool.submit(_run_job, f, a): label for label, f, a in first}
        engine = next(iter(pending))
        while pending:
            done, _ = concurrent.futures.wait(
                pending, return_when=concurrent.futures.FIRST_COMPLETED)
            for future in done:
                bar.set_postfix_str(pending.pop(future))
                cpu += future.result()
                bar.update()
                if future is engine:  # the programs need the engine the first job compiles
                    pending.update({pool.submit(_run_job, f, a): label
                                    for label, f, a in then})
    return cpu


def main(workers: int | None = None, force: bool = False) -> int:
    """Run the warm-up (unless this source's kernels are already warm, or ``force``) and
    say how long it took and where the compiled kernels are."""
    where = _compile_cache.cache_dir
    if where is None:
        print("kinetree warmup: the kernels cannot be cached (no writable folder): set "
              "NUMBA_CACHE_DIR to a writable folder.")
        return 1
    marker = where / _compile_cache.WARMED
    if marker.exists() and not force:
        print(f"kinetree warmup: already done for this version; compiled kernels are cached "
              f"in {where}")
        return 0
    start = time.perf_counter()
    cpu = warm_up(workers)
    seconds = time.perf_counter() - start
    marker.touch()
    print(f"kinetree warmup: done in {seconds:.1f} s ({cpu:.0f} s of CPU); compiled kernels "
          f"are cached in {where}")
    return 0

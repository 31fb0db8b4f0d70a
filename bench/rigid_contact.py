"""Rigid contact against MuJoCo in the same process: boxes resting on a floor, one step of
1 ms each; and a stack of boxes left standing for 10 s.

kinetree: Free bodies with a Brick each, their corner contacts generated
(``kt.contact.generate_unilateral_contacts``), stepped by the SemiExplicitEulerTimeStepper.
MuJoCo: the same boxes as free box geoms on a plane, ``mj_step`` with its defaults
(Euler, the Newton solver, pyramidal cones). Both at rest on the floor, so that every
step solves the contacts.

The stack (``--stack N``): N boxes, each 3 mm off the one below, stepped at 2 ms for 10 s
by kinetree (its box-box patches made at each step), with the largest speed and the
worst departure from the stacked heights at the end; then one step's time of each engine
on the same stack.

The pile (``--pile``): 100 boxes in four layers of 5 x 5, each turned about the vertical
by a random angle and moved a little, dropped from 1-7 cm: after 1 s at 2 ms (kinetree's
constraint tolerance 0.1 mm), the largest rise of the total energy in a step, the
largest speed, and one step's time of each engine on the settled pile.

The quadruped (``--quadruped``): a URDF robot (a 5 kg base box, four legs of two pitch
joints each, cylinder links and sphere feet) loaded with ``contact_model="rigid"``, its
joints held straight by springs and dampers, standing on the floor; one 1 ms step of
each engine (MuJoCo: the same robot in MJCF, its joints' stiffness and damping).

Run: ``.venv/bin/python bench/rigid_contact.py [--boxes N ...] [--stack N] [--pile]
[--quadruped]``.
"""

from __future__ import annotations

import argparse
import math
import time

import mujoco
import numpy as np
from timing import interleaved_best

import kinetree as kt

HALF = np.array([0.1, 0.05, 0.08])
MASS, STEP = 1.0, 1e-3


def pile_layout(layers: int = 4, side: int = 5, seed: int = 0) -> list:
    """(position (y up, m), turn about y (rad)) of each box of the pile."""
    rng = np.random.default_rng(seed)
    return [([a * 0.25 + rng.uniform(-0.02, 0.02), 0.06 + layer * 0.12,
              b * 0.2 + rng.uniform(-0.02, 0.02)], rng.uniform(0, math.pi / 2))
            for layer in range(layers) for a in range(side) for b in range(side)]


def kinetree_boxes(n: int, stacked: bool = False, step_size: float = STEP,
                   layout: list | None = None, tolerance: float = 1e-6):
    """(one-step function, the stepper, the boxes) for n boxes resting side by side,
    stacked each 3 mm off the one below, or placed by ``layout`` (``pile_layout``)."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    kt.Force.UniformGravity(kt.GeneralForceSubsystem(system), matter, [0, -9.81, 0])
    material = kt.ContactMaterial(1e6, 0.0, 0.8, 0.6, 0.0)
    matter.Ground().upd_body().add_contact_surface(
        kt.Transform(kt.Rotation.about_z(-math.pi / 2)),
        kt.ContactSurface(kt.ContactGeometry.HalfSpace(), material))
    inertia = kt.Inertia(*(MASS / 3 * (np.sum(HALF ** 2) - HALF ** 2)))
    boxes = []
    for _ in range(n):
        body = kt.Body.Rigid(kt.MassProperties(MASS, [0, 0, 0], inertia))
        body.add_contact_surface(kt.Transform(), kt.ContactSurface(
            kt.ContactGeometry.Brick(HALF), material))
        boxes.append(kt.MobilizedBody.Free(matter.Ground(), body))
    kt.contact.generate_unilateral_contacts(matter)
    state = system.realize_topology()
    for i, box in enumerate(boxes):
        at = [0.003 * i, HALF[1] * (2 * i + 1), 0] if stacked \
            else [3 * HALF[0] * i, HALF[1], 0]
        turn = kt.Rotation()
        if layout is not None:
            at, angle = layout[i]
            turn = kt.Rotation.about_y(angle)
        box.set_q_to_fit_transform(state, kt.Transform(turn, at))
    stepper = kt.SemiExplicitEulerTimeStepper(system)
    stepper.set_constraint_tolerance(tolerance)
    stepper.initialize(state)

    def step():
        stepper.step_to(stepper.get_time() + step_size)

    return step, stepper, boxes


def mujoco_boxes(n: int, stacked: bool = False, step_size: float = STEP,
                 layout: list | None = None):
    """MuJoCo's one-step function on the same scene (z up: kinetree's (x, y, z) is
    MuJoCo's (x, z, y), turns about y are turns about z)."""
    def at(i):
        if layout is not None:
            (x, y, z), angle = layout[i]
            return f"{x} {z} {y}\" euler=\"0 0 {-math.degrees(angle)}"
        return f"{0.003 * i} 0 {HALF[1] * (2 * i + 1)}" if stacked \
            else f"{3 * HALF[0] * i} 0 {HALF[1]}"
    bodies = "".join(
        f'<body pos="{at(i)}"><freejoint/>'
        f'<geom type="box" size="{HALF[0]} {HALF[2]} {HALF[1]}" mass="{MASS}" '
        f'friction="0.8"/></body>' for i in range(n))
    model = mujoco.MjModel.from_xml_string(
        f'<mujoco><option timestep="{step_size}"/><size memory="64M"/><worldbody>'
        f'<geom type="plane" size="10 10 0.1"/>{bodies}</worldbody></mujoco>')
    data = mujoco.MjData(model)
    for _ in range(200):
        mujoco.mj_step(model, data)

    def step():
        mujoco.mj_step(model, data)

    return step


def stack(n: int, seconds: float = 10.0, step_size: float = 2e-3) -> None:
    step, stepper, boxes = kinetree_boxes(n, stacked=True, step_size=step_size)
    start = time.perf_counter()
    for _ in range(int(round(seconds / step_size))):
        step()
    wall = time.perf_counter() - start
    state = stepper.get_state()
    speed = max(np.abs(b.get_body_origin_velocity(state)).max() for b in boxes)
    height = max(abs(b.get_body_origin_location(state)[1] - HALF[1] * (2 * i + 1))
                 for i, b in enumerate(boxes))
    print(f"{n}-box stack, {seconds:g} s at {step_size * 1e3:g} ms: largest speed "
          f"{speed:.1e} m/s, heights off by {height:.1e} m at most; {wall:.1f} s wall")
    theirs = mujoco_boxes(n, stacked=True, step_size=step_size)
    t_kt, t_mj = interleaved_best([step, theirs], rounds=3)
    print(f"  a step: kinetree {t_kt * 1e3:.2f} ms, MuJoCo {t_mj * 1e6:.1f} µs, "
          f"ratio {t_kt / t_mj:.0f}")


def pile(seconds: float = 1.0, step_size: float = 2e-3) -> None:
    layout = pile_layout()
    step, stepper, boxes = kinetree_boxes(len(layout), step_size=step_size, layout=layout,
                                          tolerance=1e-4)
    system = stepper._system
    energy = []
    start = time.perf_counter()
    for _ in range(int(round(seconds / step_size))):
        step()
        state = stepper.get_state()
        system.realize(state, kt.Stage.DYNAMICS)
        energy.append(system.calc_energy(state))
    wall = time.perf_counter() - start
    state = stepper.get_state()
    speed = max(np.abs(b.get_body_origin_velocity(state)).max() for b in boxes)
    print(f"{len(layout)}-box pile, {seconds:g} s at {step_size * 1e3:g} ms: energy "
          f"{energy[0]:.6f} -> {energy[-1]:.6f} J, largest rise in a step "
          f"{max(np.diff(energy)):.1e} J; largest speed {speed:.1e} m/s; {wall:.1f} s wall")
    theirs = mujoco_boxes(len(layout), step_size=step_size, layout=layout)
    for _ in range(int(round(seconds / step_size))):
        theirs()
    t_kt, t_mj = interleaved_best([step, theirs], rounds=3)
    print(f"  a step of the settled pile: kinetree {t_kt * 1e3:.2f} ms, MuJoCo "
          f"{t_mj * 1e3:.2f} ms, ratio {t_kt / t_mj:.1f}")


LEG, FOOT, STIFFNESS, DAMPING = 0.2, 0.025, 200.0, 0.5
CORNERS = [(0.15, 0.08), (0.15, -0.08), (-0.15, 0.08), (-0.15, -0.08)]


def _quadruped_urdf() -> str:
    def cylinder(name, mass, extra=""):
        return (f'<link name="{name}"><inertial><origin xyz="0 0 {-LEG / 2}"/>'
                f'<mass value="{mass}"/><inertia ixx="0.002" iyy="0.002" izz="0.0002" '
                f'ixy="0" ixz="0" iyz="0"/></inertial><collision><origin '
                f'xyz="0 0 {-LEG / 2}"/><geometry><cylinder radius="0.02" '
                f'length="{LEG}"/></geometry></collision>{extra}</link>')
    foot = (f'<collision><origin xyz="0 0 {-LEG}"/><geometry><sphere radius="{FOOT}"/>'
            f'</geometry></collision>')
    links = ['<link name="base"><inertial><mass value="5"/><inertia ixx="0.02" '
             'iyy="0.07" izz="0.08" ixy="0" ixz="0" iyz="0"/></inertial><collision>'
             '<geometry><box size="0.4 0.2 0.1"/></geometry></collision></link>']
    for k, (x, y) in enumerate(CORNERS):
        links.append(cylinder(f"thigh{k}", 0.5))
        links.append(cylinder(f"shank{k}", 0.3, foot))
        links.append(f'<joint name="hip{k}" type="revolute"><parent link="base"/><child '
                     f'link="thigh{k}"/><origin xyz="{x} {y} -0.05"/><axis xyz="0 1 0"/>'
                     f'<limit lower="-2" upper="2" effort="50" velocity="10"/></joint>')
        links.append(f'<joint name="knee{k}" type="revolute"><parent link="thigh{k}"/>'
                     f'<child link="shank{k}"/><origin xyz="0 0 {-LEG}"/><axis '
                     f'xyz="0 1 0"/><limit lower="-2" upper="2" effort="50" velocity="10"/>'
                     f'</joint>')
    return f'<robot name="quadruped">{"".join(links)}</robot>'


def kinetree_quadruped(step_size: float = STEP):
    import pathlib
    import tempfile
    with tempfile.TemporaryDirectory() as folder:
        path = pathlib.Path(folder) / "quadruped.urdf"
        path.write_text(_quadruped_urdf())
        material = kt.ContactMaterial(1e6, 0.0, 0.8, 0.6, 0.0)
        model = kt.io.load_urdf(path, floating_base=True, contact_material=material,
                                contact_model="rigid")
    matter, forces = model.matter, model.forces
    matter.Ground().upd_body().add_contact_surface(
        kt.Transform(kt.Rotation.about_y(math.pi / 2)),
        kt.ContactSurface(kt.ContactGeometry.HalfSpace(), material))
    for name, body in model.bodies.items():
        if name.startswith(("thigh", "shank")):
            kt.Force.MobilityLinearSpring(forces, body, 0, STIFFNESS, 0.0)
            kt.Force.MobilityLinearDamper(forces, body, 0, DAMPING)
    kt.contact.generate_unilateral_contacts(matter)
    state = model.system.realize_topology()
    model.bodies["base"].set_q_to_fit_transform(
        state, kt.Transform(kt.Rotation(), [0, 0, 0.05 + 2 * LEG + FOOT]))
    stepper = kt.SemiExplicitEulerTimeStepper(model.system)
    stepper.set_constraint_tolerance(1e-6)
    stepper.initialize(state)

    def step():
        stepper.step_to(stepper.get_time() + step_size)

    return step, stepper, model


def mujoco_quadruped(step_size: float = STEP):
    legs = "".join(
        f'<body pos="{x} {y} -0.05"><joint type="hinge" axis="0 1 0" stiffness="{STIFFNESS}" '
        f'damping="{DAMPING}"/><geom type="cylinder" size="0.02 {LEG / 2}" '
        f'pos="0 0 {-LEG / 2}" mass="0.5"/><body pos="0 0 {-LEG}"><joint type="hinge" '
        f'axis="0 1 0" stiffness="{STIFFNESS}" damping="{DAMPING}"/><geom '
        f'type="cylinder" size="0.02 {LEG / 2}" pos="0 0 {-LEG / 2}" mass="0.3"/><geom '
        f'type="sphere" size="{FOOT}" pos="0 0 {-LEG}" mass="0" friction="0.8"/></body>'
        f'</body>' for x, y in CORNERS)
    model = mujoco.MjModel.from_xml_string(
        f'<mujoco><option timestep="{step_size}"/><worldbody><geom type="plane" '
        f'size="10 10 0.1"/><body pos="0 0 {0.05 + 2 * LEG + FOOT}"><freejoint/><geom '
        f'type="box" size="0.2 0.1 0.05" mass="5"/>{legs}</body></worldbody></mujoco>')
    data = mujoco.MjData(model)
    for _ in range(500):
        mujoco.mj_step(model, data)

    def step():
        mujoco.mj_step(model, data)

    return step


def quadruped() -> None:
    step, stepper, model = kinetree_quadruped()
    for _ in range(500):
        step()
    state = stepper.get_state()
    height = model.bodies["base"].get_body_origin_location(state)[2]
    print(f"quadruped after 0.5 s: base at {height:.6f} m (legs straight: "
          f"{0.05 + 2 * LEG + FOOT:.6f} m)")
    t_kt, t_mj = interleaved_best([step, mujoco_quadruped()], rounds=5)
    print(f"  a step: kinetree {t_kt * 1e6:.1f} µs, MuJoCo {t_mj * 1e6:.1f} µs, ratio "
          f"{t_kt / t_mj:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boxes", type=int, nargs="*", default=[1, 10])
    parser.add_argument("--stack", type=int, default=0)
    parser.add_argument("--pile", action="store_true")
    parser.add_argument("--quadruped", action="store_true")
    args = parser.parse_args()
    print(f"{'boxes':>5} {'kinetree':>12} {'MuJoCo':>12} {'ratio':>8}")
    for n in args.boxes:
        ours, theirs = kinetree_boxes(n)[0], mujoco_boxes(n)
        for _ in range(20):
            ours()
        t_kt, t_mj = interleaved_best([ours, theirs], rounds=5)
        print(f"{n:5d} {t_kt * 1e6:10.1f}µs {t_mj * 1e6:10.1f}µs {t_kt / t_mj:8.1f}")
    if args.stack:
        stack(args.stack)
    if args.pile:
        pile()
    if args.quadruped:
        quadruped()


if __name__ == "__main__":
    main()

"""Rigid contact against MuJoCo in the same process: boxes resting on a floor, one step of
1 ms each.

kinetree: Free bodies with a Brick each, their corner contacts generated
(``kt.contact.generate_unilateral_contacts``), stepped by the SemiExplicitEulerTimeStepper.
MuJoCo: the same boxes as free box geoms on a plane, ``mj_step`` with its defaults
(Euler, the Newton solver, pyramidal cones). Both at rest on the floor, so that every
step solves the contacts.

Run: ``.venv/bin/python bench/rigid_contact.py [--boxes N ...]``.
"""

from __future__ import annotations

import argparse
import math

import mujoco
import numpy as np
from timing import interleaved_best

import kinetree as kt

HALF = np.array([0.1, 0.05, 0.08])
MASS, STEP = 1.0, 1e-3


def kinetree_boxes(n: int):
    """A stepper and its one-step function for n boxes resting side by side."""
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
        box.set_q_to_fit_transform(state, kt.Transform(kt.Rotation(),
                                                       [3 * HALF[0] * i, HALF[1], 0]))
    stepper = kt.SemiExplicitEulerTimeStepper(system)
    stepper.set_constraint_tolerance(1e-6)
    stepper.initialize(state)

    def step():
        stepper.step_to(stepper.get_time() + STEP)

    return step


def mujoco_boxes(n: int):
    """MuJoCo's model and data of the same scene (z up), and its one-step function."""
    bodies = "".join(
        f'<body pos="{3 * HALF[0] * i} 0 {HALF[1]}"><freejoint/>'
        f'<geom type="box" size="{HALF[0]} {HALF[2]} {HALF[1]}" mass="{MASS}" '
        f'friction="0.8"/></body>' for i in range(n))
    model = mujoco.MjModel.from_xml_string(
        f'<mujoco><option timestep="{STEP}"/><worldbody>'
        f'<geom type="plane" size="10 10 0.1"/>{bodies}</worldbody></mujoco>')
    data = mujoco.MjData(model)
    for _ in range(200):
        mujoco.mj_step(model, data)

    def step():
        mujoco.mj_step(model, data)

    return step


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boxes", type=int, nargs="*", default=[1, 10])
    args = parser.parse_args()
    print(f"{'boxes':>5} {'kinetree':>12} {'MuJoCo':>12} {'ratio':>8}")
    for n in args.boxes:
        ours, theirs = kinetree_boxes(n), mujoco_boxes(n)
        for _ in range(20):
            ours()
        t_kt, t_mj = interleaved_best([ours, theirs], rounds=5)
        print(f"{n:5d} {t_kt * 1e6:10.1f}µs {t_mj * 1e6:10.1f}µs {t_kt / t_mj:8.1f}")


if __name__ == "__main__":
    main()

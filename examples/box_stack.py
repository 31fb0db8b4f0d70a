"""A stack of ten boxes on the floor, in rigid contact: each box rests on the patch its
face shares with the one below (generated at each step from the boxes' surfaces, up to
four points), and the stack stands without creeping or sinking. Compliant contact would
let it sink into itself by the springs' compression and sway with their stiffness."""

import math

import numpy as np

import kinetree as kt

BOXES, HALF, STEP = 10, np.array([0.1, 0.05, 0.08]), 2e-3
TOLERANCE = 1e-6                     # the stepper's constraint tolerance (m)


def build():
    """(system, boxes): ten 1 kg boxes stacked, each shifted 3 mm along x and resting
    0.1 mm above the one below."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    kt.Force.UniformGravity(kt.GeneralForceSubsystem(system), matter, [0, -9.81, 0])
    wood = kt.ContactMaterial(1e6, 0.0, 0.6, 0.5, 0.0)
    # The floor: a half space (x > 0 of its frame) turned so that it fills y < 0.
    matter.Ground().upd_body().add_contact_surface(
        kt.Transform(kt.Rotation.about_z(-math.pi / 2)),
        kt.ContactSurface(kt.ContactGeometry.HalfSpace(), wood))
    inertia = kt.Inertia(*(np.sum(HALF ** 2) - HALF ** 2) / 3)
    boxes = []
    for _ in range(BOXES):
        body = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], inertia))
        body.add_contact_surface(kt.Transform(), kt.ContactSurface(
            kt.ContactGeometry.Brick(HALF), wood))
        boxes.append(kt.MobilizedBody.Free(matter.Ground(), body))
    kt.contact.generate_unilateral_contacts(matter)
    return system, boxes


def run(seconds: float):
    """The boxes' heights (m) and largest speed (m/s) after ``seconds``."""
    system, boxes = build()
    state = system.realize_topology()
    for i, box in enumerate(boxes):
        box.set_q_to_fit_transform(state, kt.Transform(
            kt.Rotation(), [0.003 * i, HALF[1] * (2 * i + 1) + 1e-4, 0]))
    stepper = kt.SemiExplicitEulerTimeStepper(system)
    stepper.set_constraint_tolerance(TOLERANCE)
    stepper.initialize(state)
    for k in range(1, int(round(seconds / STEP)) + 1):
        stepper.step_to(k * STEP)
    final = stepper.get_state()
    heights = np.array([box.get_body_origin_location(final)[1] for box in boxes])
    speed = max(np.abs(box.get_body_origin_velocity(final)).max() for box in boxes)
    return heights, speed


if __name__ == "__main__":
    heights, speed = run(2.0)
    stacked = HALF[1] * (2 * np.arange(BOXES) + 1)
    print(f"{BOXES} boxes after 2 s: heights off the stacked ones by "
          f"{np.abs(heights - stacked).max():.1e} m at most, largest speed {speed:.1e} m/s")
    assert np.abs(heights - stacked).max() <= BOXES * TOLERANCE
    assert speed < 1e-6

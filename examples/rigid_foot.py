"""A biped's foot, a box, stands on the floor as a rigid body and is pushed sideways:
Simbody's rigid-contact design (unilateral contacts at its corners, generated from its
contact surface, enforced by impulses in a SemiExplicitEulerTimeStepper). Pushed below
μs m g it does not creep at all; pushed harder it slides at (F - μd m g) / m.

Compliant contact would need a stiff floor and small steps to keep the foot from sinking
and creeping; rigid contact has neither."""

import math

import numpy as np

import kinetree as kt

MASS, G = 1.2, 9.81
MU_STATIC, MU_DYNAMIC = 0.8, 0.6
STEP = 1e-3
SOLE = np.array([0.12, 0.03, 0.05])         # the foot's half lengths (m)



def build(force: float):
    """(system, foot, its contacts): the foot standing on the floor, pushed by ``force``
    (N) along x at its centre."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -G, 0])
    rubber = kt.ContactMaterial(1e6, 0.0, MU_STATIC, MU_DYNAMIC, 0.0)
    # The floor: a half space (x > 0 of its frame) turned so that it fills y < 0.
    matter.Ground().upd_body().add_contact_surface(
        kt.Transform(kt.Rotation.about_z(-math.pi / 2)),
        kt.ContactSurface(kt.ContactGeometry.HalfSpace(), rubber))
    foot_body = kt.Body.Rigid(kt.MassProperties(MASS, [0, 0, 0],
                                                kt.Inertia(0.0014, 0.0067, 0.0061)))
    foot_body.add_contact_surface(kt.Transform(), kt.ContactSurface(
        kt.ContactGeometry.Brick(SOLE), rubber))
    foot = kt.MobilizedBody.Free(matter.Ground(), foot_body)
    contacts = kt.contact.generate_unilateral_contacts(matter)   # sole on floor
    kt.Force.ConstantForce(forces, foot, [0, 0, 0], [force, 0, 0])
    return system, foot, contacts


def run(force: float, seconds: float) -> tuple[np.ndarray, int]:
    """The foot's velocity along x (m/s) at each step, pushed by ``force`` (N), and the
    number of its contacts with the floor at the end (its sole's four corners)."""
    system, foot, contacts = build(force)
    state = system.realize_topology()
    foot.set_q_to_fit_transform(state, kt.Transform(kt.Rotation(), [0, SOLE[1], 0]))
    stepper = kt.SemiExplicitEulerTimeStepper(system)
    stepper.set_constraint_tolerance(1e-6)
    stepper.initialize(state)
    speeds = []
    for k in range(1, int(round(seconds / STEP)) + 1):
        stepper.step_to(k * STEP)
        speeds.append(foot.get_body_origin_velocity(stepper.get_state())[0])
    touching = contacts.find(stepper.get_state(), stepper.get_constraint_tolerance_in_use())
    return np.array(speeds), len(touching.key)


if __name__ == "__main__":
    weight = MASS * G
    held, corners = run(0.7 * MU_STATIC * weight, 0.5)
    slid, _ = run(1.2 * MU_STATIC * weight, 0.5)
    rate = (slid[-1] - slid[199]) / (STEP * (len(slid) - 200))
    expected = (1.2 * MU_STATIC * weight - MU_DYNAMIC * weight) / MASS
    print(f"{corners} corners on the floor")
    print(f"pushed at 0.7 μs m g: fastest creep {np.abs(held).max():.1e} m/s")
    print(f"pushed at 1.2 μs m g: accelerates at {rate:.6f} m/s² "
          f"(Coulomb: {expected:.6f})")
    assert corners == 4 and np.abs(held).max() < 1e-9
    assert abs(rate - expected) < 1e-6 * expected

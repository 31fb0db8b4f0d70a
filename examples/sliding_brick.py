"""A brick slides down a 30° ramp on elastic-foundation contact (a spring at each face of its
mesh) while a rubber ball, dropped beside it with backspin, bounces and rolls: compliant
contact with Stribeck friction, checked against Coulomb's law for the slide."""

import math

import numpy as np

import kinetree as kt

RAMP = math.radians(30.0)
MU_STATIC, MU_DYNAMIC = 0.5, 0.3          # tan(30°) = 0.58 > 0.5: the brick must slide

system = kt.MultibodySystem()
matter = kt.SimbodyMatterSubsystem(system)
forces = kt.GeneralForceSubsystem(system)
tracker = kt.ContactTrackerSubsystem(system)
contact = kt.CompliantContactSubsystem(system, tracker)
contact.set_transition_velocity(1e-3)
kt.Force.UniformGravity(forces, matter, [0, -9.81, 0])

# The ramp: a half space (x > 0 of its frame) turned so that it fills the region below a
# plane through the origin tilted by RAMP about z.
ramp = kt.ContactMaterial(1e8, 2.0, MU_STATIC, MU_DYNAMIC, 0.0)
ramp_pose = kt.Transform(kt.Rotation.about_z(-RAMP) @ kt.Rotation.about_z(-math.pi / 2))
matter.Ground().upd_body().add_contact_surface(
    ramp_pose, kt.ContactSurface(kt.ContactGeometry.HalfSpace(), ramp))

wood = kt.ContactMaterial(1e8, 2.0, MU_STATIC, MU_DYNAMIC, 0.0)
brick_body = kt.Body.Rigid(kt.MassProperties(2.0, [0, 0, 0], kt.Inertia(0.01, 0.02, 0.01)))
brick_body.add_contact_surface(kt.Transform(), kt.ContactSurface(
    kt.ContactGeometry.Brick([0.1, 0.05, 0.08], resolution=3), wood, thickness=0.01))
brick = kt.MobilizedBody.Free(matter.Ground(), brick_body)

rubber = kt.ContactMaterial(5e6, 0.3, 0.9, 0.7, 0.0)
ball_body = kt.Body.Rigid(kt.MassProperties(0.2, [0, 0, 0], kt.Inertia(3.2e-4)))
ball_body.add_contact_surface(kt.Transform(), kt.ContactSurface(
    kt.ContactGeometry.Sphere(0.06), rubber))
ball = kt.MobilizedBody.Free(matter.Ground(), ball_body)

state = system.realize_topology()
tilt = kt.Rotation.about_z(-RAMP)
up, down_slope = tilt.as_matrix() @ [0, 1, 0], tilt.as_matrix() @ [1, 0, 0]
brick.set_q_to_fit_transform(state, kt.Transform(tilt, (0.05 - 5e-6) * up))   # ~at rest
ball.set_q_to_fit_transform(state, kt.Transform(kt.Rotation(), 0.4 * up + [0, 0, 0.3]))
ball.set_u(state, [0, 0, 8.0, 0, 0, 0])

run = kt.simulate(system, state, 0.8, accuracy=1e-4, report_interval=0.02, progress=False)

speed = run.u[:, 3:6] @ down_slope
slope_fit = np.polyfit(run.t[10:], speed[10:], 1)[0]
coulomb = 9.81 * (math.sin(RAMP) - MU_DYNAMIC * math.cos(RAMP))
print(f"brick: acceleration down the ramp {slope_fit:.4f} m/s², Coulomb predicts "
      f"{coulomb:.4f} m/s²")

last = run.states()[-1]
system.realize(last, kt.Stage.DYNAMICS)
for i in range(contact.get_num_contact_forces(last)):
    cf = contact.get_contact_force(last, i)
    print(f"contact {i}: bodies {cf.body1}-{cf.body2}, normal force {cf.normal_force:.2f} N, "
          f"friction {np.linalg.norm(cf.friction_force):.2f} N, depth {cf.depth * 1e3:.3f} mm")
print(f"steps: {run.stats['steps_taken']}")
assert abs(slope_fit - coulomb) < 0.02 * coulomb

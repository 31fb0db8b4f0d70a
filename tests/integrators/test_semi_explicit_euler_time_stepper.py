"""SemiExplicitEulerTimeStepper with unilateral contacts against analytic answers: a ball
dropped with restitution e bounces to e²h, e⁴h, ... (Poisson's and Newton's restitution
agree for one contact); with e = 0 it stays down without jitter; a block on an incline
below the friction angle does not creep, above it slides at g (sin θ - μd cos θ); a joint
reaching a hard stop comes back at e times its speed."""

import math

import numpy as np
import pytest

import kinetree as kt
from kinetree.errors import InvalidArgumentError

G = 9.81


def _ball(e, height=1.0):
    """A 1 kg ball on a vertical slider (q: its height, m), a point on the floor y = 0."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -G, 0])
    body = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(0.01)))
    up = kt.Transform(kt.Rotation.about_z(math.pi / 2))   # the Slider's x onto Ground's y
    ball = kt.MobilizedBody.Slider(matter.Ground(), up, body, up)
    matter.adopt_unilateral_contact(
        kt.PointPlaneContact(matter.Ground(), [0, 1, 0], 0.0, ball, [0, 0, 0], e))
    state = system.realize_topology()
    ball.set_one_q(state, 0, height)
    return system, ball, state


def _run(system, state, h, t_final, tolerance=1e-6, model=None, read=None, solver=None):
    stepper = kt.SemiExplicitEulerTimeStepper(system)
    stepper.set_constraint_tolerance(tolerance)
    if model is not None:
        stepper.set_restitution_model(model)
    if solver is not None:
        stepper.set_impulse_solver_type(solver)
    stepper.initialize(state)
    out = []
    for k in range(1, int(round(t_final / h)) + 1):
        stepper.step_to(k * h)
        out.append(read(stepper.get_state()))
    return np.array(out)


@pytest.mark.parametrize("model", [kt.SemiExplicitEulerTimeStepper.RestitutionModel.POISSON,
                                   kt.SemiExplicitEulerTimeStepper.RestitutionModel.NEWTON])
def test_a_dropped_ball_bounces_to_e_squared_times_its_height(model):
    """Apexes e^(2k) h to the step's error: an impact is met up to one step's travel
    (v h, 4e-4 m here) late."""
    e, h = 0.5, 1e-4
    system, ball, state = _ball(e)
    y = _run(system, state, h, 2.5, model=model, read=lambda s: ball.get_one_q(s, 0))
    apexes = [y[i] for i in range(1, len(y) - 1) if y[i - 1] <= y[i] > y[i + 1]]
    assert len(apexes) >= 4
    for k, apex in enumerate(apexes[:4], start=1):
        assert apex == pytest.approx(e ** (2 * k), abs=2e-4)


def test_without_restitution_it_lands_and_stays_without_jitter():
    system, ball, state = _ball(0.0, height=0.1)
    ys = _run(system, state, 1e-3, 10.0, read=lambda s: (ball.get_one_q(s, 0),
                                                        ball.get_one_u(s, 0)))
    landed = ys[500:]          # from 0.5 s: it falls for 0.14 s
    assert np.abs(landed[:, 1]).max() < 1e-12
    assert np.ptp(landed[:, 0]) < 1e-12
    assert -1e-6 < landed[0, 0] <= 1e-6          # on the floor, within the tolerance


def _incline(theta, mu_s=0.6, mu_d=0.4):
    """A 2 kg block on three translations, its point at its origin on a plane through
    Ground's origin tilted by theta about z (rising toward -x)."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -G, 0])
    body = kt.Body.Rigid(kt.MassProperties(2.0, [0, 0, 0], kt.Inertia(0.01)))
    block = kt.MobilizedBody.Translation(matter.Ground(), body)
    normal = [math.sin(theta), math.cos(theta), 0.0]
    matter.adopt_unilateral_contact(kt.PointPlaneContact(
        matter.Ground(), normal, 0.0, block, [0, 0, 0], 0.0, mu_s, mu_d))
    state = system.realize_topology()
    return system, block, state, np.array([math.cos(theta), -math.sin(theta), 0.0])


def test_below_the_friction_angle_a_block_sticks():
    """tan 20° = 0.36 < μs = 0.6: over 10 s it creeps less than 1e-9 m/s."""
    system, block, state, downhill = _incline(math.radians(20))
    v = _run(system, state, 1e-3, 10.0,
             read=lambda s: block.get_body_origin_velocity(s) @ downhill)
    assert np.abs(v).max() <= 1e-9


def test_above_the_friction_angle_a_block_slides_at_coulombs_rate():
    """tan 35° = 0.70 > μs: a = g (sin θ - μd cos θ) along the incline, once sliding."""
    theta = math.radians(35)
    system, block, state, downhill = _incline(theta)
    h = 1e-3
    v = _run(system, state, h, 1.0, read=lambda s: block.get_body_origin_velocity(s)
             @ downhill)
    a = (v[-1] - v[99]) / (h * (len(v) - 100))
    assert a == pytest.approx(G * (math.sin(theta) - 0.4 * math.cos(theta)), rel=1e-6)


def test_a_joint_at_a_hard_stop_comes_back_at_e_times_its_speed():
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    body = kt.Body.Rigid(kt.MassProperties(1.0, [1, 0, 0], kt.Inertia(0.1, 1.1, 1.1)))
    arm = kt.MobilizedBody.Pin(matter.Ground(), body)
    matter.adopt_unilateral_contact(kt.HardStopUpper(arm, 0, 0.5, 0.8))
    matter.adopt_unilateral_contact(kt.HardStopLower(arm, 0, -0.5, 0.8))
    state = system.realize_topology()
    arm.set_one_u(state, 0, 2.0)
    w = _run(system, state, 1e-4, 0.6, read=lambda s: arm.get_one_u(s, 0))
    assert w.max() == pytest.approx(2.0, rel=1e-12)
    assert w.min() == pytest.approx(-1.6, rel=1e-12)      # e = 0.8 off the upper stop
    assert np.sum(np.diff(np.sign(w)) != 0) == 1


def test_bad_contacts_and_settings_are_refused():
    with pytest.raises(InvalidArgumentError, match="min_cor"):
        kt.HardStopUpper(None, 0, 1.0, 1.5)
    system, ball, _ = _ball(0.5)
    with pytest.raises(InvalidArgumentError, match="mu_d = 0.7 exceeds mu_s = 0.5"):
        kt.PointPlaneContact(system.get_matter_subsystem().Ground(), [0, 1, 0], 0.0, ball,
                             [0, 0, 0], 0.5, 0.5, 0.7)
    stepper = kt.SemiExplicitEulerTimeStepper(system)
    with pytest.raises(InvalidArgumentError, match="ImpulseSolverType member; use one of PLUS"):
        stepper.set_impulse_solver_type(7)
    with pytest.raises(InvalidArgumentError, match="whole number >= 1"):
        stepper.set_max_induced_impacts_per_step(0)
    with pytest.raises(InvalidArgumentError, match="UnilateralContact"):
        system.get_matter_subsystem().adopt_unilateral_contact(ball)


def test_a_rope_going_taut_jerks_its_load_back_at_e_times_its_speed():
    """A ball on a vertical slider falls from 0.5 m below the rope's anchor; at the rope's
    length, 1 m, it moves at √(2 g 0.5) and comes back up at e times that."""
    system, ball, state = _ball(0.0, height=-0.5)
    matter = system.get_matter_subsystem()
    matter.get_unilateral_contact(0).height = -10.0          # the floor out of the way
    matter.adopt_unilateral_contact(
        kt.Rope(matter.Ground(), [0, 0, 0], ball, [0, 0, 0], 1.0, 0.5))
    h = 1e-5
    u = _run(system, state, h, 0.35, read=lambda s: ball.get_one_u(s, 0))
    fall = math.sqrt(2 * G * 0.5)
    assert u.min() == pytest.approx(-fall, abs=G * h)
    assert u[np.argmin(u) + 1] == pytest.approx(0.5 * fall, abs=2 * G * h)


def _box_on_incline(theta, mu_s=0.6, mu_d=0.4):
    """A 3 kg box (0.4 x 0.2 x 0.3 m) on a Free mobilizer resting on a half space tilted
    by theta about z (rising toward -x), its corner contacts generated from the surfaces;
    (system, box, state, contacts, the unit vector down the incline)."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    kt.Force.UniformGravity(kt.GeneralForceSubsystem(system), matter, [0, -G, 0])
    material = kt.ContactMaterial(1e6, 0.0, mu_s, mu_d, 0.0)
    tilt = kt.Rotation.about_z(theta)
    # The HalfSpace fills x > 0 of its frame: turned -90° about z, y < 0; then tilted.
    matter.Ground().upd_body().add_contact_surface(
        kt.Transform(tilt @ kt.Rotation.about_z(-math.pi / 2)),
        kt.ContactSurface(kt.ContactGeometry.HalfSpace(), material))
    half = np.array([0.2, 0.1, 0.15])
    body = kt.Body.Rigid(kt.MassProperties(3.0, [0, 0, 0], kt.Inertia(0.05, 0.08, 0.05)))
    body.add_contact_surface(kt.Transform(),
                             kt.ContactSurface(kt.ContactGeometry.Brick(half), material))
    box = kt.MobilizedBody.Free(matter.Ground(), body)
    contacts = kt.contact.generate_unilateral_contacts(matter)
    state = system.realize_topology()
    up = tilt.as_matrix()[:, 1]
    box.set_q_to_fit_transform(state, kt.Transform(tilt, half[1] * up))
    return system, box, state, contacts, -tilt.as_matrix()[:, 0]


def test_a_box_on_its_generated_corner_contacts_sticks_then_slides():
    """Eight corner contacts, four of them on the incline: at 20° the box stays put
    (creep <= 1e-9 m/s over 2 s); at 35° it slides at g (sin θ - μd cos θ), upright."""
    system, box, state, contacts, down = _box_on_incline(math.radians(20))
    system.realize(state, kt.Stage.POSITION)
    found = contacts.find(state, 1e-9)
    assert len(found.key) == 4 and np.abs(found.separation).max() < 1e-15
    v = _run(system, state, 1e-3, 2.0, read=lambda s: box.get_body_origin_velocity(s))
    assert np.abs(v).max() <= 1e-9
    theta = math.radians(35)
    system, box, state, _, down = _box_on_incline(theta)
    h = 1e-3
    out = _run(system, state, h, 1.0, read=lambda s: np.concatenate((
        [box.get_body_origin_velocity(s) @ down], box.get_body_angular_velocity(s))))
    v = out[:, 0]
    a = (v[-1] - v[99]) / (h * (len(v) - 100))
    assert a == pytest.approx(G * (math.sin(theta) - 0.4 * math.cos(theta)), rel=1e-6)
    # Upright: the first step, from rest, meets Coulomb's cone at each corner and leaves a
    # turn of some 3e-5 rad/s, which the corners take out as it slides.
    assert np.abs(out[:, 1:]).max() < 1e-4
    assert np.abs(out[300:, 1:]).max() < 1e-9


def _floored(mu_s, mu_d, gravity=True):
    """(system, matter, material): a MultibodySystem with gravity (optional) and a floor
    y < 0 of a material with friction μs, μd."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    if gravity:
        kt.Force.UniformGravity(kt.GeneralForceSubsystem(system), matter, [0, -G, 0])
    material = kt.ContactMaterial(1e6, 0.0, mu_s, mu_d, 0.0)
    matter.Ground().upd_body().add_contact_surface(
        kt.Transform(kt.Rotation.about_z(-math.pi / 2)),
        kt.ContactSurface(kt.ContactGeometry.HalfSpace(), material))
    return system, matter, material


def _balls(positions, mu=0.3, e=0.0, gravity=True):
    """Free balls (0.1 m, 1 kg, solid) at ``positions`` over a floor y < 0, their contacts
    generated from their surfaces."""
    system, matter, material = _floored(mu, mu, gravity)
    balls = []
    for _ in positions:
        body = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(0.004)))
        body.add_contact_surface(kt.Transform(), kt.ContactSurface(
            kt.ContactGeometry.Sphere(0.1), material))
        balls.append(kt.MobilizedBody.Free(matter.Ground(), body))
    contacts = kt.contact.generate_unilateral_contacts(matter, min_cor=e)
    state = system.realize_topology()
    for ball, p in zip(balls, positions):
        ball.set_q_to_fit_transform(state, kt.Transform(kt.Rotation(), p))
    return system, balls, state, contacts


def test_adopted_and_generated_contacts_step_together():
    """A ball on a slider with an adopted point contact, dropped from 1 m with e = 0.5,
    beside a free ball resting on the floor on its generated contact: each step solves
    both at once, and each does what it does alone: the dropped ball bounces to e² and
    e⁴ of its height, the resting ball stays put."""
    e = 0.5
    system, matter, material = _floored(0.3, 0.3)
    body = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(0.004)))
    body.add_contact_surface(kt.Transform(), kt.ContactSurface(
        kt.ContactGeometry.Sphere(0.1), material))
    resting = kt.MobilizedBody.Free(matter.Ground(), body)
    up = kt.Transform(kt.Rotation.about_z(math.pi / 2))   # the Slider's x onto Ground's y
    dropped = kt.MobilizedBody.Slider(matter.Ground(), up, kt.Body.Rigid(
        kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(0.01))), up)
    matter.adopt_unilateral_contact(
        kt.PointPlaneContact(matter.Ground(), [0, 1, 0], 0.0, dropped, [0, 0, 0], e))
    kt.contact.generate_unilateral_contacts(matter)
    state = system.realize_topology()
    resting.set_q_to_fit_transform(state, kt.Transform(kt.Rotation(), [2.0, 0.1, 0.0]))
    dropped.set_one_q(state, 0, 1.0)
    out = _run(system, state, 1e-4, 1.6, read=lambda s: np.concatenate((
        [dropped.get_one_q(s, 0)], resting.get_body_origin_location(s),
        resting.get_body_origin_velocity(s))))
    y = out[:, 0]
    apexes = [y[i] for i in range(1, len(y) - 1) if y[i - 1] <= y[i] > y[i + 1]]
    assert len(apexes) >= 2
    for k, apex in enumerate(apexes[:2], start=1):
        assert apex == pytest.approx(e ** (2 * k), abs=2e-4)
    np.testing.assert_allclose(out[:, 1:4], [[2.0, 0.1, 0.0]] * len(out), rtol=0, atol=1e-6)
    assert np.abs(out[:, 4:]).max() <= 1e-9


def test_a_ball_thrown_sliding_rolls_at_five_sevenths_of_its_speed():
    """A solid ball slid without spin on a floor (μ = 0.3): friction slows it and spins it
    up until it rolls, at 5/7 of its speed, after 2 v0 / (7 μ g), and rolls on without
    slipping (ω r = v)."""
    system, (ball,), state, contacts = _balls([[0, 0.1, 0]])
    system.realize(state, kt.Stage.POSITION)
    found = contacts.find(state, 1e-9)
    assert list(found.body_a) == [0] and list(found.body_b) == [1]
    assert found.point[0] == pytest.approx([0, 0, 0], abs=1e-15)
    v0, h = 2.0, 1e-4
    ball.set_u_to_fit_linear_velocity(state, [v0, 0, 0])
    out = _run(system, state, h, 0.4, read=lambda s: np.concatenate((
        ball.get_body_origin_velocity(s), ball.get_body_angular_velocity(s))))
    v, w = out[:, 0], out[:, 5]
    rolling = 2 * v0 / (7 * 0.3 * G)                  # 0.194 s
    assert v[-1] == pytest.approx(5 / 7 * v0, abs=0.3 * G * h)
    assert -w[-1] * 0.1 == pytest.approx(v[-1], rel=1e-9)
    assert np.argmax(np.abs(np.diff(v)) < 1e-12) * h == pytest.approx(rolling, abs=2 * h)


def test_balls_meeting_head_on_exchange_speeds_by_their_restitution():
    """Two equal balls, no gravity, v and 0 along their line of centres: after the impact
    (1 - e) v / 2 and (1 + e) v / 2."""
    e, v = 0.5, 1.0
    system, (a, b), state, contacts = _balls([[0, 1, 0], [0.5, 1, 0]], e=e, gravity=False)
    system.realize(state, kt.Stage.POSITION)
    found = contacts.find(state, 0.5)
    assert (list(found.body_a), list(found.body_b)) == ([1], [2])
    assert found.separation[0] == pytest.approx(0.3)
    a.set_u_to_fit_linear_velocity(state, [v, 0, 0])
    out = _run(system, state, 1e-4, 0.5, read=lambda s: (
        a.get_body_origin_velocity(s)[0], b.get_body_origin_velocity(s)[0]))
    assert out[-1] == pytest.approx([(1 - e) * v / 2, (1 + e) * v / 2], rel=1e-12)


def _boxes_on_a_floor(n, half, hulls=()):
    """n free 1 kg boxes of half lengths ``half`` over a floor y < 0 (μs 0.8, μd 0.6),
    those numbered in ``hulls`` the Convex hulls of their corners, their contacts
    generated; (system, boxes, contacts)."""
    system, matter, material = _floored(0.8, 0.6)
    inertia = kt.Inertia(*(np.sum(half ** 2) - half ** 2) / 3)
    corners = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]) * half
    boxes = []
    for k in range(n):
        body = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], inertia))
        shape = kt.ContactGeometry.Convex(corners) if k in hulls \
            else kt.ContactGeometry.Brick(half)
        body.add_contact_surface(kt.Transform(), kt.ContactSurface(shape, material))
        boxes.append(kt.MobilizedBody.Free(matter.Ground(), body))
    return system, boxes, kt.contact.generate_unilateral_contacts(matter)


@pytest.mark.parametrize("hulls", [(), (0, 2, 3)])
def test_a_stack_of_boxes_stands_on_its_contact_patches(hulls):
    """Four 1 kg boxes stacked, each 3 mm off the one below: their patches (box-box
    manifolds made at each step, corners on the floor) hold them still for 2 s, every
    gap and penetration within the constraint tolerance. Three of them the hulls of
    their corners (a hull on a box, a box on a hull, a hull on a hull: the patches of
    ``polytope_manifold``), the stack stands the same."""
    n, half, tolerance = 4, np.array([0.1, 0.05, 0.1]), 1e-6
    system, boxes, _ = _boxes_on_a_floor(n, half, hulls)
    state = system.realize_topology()
    for i, box in enumerate(boxes):
        box.set_q_to_fit_transform(state, kt.Transform(
            kt.Rotation(), [0.003 * i, half[1] * (2 * i + 1), 0]))
    out = _run(system, state, 2e-3, 2.0, tolerance=tolerance, read=lambda s: np.concatenate(
        [np.concatenate((b.get_body_origin_location(s), b.get_body_origin_velocity(s)))
         for b in boxes]))
    heights = out[:, 1::6]
    assert np.abs(out[:, 3::6]).max() < 1e-9 and np.abs(out[:, 4::6]).max() < 1e-9
    assert np.abs(heights - half[1] * (2 * np.arange(n) + 1)).max() <= n * tolerance


@pytest.mark.parametrize("lying", [False, True])
def test_a_cylinder_rests_on_a_box_standing_or_lying(lying):
    """A 1 kg cylinder standing on a box on the floor (its lower rim's points over the
    box's top), or lying on it along x (the two ends of the line it lies along), each
    dropped from 2 mm: both come to rest and stay still for 1 s, at their stacked
    heights within the constraint tolerance."""
    r, h, half, tolerance = 0.04, 0.06, np.array([0.2, 0.05, 0.15]), 1e-6
    system, (box,), _ = _boxes_on_a_floor(1, half)
    matter = system.get_matter_subsystem()
    material = kt.ContactMaterial(1e6, 0.0, 0.8, 0.6, 0.0)
    body = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(
        (3 * r * r + 4 * h * h) / 12, (3 * r * r + 4 * h * h) / 12, r * r / 2)))
    body.add_contact_surface(kt.Transform(), kt.ContactSurface(
        kt.ContactGeometry.Cylinder(r, h), material))
    cylinder = kt.MobilizedBody.Free(matter.Ground(), body)
    kt.contact.generate_unilateral_contacts(matter)
    state = system.realize_topology()
    box.set_q_to_fit_transform(state, kt.Transform(kt.Rotation(), [0, half[1], 0]))
    turn, height = (kt.Rotation.about_y(math.pi / 2), r) if lying \
        else (kt.Rotation.about_x(-math.pi / 2), h)
    rest = 2 * half[1] + height
    cylinder.set_q_to_fit_transform(state, kt.Transform(turn, [0.03, rest + 2e-3, -0.02]))
    out = _run(system, state, 2e-3, 1.2, tolerance=tolerance, read=lambda s: np.concatenate(
        (cylinder.get_body_origin_location(s), cylinder.get_body_origin_velocity(s),
         cylinder.get_body_angular_velocity(s))))
    still = out[100:]                    # from 0.2 s on, well after the landing
    # the solver's stop, 1e-9 m/s, at the points (a rim's 4 cm from the axis)
    assert np.abs(still[:, 3:6]).max() < 1e-9 and np.abs(still[:, 6:]).max() < 1e-9 / r
    assert np.abs(still[:, 1] - rest).max() <= 3 * tolerance


@pytest.mark.parametrize("hull", [False, True])
def test_a_box_rests_on_the_cap_of_a_wider_cylinder(hull):
    """A 1 kg box (or the hull of its corners) dropped 2 mm onto the top cap of a wider
    3 kg cylinder standing on the floor rests on its lower face's corners over the cap:
    both stay still for 1 s, the box at its stacked height within the constraint
    tolerance."""
    r, h, half, tolerance = 0.2, 0.06, np.array([0.1, 0.05, 0.08]), 1e-6
    system, matter, material = _floored(0.8, 0.6)
    column = kt.Body.Rigid(kt.MassProperties(3.0, [0, 0, 0], kt.Inertia(
        3 * (3 * r * r + 4 * h * h) / 12, 3 * r * r / 2, 3 * (3 * r * r + 4 * h * h) / 12)))
    column.add_contact_surface(kt.Transform(kt.Rotation.about_x(-math.pi / 2)),
                               kt.ContactSurface(kt.ContactGeometry.Cylinder(r, h), material))
    cylinder = kt.MobilizedBody.Free(matter.Ground(), column)
    corners = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]) * half
    body = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(
        *(np.sum(half ** 2) - half ** 2) / 3)))
    body.add_contact_surface(kt.Transform(), kt.ContactSurface(
        kt.ContactGeometry.Convex(corners) if hull else kt.ContactGeometry.Brick(half),
        material))
    box = kt.MobilizedBody.Free(matter.Ground(), body)
    kt.contact.generate_unilateral_contacts(matter)
    state = system.realize_topology()
    cylinder.set_q_to_fit_transform(state, kt.Transform(kt.Rotation(), [0, h, 0]))
    rest = 2 * h + half[1]
    box.set_q_to_fit_transform(state, kt.Transform(kt.Rotation.about_y(0.3),
                                                   [0.03, rest + 2e-3, -0.02]))
    out = _run(system, state, 2e-3, 1.2, tolerance=tolerance, read=lambda s: np.concatenate(
        [np.concatenate((b.get_body_origin_location(s), b.get_body_origin_velocity(s),
                         b.get_body_angular_velocity(s))) for b in (cylinder, box)]))
    still = out[100:]                    # from 0.2 s on, well after the landing
    assert np.abs(still[:, 3:6]).max() < 1e-9 and np.abs(still[:, 12:15]).max() < 1e-9
    assert np.abs(still[:, 6:9]).max() < 1e-8 and np.abs(still[:, 15:18]).max() < 1e-8
    assert np.abs(still[:, 10] - rest).max() <= 3 * tolerance


def test_a_capsule_lies_on_the_floor_on_both_ends_and_rolls_about_its_axis():
    """A capsule dropped lying flat rests on its two end spheres at its radius's height;
    spun about its axis where it lies, friction trades spin for speed until it rolls
    (v = ω r), keeping its angular momentum about the line it touches:
    ω = I ω0 / (I + m r²)."""
    r, half_length = 0.05, 0.2
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    kt.Force.UniformGravity(kt.GeneralForceSubsystem(system), matter, [0, -G, 0])
    material = kt.ContactMaterial(1e6, 0.0, 0.8, 0.8, 0.0)
    matter.Ground().upd_body().add_contact_surface(
        kt.Transform(kt.Rotation.about_z(-math.pi / 2)),
        kt.ContactSurface(kt.ContactGeometry.HalfSpace(), material))
    body = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(0.015, 0.015, 0.001)))
    body.add_contact_surface(kt.Transform(), kt.ContactSurface(
        kt.ContactGeometry.Capsule(r, half_length), material))
    capsule = kt.MobilizedBody.Free(matter.Ground(), body)
    contacts = kt.contact.generate_unilateral_contacts(matter)
    state = system.realize_topology()
    capsule.set_q_to_fit_transform(state, kt.Transform(kt.Rotation(), [0, r + 0.01, 0]))
    system.realize(state, kt.Stage.POSITION)
    found = contacts.find(state, 0.02)
    assert found.point[:, 2] == pytest.approx([half_length, -half_length])
    out = _run(system, state, 1e-3, 0.5, read=lambda s: np.concatenate((
        capsule.get_body_origin_location(s), capsule.get_body_origin_velocity(s))))
    assert out[-1, 1] == pytest.approx(r, abs=1e-6)
    assert np.abs(out[-1, 3:]).max() < 1e-9
    w0, inertia = 10.0, 0.001
    state = system.realize_topology()
    capsule.set_q_to_fit_transform(state, kt.Transform(kt.Rotation(), [0, r, 0]))
    capsule.set_u_to_fit_angular_velocity(state, [0, 0, w0])
    out = _run(system, state, 1e-4, 0.3, read=lambda s: np.concatenate((
        capsule.get_body_origin_velocity(s), capsule.get_body_angular_velocity(s))))
    w = inertia * w0 / (inertia + 1.0 * r ** 2)
    assert out[-1, 5] == pytest.approx(w, rel=1e-3)
    assert out[-1, 0] == pytest.approx(-w * r, rel=1e-3)


def test_a_pile_of_a_hundred_boxes_settles_without_gaining_energy():
    """A hundred 1 kg boxes in four layers of 5 x 5, each turned about the vertical by a
    random angle, dropped 1 to 7 cm: the total energy never rises in a step by more than
    round-off's share, the pile comes to rest, and no contact penetrates by more than the
    constraint tolerance."""
    half, tolerance, h = np.array([0.1, 0.05, 0.08]), 1e-4, 2e-3
    rng = np.random.default_rng(0)
    system, boxes, contacts = _boxes_on_a_floor(100, half)
    state = system.realize_topology()
    for k, box in enumerate(boxes):
        layer, a, b = k // 25, (k // 5) % 5, k % 5
        at = [a * 0.25 + rng.uniform(-0.02, 0.02), 0.06 + 0.12 * layer,
              b * 0.2 + rng.uniform(-0.02, 0.02)]
        box.set_q_to_fit_transform(state, kt.Transform(
            kt.Rotation.about_y(rng.uniform(0, math.pi / 2)), at))
    stepper = kt.SemiExplicitEulerTimeStepper(system)
    stepper.set_constraint_tolerance(tolerance)
    stepper.initialize(state)
    energy = []
    for k in range(1, 201):
        stepper.step_to(k * h)
        s = stepper.get_state()
        system.realize(s, kt.Stage.DYNAMICS)
        energy.append(system.calc_energy(s))
    assert np.diff(energy).max() < 1e-6
    # every box at rest on the one below, four layers 0.1 m apart: each interface within
    # the tolerance of touching, so a box of layer k (0..3) within k + 1 tolerances
    assert energy[-1] == pytest.approx(100 * G * 0.05 * (1 + 3 + 5 + 7) / 4,
                                       abs=100 * G * 2.5 * tolerance)
    assert max(np.abs(b.get_body_origin_velocity(s)).max() for b in boxes) < 1e-5
    assert contacts.find(s, tolerance).separation.min() > -tolerance


def _crossed_edges(e):
    """Ground's edge along x at the origin, facing up (+y), and a free rod's edge along z
    through its centre, facing down; (system, rod, state, contact)."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    kt.Force.UniformGravity(kt.GeneralForceSubsystem(system), matter, [0, -G, 0])
    rod = kt.MobilizedBody.Free(matter.Ground(), kt.Body.Rigid(
        kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(0.02, 0.02, 0.001))))
    down_z = kt.Rotation(np.array([[0.0, -1.0, 0.0], [0.0, 0.0, -1.0], [1.0, 0.0, 0.0]]))
    contact = kt.EdgeEdgeContact(matter.Ground(), kt.Transform(kt.Rotation.about_x(
        -math.pi / 2)), 0.5, rod, kt.Transform(down_z), 0.3, e)
    matter.adopt_unilateral_contact(contact)
    return system, rod, system.realize_topology(), contact


def test_an_edge_dropped_across_an_edge_bounces_to_e_squared_times_its_height():
    """The separation is the distance between the edges' lines (m, along df × db); a rod
    dropped across the edge from 0.5 m, touching at its centre, bounces to e² and e⁴
    times that, and the contact is gone once its point leaves either edge."""
    e, h = 0.5, 1e-4
    system, rod, state, contact = _crossed_edges(e)
    rod.set_q_to_fit_transform(state, kt.Transform(kt.Rotation(), [0.1, 0.5, -0.2]))
    system.realize(state, kt.Stage.POSITION)
    assert contact.get_separation(state) == pytest.approx(0.5, abs=1e-15)
    rod.set_q_to_fit_transform(state, kt.Transform(kt.Rotation.about_y(0.3), [0.1, 0.5, 0]))
    system.realize(state, kt.Stage.POSITION)
    assert contact.get_separation(state) == pytest.approx(0.5, abs=1e-15)
    rod.set_q_to_fit_transform(state, kt.Transform(kt.Rotation(), [0.6, 0.5, 0]))
    system.realize(state, kt.Stage.POSITION)
    assert contact.get_separation(state) == math.inf           # beyond Ground's edge
    rod.set_q_to_fit_transform(state, kt.Transform(kt.Rotation(), [0, 0.5, 0]))
    y = _run(system, state, h, 1.2, read=lambda s: rod.get_body_origin_location(s)[1])
    apexes = [y[i] for i in range(1, len(y) - 1) if y[i - 1] <= y[i] > y[i + 1]]
    assert len(apexes) >= 2
    for k, apex in enumerate(apexes[:2], start=1):
        assert apex == pytest.approx(0.5 * e ** (2 * k), abs=2e-4)
    # an impact is met up to one step's travel late; then it rests on the edge
    assert y.min() > -math.sqrt(2 * G * 0.5) * h and abs(y[-1]) <= 1e-6


@pytest.mark.parametrize("model", [kt.SemiExplicitEulerTimeStepper.InducedImpactModel.SEQUENTIAL,
                                   kt.SemiExplicitEulerTimeStepper.InducedImpactModel.MIXED])
def test_sequential_impacts_make_newtons_cradle(model):
    """Three touching balls in a row, e = 1, the first hitting the others at v: impacts
    resolved in rounds pass the impulse down the row, leaving (0, 0, v), momentum and
    energy kept; at once (SIMULTANEOUS) the row moves off together instead."""
    v = 1.0
    speeds = {}
    for induced in (model, kt.SemiExplicitEulerTimeStepper.InducedImpactModel.SIMULTANEOUS):
        system, balls, state, _ = _balls([[0, 1, 0], [0.2, 1, 0], [0.4, 1, 0]], e=1.0,
                                         gravity=False)
        balls[0].set_u_to_fit_linear_velocity(state, [v, 0, 0])
        stepper = kt.SemiExplicitEulerTimeStepper(system)
        stepper.set_constraint_tolerance(1e-6)
        stepper.set_induced_impact_model(induced)
        stepper.initialize(state)
        stepper.step_to(1e-4)
        speeds[induced] = np.array([b.get_body_origin_velocity(stepper.get_state())[0]
                                    for b in balls])
    assert speeds[model] == pytest.approx([0.0, 0.0, v], abs=1e-9)
    together = speeds[kt.SemiExplicitEulerTimeStepper.InducedImpactModel.SIMULTANEOUS]
    assert together.sum() == pytest.approx(v, rel=1e-9)
    assert together[0] != pytest.approx(0.0, abs=1e-3)


def test_the_plus_solver_meets_coulomb_and_restitution_exactly():
    """PLUS's direct solves on the same problems as PGS: a box on its corners sticks on
    a 20° incline (creep <= 1e-12 m/s) and slides at g (sin θ - μd cos θ) at 35°, and
    balls meeting head on part at (1 ∓ e) v / 2."""
    plus = kt.SemiExplicitEulerTimeStepper.ImpulseSolverType.PLUS
    system, box, state, _, down = _box_on_incline(math.radians(20))
    v = _run(system, state, 1e-3, 0.5, read=lambda s: box.get_body_origin_velocity(s),
             solver=plus)
    assert np.abs(v).max() <= 1e-12
    theta, h = math.radians(35), 1e-3
    system, box, state, _, down = _box_on_incline(theta)
    v = _run(system, state, h, 0.5, read=lambda s: box.get_body_origin_velocity(s) @ down,
             solver=plus)
    a = (v[-1] - v[99]) / (h * (len(v) - 100))
    assert a == pytest.approx(G * (math.sin(theta) - 0.4 * math.cos(theta)), rel=1e-9)
    e = 0.5
    system, (a, b), state, _ = _balls([[0, 1, 0], [0.5, 1, 0]], e=e, gravity=False)
    a.set_u_to_fit_linear_velocity(state, [1.0, 0, 0])
    out = _run(system, state, 1e-4, 0.5, solver=plus, read=lambda s: (
        a.get_body_origin_velocity(s)[0], b.get_body_origin_velocity(s)[0]))
    assert out[-1] == pytest.approx([(1 - e) / 2, (1 + e) / 2], rel=1e-12)

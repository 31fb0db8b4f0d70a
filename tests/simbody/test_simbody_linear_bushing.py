"""A port of Simbody's own test Simbody/tests/TestLinearBushing.cpp to kinetree.

All five subtests, in Simbody's order:

* testParameterSetting: Force.LinearBushing's default frames, stiffness and damping, set
  at construction and by the chained ``set_default_...``, carried into the default State,
  and changed per State by the chained setters.
* testKinematicsAndEnergyConservation: body 2 hangs from a Free body 1 on a Cartesian and
  three Pins with massless bodies between, which move exactly as the bushing measures, so
  the bushing's q and q̇ equal those mobilizers' q and q̇; after 5 s of simulation (RK
  Merson, accuracy 1e-6) energy plus the bushing's dissipated energy is conserved to
  10 x accuracy, and the bushing's frames and velocities equal those found from the bodies.
* testKinematicsAndEnergyConservationUsingBushingMobilizer: the same with a Bushing
  mobilizer in place of the chain.
* testForces: a Free body held to Ground by a bushing (Ground its body 2, so F moves) beside
  the same body on reversed Pins and a reversed Cartesian with mobility springs and dampers
  of the bushing's constants; the reaction of the second equals the bushing's F_GF.
* testForcesUsingReverseBushingMobilizer: the same with a reversed Bushing mobilizer.

Simbody's Test::randRotation etc. are simtk_testing.Random's, seeded (Simbody's own draws
differ by run order); its SimTK_TEST_EQ and SimTK_TEST_EQ_TOL are simtk_testing's, with
Simbody's tolerances. C++'s implicit Vec3 -> Transform, Rotation -> Transform and
MassProperties -> Body conversions are written out. The decorations are kept; they change
nothing.
"""

import math

import numpy as np
from simtk_testing import Random, assert_eq, assert_eq_tol

import kinetree as kt

BLUE, RED, GREEN, PURPLE = [0, 0, 1], [1, 0, 0], [0, 1, 0], [1, 0, 1]


def ugly_body():
    """Simbody's aBody: ugly mass properties, so that every term is tested."""
    mass = 1.234
    return kt.Body.Rigid(kt.MassProperties(
        mass, [.1, .2, .3], mass * kt.Inertia(1, 1.1, 1.2, 0.01, 0.02, 0.03)))


def test_parameter_setting():
    """testParameterSetting."""
    rand = Random(1)
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)

    # This is the frame on body1.
    X_B1F = kt.Transform(rand.rand_rotation(), rand.rand_vec3())
    # This is the frame on body 2.
    X_B2M = kt.Transform(rand.rand_rotation(), rand.rand_vec3())
    # Material properties.
    k = 10 * np.array([1, 2, 1, 1, 5, 1])
    c = 1.3 * np.array([1, .1, 1, .11, 1, 11])

    a_body = ugly_body()

    body1 = kt.MobilizedBody.Free(matter.Ground(), kt.Transform(), a_body, kt.Transform())
    body2 = kt.MobilizedBody.Free(matter.Ground(), kt.Transform(), a_body, kt.Transform())

    bushing = kt.Force.LinearBushing(forces, body1, kt.Transform([1, 2, 3]),
                                     body2, kt.Transform([-2, -3, -4]),
                                     np.full(6, 5.0), np.full(6, 7.0))
    assert_eq(bushing.get_default_frame_on_body1(), kt.Transform([1, 2, 3]))
    assert_eq(bushing.get_default_frame_on_body2(), kt.Transform([-2, -3, -4]))
    assert_eq(bushing.get_default_stiffness(), [5, 5, 5, 5, 5, 5])
    assert_eq(bushing.get_default_damping(), [7, 7, 7, 7, 7, 7])

    bushing.set_default_frame_on_body1(kt.Transform([-1, -2, -3])) \
           .set_default_frame_on_body2(kt.Transform([2, 3, 4])) \
           .set_default_stiffness(np.full(6, 9.0)) \
           .set_default_damping(np.full(6, 11.0))
    assert_eq(bushing.get_default_frame_on_body1(), kt.Transform([-1, -2, -3]))
    assert_eq(bushing.get_default_frame_on_body2(), kt.Transform([2, 3, 4]))
    assert_eq(bushing.get_default_stiffness(), np.full(6, 9.0))
    assert_eq(bushing.get_default_damping(), np.full(6, 11.0))

    system.realize_topology()
    state = system.get_default_state()
    system.realize_model(state)

    # See if defaults transfer to default state properly.
    assert_eq(bushing.get_frame_on_body1(state), kt.Transform([-1, -2, -3]))
    assert_eq(bushing.get_frame_on_body2(state), kt.Transform([2, 3, 4]))
    assert_eq(bushing.get_stiffness(state), np.full(6, 9.0))
    assert_eq(bushing.get_damping(state), np.full(6, 11.0))

    bushing.set_frame_on_body1(state, X_B1F) \
           .set_frame_on_body2(state, X_B2M) \
           .set_stiffness(state, k) \
           .set_damping(state, c)

    assert_eq(bushing.get_frame_on_body1(state), X_B1F)
    assert_eq(bushing.get_frame_on_body2(state), X_B2M)
    assert_eq(bushing.get_stiffness(state), k)
    assert_eq(bushing.get_damping(state), c)


def decorated_body(X_B1F, X_B2M):
    """aBody with Simbody's decorations: an ellipsoid and the two bushing frames."""
    half_shape = np.array([1, .5, .25]) / 2
    a_body = ugly_body()
    a_body.add_decoration(kt.Transform(), kt.DecorativeEllipsoid(half_shape)
                          .set_opacity(0.25).set_color(BLUE))
    a_body.add_decoration(X_B1F, kt.DecorativeFrame(0.5).set_color(RED))
    a_body.add_decoration(X_B2M, kt.DecorativeFrame(0.5).set_color(GREEN))
    return a_body


def simulate_and_check(system, body1, body2, bushing, X_B1F, X_B2M, rand, mobilizer_q):
    """The part the two kinematics-and-energy subtests share: random q and u (no
    translational velocity of body 1), 5 s of simulation, and the checks before and after;
    ``mobilizer_q(state)`` gives (q, q̇) of the mobilizers that mimic the bushing."""
    k = 10 * np.ones(6)
    c = 1 * np.ones(6)

    # Initialize the system and state.
    system.realize_topology()
    state = system.get_default_state()

    bushing.set_frame_on_body1(state, X_B1F) \
           .set_frame_on_body2(state, X_B2M) \
           .set_stiffness(state, k) \
           .set_damping(state, c)

    state.upd_q()[:] = rand.rand_vector(state.get_num_q())
    state.upd_u()[:] = rand.rand_vector(state.get_num_u())
    state.upd_u()[3:6] = 0  # kill translational velocity

    accuracy = 1e-6
    integ = kt.RungeKuttaMersonIntegrator(system)
    integ.set_accuracy(accuracy)
    ts = kt.TimeStepper(system, integ)
    ts.initialize(state)
    istate = integ.get_state()
    system.realize(istate, kt.Stage.VELOCITY)
    mq, mqd = mobilizer_q(istate)

    assert_eq(bushing.get_q(istate), mq)
    assert_eq(bushing.get_q_dot(istate), mqd)

    initial_energy = system.calc_energy(istate)

    assert bushing.get_dissipated_energy(istate) == 0

    # Simulate it.
    ts.step_to(5.0)
    istate = integ.get_state()
    system.realize(istate, kt.Stage.VELOCITY)
    mq, mqd = mobilizer_q(istate)

    assert_eq(bushing.get_q(istate), mq)
    assert_eq(bushing.get_q_dot(istate), mqd)

    # This should account for all the energy.
    final_energy = system.calc_energy(istate) + bushing.get_dissipated_energy(istate)

    assert_eq_tol(initial_energy, final_energy, 10 * accuracy)

    # Let's find everything and see if the bushing agrees.
    X_GB1 = body1.get_body_transform(istate)
    X_GB2 = body2.get_body_transform(istate)
    X_GF = X_GB1 @ X_B1F
    X_GM = X_GB2 @ X_B2M
    assert_eq(X_GF, bushing.get_x_gf(istate))
    assert_eq(X_GM, bushing.get_x_gm(istate))
    assert_eq(X_GF.invert() @ X_GM, bushing.get_x_fm(istate))

    # Calculate velocities and ask the bushing for same.
    V_GB1 = body1.get_body_velocity(istate)
    V_GB2 = body2.get_body_velocity(istate)
    V_GF = np.concatenate([V_GB1[:3], body1.find_station_velocity_in_ground(istate, X_B1F.p)])
    V_GM = np.concatenate([V_GB2[:3], body2.find_station_velocity_in_ground(istate, X_B2M.p)])

    assert_eq(V_GF, bushing.get_v_gf(istate))
    assert_eq(V_GM, bushing.get_v_gm(istate))

    R_FB1 = X_B1F.R.invert()
    V_FM = np.concatenate([
        R_FB1 @ body2.find_body_angular_velocity_in_another_body(istate, body1),
        R_FB1 @ body2.find_station_velocity_in_another_body(istate, X_B2M.p, body1)])

    assert_eq(V_FM, bushing.get_v_fm(istate))


def test_kinematics_and_energy_conservation():
    """testKinematicsAndEnergyConservation: Ground -> body1 (Free) => body2, where => is a
    Cartesian and three Pins (x, y, z) that move as the bushing measures."""
    rand = Random(2)
    # Build system.
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)

    # This is the frame on body1.
    X_B1F = kt.Transform(rand.rand_rotation(), rand.rand_vec3())
    # This is the frame on body 2.
    X_B2M = kt.Transform(rand.rand_rotation(), rand.rand_vec3())

    a_body = decorated_body(X_B1F, X_B2M)

    # Ground attachment frame.
    X_GA = kt.Transform(rand.rand_rotation(), rand.rand_vec3())

    body1 = kt.MobilizedBody.Free(matter.Ground(), X_GA, a_body, X_B2M)

    # This is to keep the system from flying away.
    kt.Force.TwoPointLinearSpring(forces, matter.Ground(), [0, 0, 0], body1, [0, 0, 0],
                                  10, 0)

    massless = kt.Body.Rigid(kt.MassProperties(0, [0, 0, 0], kt.Inertia(0)))
    z_to_x = kt.Transform(kt.Rotation.about_y(math.pi / 2))
    z_to_y = kt.Transform(kt.Rotation.about_x(-math.pi / 2))
    dummy1 = kt.MobilizedBody.Cartesian(body1, X_B1F, massless, kt.Transform())
    dummy2 = kt.MobilizedBody.Pin(dummy1, z_to_x, massless, z_to_x)
    dummy3 = kt.MobilizedBody.Pin(dummy2, z_to_y, massless, z_to_y)
    body2 = kt.MobilizedBody.Pin(dummy3, kt.Transform(),  # about Z
                                 a_body, X_B2M)

    # Set the actual parameters in the State below.
    bushing = kt.Force.LinearBushing(forces, body1, body2, np.zeros(6), np.zeros(6))

    def mobilizer_q(istate):
        q, qdot = istate.get_q(), istate.get_q_dot()
        xyz, ang = q[7:10], q[10:13]
        xyzd, angd = qdot[7:10], qdot[10:13]
        return np.concatenate([ang, xyz]), np.concatenate([angd, xyzd])

    simulate_and_check(system, body1, body2, bushing, X_B1F, X_B2M, rand, mobilizer_q)


def test_kinematics_and_energy_conservation_using_bushing_mobilizer():
    """testKinematicsAndEnergyConservationUsingBushingMobilizer: Ground -> body1 (Free) =>
    body2, where => is a Bushing mobilizer."""
    rand = Random(3)
    # Build system.
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)

    # This is the frame on body1.
    X_B1F = kt.Transform(rand.rand_rotation(), rand.rand_vec3())
    # This is the frame on body 2.
    X_B2M = kt.Transform(rand.rand_rotation(), rand.rand_vec3())

    a_body = decorated_body(X_B1F, X_B2M)

    # Ground attachment frame.
    X_GA = kt.Transform(rand.rand_rotation(), rand.rand_vec3())

    body1 = kt.MobilizedBody.Free(matter.Ground(), X_GA, a_body, X_B2M)

    # This is to keep the system from flying away.
    kt.Force.TwoPointLinearSpring(forces, matter.Ground(), [0, 0, 0], body1, [0, 0, 0],
                                  10, 0)

    body2 = kt.MobilizedBody.Bushing(body1, X_B1F, a_body, X_B2M)

    # Set the actual parameters in the State below.
    bushing = kt.Force.LinearBushing(forces, body1, body2, np.zeros(6), np.zeros(6))

    def mobilizer_q(istate):
        # Get the q's and qdot's from the Bushing mobilizer.
        return body2.get_q(istate), body2.get_q_dot(istate)

    simulate_and_check(system, body1, body2, bushing, X_B1F, X_B2M, rand, mobilizer_q)


def brick_system():
    """The start both force subtests share: no gravity, and brick1 Free from Ground, with
    Simbody's brick body and attachment frame."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, 0 * np.array([0, -9.8, 0]))
    mass = 1
    half_shape = np.array([1, .5, .25]) / 2
    body_attach = kt.Transform(kt.Rotation(), [half_shape[0], 0, 0])
    brick_body = kt.Body.Rigid(kt.MassProperties(
        mass, [.1, .2, .3], mass * kt.Inertia(1, 1.1, 1.2, 0.01, 0.02, 0.03)))
    brick_body.add_decoration(kt.Transform(), kt.DecorativeEllipsoid(half_shape)
                              .set_opacity(0.25).set_color(BLUE))
    brick_body.add_decoration(body_attach, kt.DecorativeFrame(0.5).set_color(RED))
    brick1 = kt.MobilizedBody.Free(matter.Ground(), kt.Transform(), brick_body, body_attach)
    return system, matter, forces, brick_body, body_attach, brick1


def test_forces():
    """testForces: a Free body and a bushing to Ground (Ground its body 2) against the
    same body on reversed Pins and a reversed Cartesian with the bushing's springs and
    dampers as mobility forces: the second's mobilizer reaction is the bushing's F_GF."""
    rand = Random(4)
    # Create the system.
    system, matter, forces, brick_body, body_attach, brick1 = brick_system()

    massless = kt.Body.Rigid(kt.MassProperties(0, [0, 0, 0], kt.Inertia(0)))
    z_to_x = kt.Transform(kt.Rotation.about_y(math.pi / 2))
    z_to_y = kt.Transform(kt.Rotation.about_x(-math.pi / 2))

    # This sequence matches the kinematics of a "reverse" direction bushing, where
    # Ground is body 2 (trickier than the forward one).
    reverse = kt.MobilizedBody.Direction.REVERSE
    dummy1 = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(np.array([1, 1, 1]) + [2, 0, 0]),
                                  massless, kt.Transform(), reverse)
    dummy2 = kt.MobilizedBody.Pin(dummy1, z_to_y, massless, z_to_y, reverse)
    dummy3 = kt.MobilizedBody.Pin(dummy2, z_to_x, massless, z_to_x, reverse)
    brick2 = kt.MobilizedBody.Cartesian(dummy3, kt.Transform(), brick_body, body_attach,
                                        reverse)

    k = np.abs(rand.rand_vec(6))  # must be > 0
    c = np.abs(rand.rand_vec(6))  # "
    ground_attach = kt.Transform(kt.Rotation(), [1, 1, 1])
    matter.Ground().upd_body().add_decoration(ground_attach,
                                              kt.DecorativeFrame(0.5).set_color(GREEN))

    k1, c1 = k, c
    # The reverse version: the moving body is the bushing's first body, Ground its
    # second. A harder test because the F frame is moving.
    bushing = kt.Force.LinearBushing(forces, brick1, body_attach,
                                     matter.Ground(), ground_attach, k1, c1)

    kt.Force.LinearBushing(forces, brick1, brick2, k, c)

    ground_attach2 = kt.Transform(kt.Rotation(), np.array([1, 1, 1]) + [2, 0, 0])
    matter.Ground().upd_body().add_decoration(ground_attach2,
                                              kt.DecorativeFrame(0.5).set_color(GREEN))
    k2, c2 = k, c

    # The force elements that mimic the bushing hooked up in the reverse direction.
    for mobod, which, i in ((dummy3, 0, 0), (dummy2, 0, 1), (dummy1, 0, 2),
                            (brick2, 0, 3), (brick2, 1, 4), (brick2, 2, 5)):
        kt.Force.MobilityLinearSpring(forces, mobod, which, k2[i], 0)
        kt.Force.MobilityLinearDamper(forces, mobod, which, c2[i])

    # Initialize the system and state.
    system.realize_topology()
    state = system.get_default_state()

    RR = rand.rand_rotation()
    brick1.set_q_to_fit_transform(state, kt.Transform(RR))

    q_RR_inv = RR.invert().convert_rotation_to_body_fixed_xyz()

    brick2.set_q_to_fit_transform(state, kt.Transform(RR.invert() @ [-1, -1, -1]))
    dummy3.set_one_q(state, 0, q_RR_inv[0])
    dummy2.set_one_q(state, 0, q_RR_inv[1])
    dummy1.set_one_q(state, 0, q_RR_inv[2])

    system.realize(state, kt.Stage.ACCELERATION)

    reactions = matter.calc_mobilizer_reaction_forces(state)

    assert_eq(bushing.get_f_gf(state), reactions[brick2.get_mobilized_body_index()])


def test_forces_using_reverse_bushing_mobilizer():
    """testForcesUsingReverseBushingMobilizer: testForces with a reversed Bushing
    mobilizer in place of the Pins and the Cartesian."""
    rand = Random(5)
    # Create the system.
    system, matter, forces, brick_body, body_attach, brick1 = brick_system()
    matter.Ground().add_body_decoration(kt.Transform(),
                                        kt.DecorativeFrame(.25).set_color(PURPLE))
    brick1.add_body_decoration(kt.Transform(), kt.DecorativeText("1").set_scale(.25))

    # This mobilizer matches the kinematics of a "reverse" direction bushing where Ground
    # is body 2.
    brick2 = kt.MobilizedBody.Bushing(matter.Ground(),
                                      kt.Transform(np.array([1, 1, 1]) + [2, 0, 0]),
                                      brick_body, body_attach,
                                      kt.MobilizedBody.Direction.REVERSE)
    brick2.add_body_decoration(kt.Transform(), kt.DecorativeText("2").set_scale(.25))

    k = np.abs(rand.rand_vec(6))  # must be > 0
    c = np.abs(rand.rand_vec(6))  # "
    ground_attach = kt.Transform(kt.Rotation(), [1, 1, 1])
    matter.Ground().upd_body().add_decoration(ground_attach,
                                              kt.DecorativeFrame(0.5).set_color(GREEN))

    k1, c1 = k, c

    # Reversed: the moving body is the bushing's first body, Ground its second. A hard
    # test because the F frame is moving.
    bushing = kt.Force.LinearBushing(forces, brick1, body_attach,    # .5,0,0
                                     matter.Ground(), ground_attach,  # 1,1,1
                                     k1, c1)

    kt.Force.LinearBushing(forces, brick1, brick2, k, c)

    ground_attach2 = kt.Transform(kt.Rotation(), np.array([1, 1, 1]) + [2, 0, 0])
    matter.Ground().upd_body().add_decoration(ground_attach2,
                                              kt.DecorativeFrame(0.5).set_color(GREEN))
    k2, c2 = k, c

    # The force elements that mimic the bushing hooked up in the reverse direction.
    for i in range(6):
        kt.Force.MobilityLinearSpring(forces, brick2, i, k2[i], 0)
        kt.Force.MobilityLinearDamper(forces, brick2, i, c2[i])

    # Initialize the system and state.
    system.realize_topology()
    state = system.get_default_state()

    RR = rand.rand_rotation()
    brick1.set_q_to_fit_transform(state, kt.Transform(RR))
    system.realize(state, kt.Stage.POSITION)

    brick2.set_q_to_fit_transform(state, kt.Transform(RR, -np.array([1, 1, 1])))

    system.realize(state, kt.Stage.ACCELERATION)

    reactions = matter.calc_mobilizer_reaction_forces(state)

    assert_eq(bushing.get_f_gf(state), reactions[brick2.get_mobilized_body_index()])

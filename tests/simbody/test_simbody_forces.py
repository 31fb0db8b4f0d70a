"""A port of Simbody's own test Simbody/tests/TestForces.cpp to kinetree.

- testStandardForces: on a chain of ten Gimbal bodies at a random state, each built-in
  element's forces equal the ones worked out by hand (ConstantForce, ConstantTorque,
  GlobalDamper, the Mobility* elements, the TwoPoint* elements, UniformGravity and a
  Force.Custom), to 1e-10;
- testEnergyConservation: with only conservative elements, RungeKuttaMerson at accuracy
  1e-4 keeps the energy to 0.5% over 10 s;
- testCustomRealization: every realize hook of a Force.Custom runs, each once its stage
  is reached;
- testDisabling: the energy and the forces on a body follow which of a spring and gravity
  are enabled;
- testCalcForceContributionsSum: the sum of chosen elements' forces, a disabled one
  contributing nothing.

Simbody checks an element's forces with Force::calcForceContribution, which kinetree does
not have yet; the port asks the subsystem for the same thing,
GeneralForceSubsystem::calcForceContributionsSum of that one element. Where Simbody
indexes a mobilizer's u inside the whole u vector (updOneFromUPartition), the port uses the
mobilizer's first u index. Simbody's default Random::Uniform (uniform in [0, 1)) is a
seeded numpy generator.
"""

import numpy as np

import kinetree as kt

NUM_BODIES = 10
BOND_LENGTH = 0.5


def assert_equal(val1, val2):
    """Simbody's ASSERT_EQUAL: |val1 - val2| < 1e-10."""
    assert abs(val1 - val2) < 1e-10, f"{val1} != {val2}"


def verify_forces(forces, force, state, body_forces, mobility_forces):
    """Simbody's verifyForces: ``force`` alone gives these body forces (bodies x 6) and
    mobility forces, each to 1e-10 (norm per body)."""
    actual_body_forces, actual_mobility_forces = forces.calc_force_contributions_sum(
        state, [force])
    for i in range(body_forces.shape[0]):
        assert np.linalg.norm(body_forces[i] - actual_body_forces[i]) < 1e-10, i
    for i in range(mobility_forces.size):
        assert abs(mobility_forces[i] - actual_mobility_forces[i]) < 1e-10, i


class MyForceImpl(kt.Force.Custom.Implementation):
    """Adds i to the i-th mobility force and records which realize hooks ran."""

    def __init__(self):
        super().__init__()
        self.has_realized = {stage: False for stage in kt.Stage
                             if kt.Stage.TOPOLOGY <= stage <= kt.Stage.REPORT}

    def calc_force(self, state, body_forces, particle_forces, mobility_forces):
        mobility_forces += np.arange(mobility_forces.size)

    def calc_potential_energy(self, state):
        return 0.0

    def realize_topology(self, state):
        self.has_realized[kt.Stage.TOPOLOGY] = True

    def realize_model(self, state):
        self.has_realized[kt.Stage.MODEL] = True

    def realize_instance(self, state):
        self.has_realized[kt.Stage.INSTANCE] = True

    def realize_time(self, state):
        self.has_realized[kt.Stage.TIME] = True

    def realize_position(self, state):
        self.has_realized[kt.Stage.POSITION] = True

    def realize_velocity(self, state):
        self.has_realized[kt.Stage.VELOCITY] = True

    def realize_dynamics(self, state):
        self.has_realized[kt.Stage.DYNAMICS] = True

    def realize_acceleration(self, state):
        self.has_realized[kt.Stage.ACCELERATION] = True

    def realize_report(self, state):
        self.has_realized[kt.Stage.REPORT] = True


def gimbal_chain():
    """A chain of NUM_BODIES unit bodies on Gimbals, each BOND_LENGTH along x from its
    joint."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    body = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(1)))
    for _ in range(NUM_BODIES):
        parent = matter.get_mobilized_body(matter.get_num_bodies() - 1)
        kt.MobilizedBody.Gimbal(parent, kt.Transform([0, 0, 0]), body,
                                kt.Transform([BOND_LENGTH, 0, 0]))
    return system, matter, forces


def random_state(system, rng):
    """The default State with every y uniform in [0, 1)."""
    system.realize_topology()
    state = system.get_default_state()
    state.set_y(rng.random(state.get_num_y()))
    return state


def u_slot(mobod, state, which):
    """The index in u of the mobilizer's u number ``which`` (Simbody's
    updOneFromUPartition)."""
    return mobod.get_first_u_index(state) + which


def test_standard_forces():
    """testStandardForces."""
    system, matter, forces = gimbal_chain()
    # One of each type of force.
    body1 = matter.get_mobilized_body(1)
    body9 = matter.get_mobilized_body(9)
    F = kt.Force
    constant_force = F.ConstantForce(forces, body1, [0, 0, 0], [1, 2, 3])
    constant_torque = F.ConstantTorque(forces, body1, [1, 2, 3])
    global_damper = F.GlobalDamper(forces, matter, 2.0)
    mobility_constant_force = F.MobilityConstantForce(forces, body1, 1, 2.0)
    mobility_linear_damper = F.MobilityLinearDamper(forces, body1, 1, 2.0)
    mobility_linear_spring = F.MobilityLinearSpring(forces, body1, 1, 2.0, 1.0)
    two_point_constant_force = F.TwoPointConstantForce(forces, body1, [0, 0, 0], body9,
                                                       [0, 0, 0], 2.0)
    two_point_linear_damper = F.TwoPointLinearDamper(forces, body1, [0, 0, 0], body9,
                                                     [0, 0, 0], 2.0)
    two_point_linear_spring = F.TwoPointLinearSpring(forces, body1, [0, 0, 0], body9,
                                                     [0, 0, 0], 2.0, 0.5)
    uniform_gravity = F.UniformGravity(forces, matter, [0, -2.0, 0])
    custom = F.Custom(forces, MyForceImpl())

    # A random state.
    state = random_state(system, np.random.default_rng(1))
    system.realize(state, kt.Stage.VELOCITY)
    pos1 = body1.get_body_origin_location(state)
    pos9 = body9.get_body_origin_location(state)
    delta19 = pos9 - pos1
    direction = delta19 / np.linalg.norm(delta19)
    nb, nu = matter.get_num_bodies(), state.get_num_u()

    def zeros():
        return np.zeros((nb, 6)), np.zeros(nu)

    # ConstantForce
    body_forces, mobility_forces = zeros()
    body_forces[1, 3:] = [1, 2, 3]
    verify_forces(forces, constant_force, state, body_forces, mobility_forces)

    # ConstantTorque
    body_forces, mobility_forces = zeros()
    body_forces[1, :3] = [1, 2, 3]
    verify_forces(forces, constant_torque, state, body_forces, mobility_forces)

    # GlobalDamper
    body_forces, _ = zeros()
    mobility_forces = -2.0 * np.array(state.get_u())
    verify_forces(forces, global_damper, state, body_forces, mobility_forces)

    # MobilityConstantForce
    body_forces, mobility_forces = zeros()
    mobility_forces[u_slot(body1, state, 1)] = 2.0
    verify_forces(forces, mobility_constant_force, state, body_forces, mobility_forces)

    # MobilityLinearDamper
    body_forces, mobility_forces = zeros()
    mobility_forces[u_slot(body1, state, 1)] = -2.0 * body1.get_one_u(state, 1)
    verify_forces(forces, mobility_linear_damper, state, body_forces, mobility_forces)

    # MobilityLinearSpring
    body_forces, mobility_forces = zeros()
    mobility_forces[u_slot(body1, state, 1)] = -2.0 * (body1.get_one_q(state, 1) - 1.0)
    verify_forces(forces, mobility_linear_spring, state, body_forces, mobility_forces)

    # TwoPointConstantForce
    body_forces, mobility_forces = zeros()
    body_forces[1, 3:] = -2.0 * direction
    body_forces[9, 3:] = 2.0 * direction
    verify_forces(forces, two_point_constant_force, state, body_forces, mobility_forces)

    # TwoPointLinearDamper
    body_forces, mobility_forces = zeros()
    v19 = body9.get_body_origin_velocity(state) - body1.get_body_origin_velocity(state)
    two_point_linear_damper_force = 2.0 * np.dot(v19, direction)
    body_forces[1, 3:] = two_point_linear_damper_force * direction
    body_forces[9, 3:] = -two_point_linear_damper_force * direction
    verify_forces(forces, two_point_linear_damper, state, body_forces, mobility_forces)

    # TwoPointLinearSpring
    body_forces, mobility_forces = zeros()
    two_point_linear_spring_force = 2.0 * (np.linalg.norm(delta19) - 0.5)
    body_forces[1, 3:] = two_point_linear_spring_force * direction
    body_forces[9, 3:] = -two_point_linear_spring_force * direction
    verify_forces(forces, two_point_linear_spring, state, body_forces, mobility_forces)

    # UniformGravity: every body's mass center is its origin
    body_forces, mobility_forces = zeros()
    body_forces[1:, 3:] = [0, -2.0, 0]
    verify_forces(forces, uniform_gravity, state, body_forces, mobility_forces)

    # Custom
    body_forces, _ = zeros()
    mobility_forces = np.arange(nu, dtype=float)
    verify_forces(forces, custom, state, body_forces, mobility_forces)


def test_energy_conservation():
    """testEnergyConservation: a spring on a Gimbal angle, a spring between bodies 1 and 9
    and gravity conserve the energy, to 0.5% over 10 s at accuracy 1e-4."""
    system, matter, forces = gimbal_chain()
    body1 = matter.get_mobilized_body(1)
    body9 = matter.get_mobilized_body(9)
    kt.Force.MobilityLinearSpring(forces, body1, 1, 0.1, 1.0)
    kt.Force.TwoPointLinearSpring(forces, body1, [0, 0, 0], body9, [0, 0, 0], 1.0, 4.0)
    kt.Force.UniformGravity(forces, matter, [0, -1.0, 0])

    state = random_state(system, np.random.default_rng(2))
    # Simulate for a while and see whether the energy changes.
    system.realize(state, kt.Stage.DYNAMICS)
    initial_energy = system.calc_energy(state)
    integ = kt.RungeKuttaMersonIntegrator(system)
    integ.set_accuracy(1e-4)
    ts = kt.TimeStepper(system, integ)
    ts.initialize(state)
    ts.step_to(10.0)
    final = ts.get_state()
    system.realize(final, kt.Stage.DYNAMICS)
    final_energy = system.calc_energy(final)
    assert abs(initial_energy / final_energy - 1.0) < 0.005


def test_custom_realization():
    """testCustomRealization: realizing through stage j has run the hooks of every stage
    up to j and none after."""
    system = kt.MultibodySystem()
    kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    impl = MyForceImpl()
    kt.Force.Custom(forces, impl)
    state = system.realize_topology()
    for j in range(kt.Stage.MODEL, kt.Stage.REPORT + 1):
        system.realize(state, kt.Stage(j))
        for i in range(kt.Stage.TOPOLOGY, kt.Stage.REPORT + 1):
            assert impl.has_realized[kt.Stage(i)] == (i <= j), (i, j)


def test_disabling():
    """testDisabling: two free bodies 1 m apart, 1 m above Ground, a spring between them
    (k = 2, x0 = 0.5) and gravity (-2 along y); energies and body 1's force for each
    combination of the two enabled."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    body = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(1)))
    body1 = kt.MobilizedBody.Free(matter.upd_ground(), kt.Transform([0, 0, 0]), body,
                                  kt.Transform([0, 0, 0]))
    body2 = kt.MobilizedBody.Free(matter.upd_ground(), kt.Transform([0, 0, 0]), body,
                                  kt.Transform([0, 0, 0]))
    spring = kt.Force.TwoPointLinearSpring(forces, body1, [0, 0, 0], body2, [0, 0, 0], 2.0, 0.5)
    gravity = kt.Force.UniformGravity(forces, matter, [0, -2.0, 0])

    state = system.realize_topology()
    body1.set_q_to_fit_translation(state, [0, 1, 0])
    body2.set_q_to_fit_translation(state, [1, 1, 0])

    # Each force's share of the energy and of the force on body 1.
    spring_energy = 0.5 * 2.0 * 0.5 * 0.5
    spring_force = np.array([0, 0, 0, 2.0 * 0.5, 0, 0])
    gravity_energy = 2 * 2.0
    gravity_force = np.array([0, 0, 0, 0, -2.0, 0])

    def body1_force():
        return system.get_rigid_body_forces(state, kt.Stage.DYNAMICS)[1]

    system.realize(state, kt.Stage.DYNAMICS)
    assert_equal(spring_energy + gravity_energy, system.calc_energy(state))
    assert np.linalg.norm(spring_force + gravity_force - body1_force()) < 1e-10
    assert not forces.is_force_disabled(state, gravity.get_force_index())
    assert not forces.is_force_disabled(state, spring.get_force_index())
    forces.set_force_is_disabled(state, spring.get_force_index(), True)
    system.realize(state, kt.Stage.DYNAMICS)
    assert_equal(gravity_energy, system.calc_energy(state))
    assert np.linalg.norm(gravity_force - body1_force()) < 1e-10
    assert not forces.is_force_disabled(state, gravity.get_force_index())
    assert forces.is_force_disabled(state, spring.get_force_index())
    forces.set_force_is_disabled(state, gravity.get_force_index(), True)
    system.realize(state, kt.Stage.DYNAMICS)
    assert_equal(0, system.calc_energy(state))
    assert np.linalg.norm(body1_force()) < 1e-10
    assert forces.is_force_disabled(state, gravity.get_force_index())
    assert forces.is_force_disabled(state, spring.get_force_index())
    forces.set_force_is_disabled(state, spring.get_force_index(), False)
    system.realize(state, kt.Stage.DYNAMICS)
    assert_equal(spring_energy, system.calc_energy(state))
    assert np.linalg.norm(spring_force - body1_force()) < 1e-10
    assert forces.is_force_disabled(state, gravity.get_force_index())
    assert not forces.is_force_disabled(state, spring.get_force_index())


def test_calc_force_contributions_sum():
    """testCalcForceContributionsSum: ConstantForce, ConstantTorque, a disabled
    GlobalDamper, MobilityConstantForce and TwoPointConstantForce summed."""
    system, matter, forces = gimbal_chain()
    body1 = matter.get_mobilized_body(1)
    body9 = matter.get_mobilized_body(9)
    constant_force = kt.Force.ConstantForce(forces, body1, [0, 0, 0], [1, 2, 3])
    constant_torque = kt.Force.ConstantTorque(forces, body1, [1, 2, 3])
    global_damper = kt.Force.GlobalDamper(forces, matter, 2.0)
    mobility_constant_force = kt.Force.MobilityConstantForce(forces, body1, 1, 2.0)
    two_point_constant_force = kt.Force.TwoPointConstantForce(forces, body1, [0, 0, 0],
                                                              body9, [0, 0, 0], 2.0)

    # The sums must be right with one element disabled.
    system.realize_topology()
    state = system.get_default_state()
    forces.set_force_is_disabled(state, global_damper.get_force_index(), True)
    # A random state.
    state.set_y(np.random.default_rng(3).random(state.get_num_y()))
    system.realize(state, kt.Stage.VELOCITY)
    pos1 = body1.get_body_origin_location(state)
    pos9 = body9.get_body_origin_location(state)
    delta19 = pos9 - pos1
    direction = delta19 / np.linalg.norm(delta19)

    body_forces = np.zeros((matter.get_num_bodies(), 6))
    mobility_forces = np.zeros(state.get_num_u())
    force_indexes = []
    body_forces[1, 3:] += [1, 2, 3]                         # ConstantForce
    force_indexes.append(constant_force.get_force_index())
    body_forces[1, :3] += [1, 2, 3]                         # ConstantTorque
    force_indexes.append(constant_torque.get_force_index())
    # The GlobalDamper is disabled and contributes nothing.
    force_indexes.append(global_damper.get_force_index())
    these_mobility_forces = np.zeros(state.get_num_u())     # MobilityConstantForce
    these_mobility_forces[u_slot(body1, state, 1)] = 2.0
    mobility_forces += these_mobility_forces
    force_indexes.append(mobility_constant_force.get_force_index())
    body_forces[1, 3:] += -2.0 * direction                  # TwoPointConstantForce
    body_forces[9, 3:] += 2.0 * direction
    force_indexes.append(two_point_constant_force.get_force_index())

    actual_body_forces = np.zeros((matter.get_num_bodies(), 6))
    actual_mobility_forces = np.zeros(mobility_forces.size)
    forces.calc_force_contributions_sum(state, force_indexes, actual_body_forces,
                                        actual_mobility_forces)
    for i in range(body_forces.shape[0]):
        assert np.linalg.norm(body_forces[i] - actual_body_forces[i]) < 1e-10, i
    for i in range(mobility_forces.size):
        assert abs(mobility_forces[i] - actual_mobility_forces[i]) < 1e-10, i

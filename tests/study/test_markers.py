"""Markers: inverse kinematics of a 3-D chain (Free root, Ball, Pin, Universal, Gimbal).
Asserted: markers generated from a known random pose are recovered, q to 1e-6 and markers
to 1e-9, from a perturbed guess; with Gaussian noise the result minimizes the weighted
marker error (a finite-difference gradient of the goal, computed independently of Markers,
vanishes, and Markers' analytic gradient matches it elsewhere); the returned goal is
Simbody's ½ Σ w|e|²/Σw; missing (NaN) and reordered observations; frame-by-frame tracking
of a sinusoidal motion with far fewer goal evaluations than cold starts; fitting with a
CoordinateCoupler present keeps it to the tolerance and is stationary on its manifold; and
bad input is refused with clear errors."""

import numpy as np
import pytest

import kinetree as kt
from kinetree.errors import InvalidArgumentError, KinetreeError

LINK = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(0.01)))


def chain(coupled=False):
    """Free pelvis, Ball hip, Pin knee, Universal ankle, Gimbal toe, three random markers
    on each body (seeded); with ``coupled`` the ankle's first angle follows the knee,
    0.5 q_knee - q_ankle + 0.1 = 0. Returns (system, matter, bodies, markers)."""
    rng = np.random.default_rng(7)
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    pelvis = kt.MobilizedBody.Free(matter.Ground(), kt.Transform([0, 1, 0]), LINK,
                                   kt.Transform())
    thigh = kt.MobilizedBody.Ball(pelvis, kt.Transform([0.1, -0.1, 0]), LINK,
                                  kt.Transform([0, 0.4, 0]))
    shank = kt.MobilizedBody.Pin(thigh, kt.Transform(), LINK, kt.Transform([0, 0.4, 0]))
    foot = kt.MobilizedBody.Universal(shank, kt.Transform(), LINK,
                                      kt.Transform([0, 0.05, -0.05]))
    toe = kt.MobilizedBody.Gimbal(foot, kt.Transform([0, 0, 0.1]), LINK,
                                  kt.Transform([0, 0, -0.03]))
    if coupled:
        kt.Constraint.CoordinateCoupler(matter, kt.Function.Linear([0.5, -1.0, 0.1]),
                                        [shank, foot], [0, 0])
    bodies = [pelvis, thigh, shank, foot, toe]
    markers = kt.Markers()
    for b in bodies:
        for k in range(3):
            markers.add_marker(f"b{b.get_mobilized_body_index()}m{k}", b,
                               rng.uniform(-0.12, 0.12, 3))
    return system, matter, bodies, markers


QUATERNIONS = (slice(0, 4), slice(7, 11))     # the Free's and the Ball's in q


def unit(q):
    q = np.array(q, dtype=float)
    for s in QUATERNIONS:
        q[s] /= np.linalg.norm(q[s])
    return q


def random_pose(system, rng, spread=0.6):
    state = system.realize_topology()
    state.set_q(unit(state.get_q() + rng.uniform(-spread, spread, state.get_num_q())))
    return np.array(state.get_q())


def marker_locations(system, markers, q):
    """p_GS of every marker at q, from the bodies (not from Markers)."""
    s = system.realize_topology()
    s.set_q(unit(q))
    system.realize(s, kt.Stage.POSITION)
    return np.array([markers.get_marker_body(m).find_station_location_in_ground(
        s, markers.get_marker_station(m)) for m in range(markers.get_num_markers())])


def weighted_goal(system, markers, q, observations, weights):
    """½ Σ w|p - o|² / Σ w over the finite observations, evaluated from scratch."""
    p = marker_locations(system, markers, q)
    seen = np.all(np.isfinite(observations), axis=1)
    e = p[seen] - observations[seen]
    return 0.5 * np.sum(weights[seen] * np.sum(e * e, axis=1)) / np.sum(weights[seen])


def fd_gradient(f, q, h=1e-6):
    """Central differences of f(unit(q)) in raw q: quaternion lengths drop out."""
    return np.array([(f(q + h * e) - f(q - h * e)) / (2 * h) for e in np.eye(q.size)])


def angle_difference(q1, q2):
    """q1 - q2 with angles that differ by whole turns counted equal (harmless for the
    quaternion components, whose differences are small)."""
    return (np.asarray(q1) - q2 + np.pi) % (2 * np.pi) - np.pi


def start(system, q):
    s = system.realize_topology()
    s.set_q(q)
    return s


def test_exact_markers_are_recovered_from_a_perturbed_guess():
    rng = np.random.default_rng(1)
    system, matter, bodies, markers = chain()
    q_true = random_pose(system, rng)
    assembler = kt.Assembler(system).set_accuracy(1e-12)
    assembler.adopt_assembly_goal(markers)
    markers.move_all_observations(marker_locations(system, markers, q_true))
    state = start(system, q_true + rng.uniform(-0.15, 0.15, q_true.size))
    goal = assembler.assemble(state)
    q = np.array(state.get_q())
    assert np.max(np.abs(q - q_true)) < 1e-6
    for s in QUATERNIONS:
        assert np.linalg.norm(q[s]) == pytest.approx(1.0, abs=1e-15)
    errors = [markers.find_current_marker_error(m) for m in range(markers.get_num_markers())]
    assert max(errors) < 1e-9
    assert goal < 1e-18
    p = marker_locations(system, markers, q)
    for m in range(markers.get_num_markers()):
        assert np.allclose(markers.find_current_marker_location(m), p[m], atol=1e-14)
    # Copied into a State that uses Euler angles, the pose is the same.
    euler = system.realize_topology()
    matter.set_use_euler_angles(euler, True)
    system.realize_model(euler)
    assembler.update_from_internal_state(euler)
    assert euler.get_num_q() == 15
    system.realize(euler, kt.Stage.POSITION)
    for m in range(markers.get_num_markers()):
        assert np.allclose(markers.get_marker_body(m).find_station_location_in_ground(
            euler, markers.get_marker_station(m)), p[m], atol=1e-12)


def test_noisy_markers_the_result_minimizes_the_weighted_error():
    rng = np.random.default_rng(2)
    system, matter, bodies, markers = chain()
    q_true = random_pose(system, rng)
    weights = rng.uniform(0.5, 3.0, markers.get_num_markers())
    for m, w in enumerate(weights):
        markers.change_marker_weight(m, w)
    observed = marker_locations(system, markers, q_true) + rng.normal(0, 0.005, (15, 3))
    assembler = kt.Assembler(system).set_accuracy(1e-12)
    assembler.adopt_assembly_goal(markers)
    markers.move_all_observations(observed)
    state = start(system, q_true)
    goal = assembler.assemble(state)
    q = np.array(state.get_q())

    def f(x):
        return weighted_goal(system, markers, x, observed, weights)

    assert goal == pytest.approx(f(q), rel=1e-12)           # Simbody's weighted mean, halved
    assert np.max(np.abs(fd_gradient(f, q))) < 1e-9          # stationary
    q_off = unit(q + rng.uniform(-0.05, 0.05, q.size))
    for _ in range(5):                                       # and a minimum
        assert f(unit(q + rng.uniform(-1e-3, 1e-3, q.size))) > f(q)
    # Markers' analytic gradient (through N⁻¹) agrees with the finite difference off the
    # optimum, where it is not small.
    internal = assembler.get_internal_state()
    internal.set_q(q_off)
    system.realize(internal, kt.Stage.POSITION)
    analytic = markers.calc_goal_gradient(internal)
    numeric = fd_gradient(f, q_off)
    assert np.max(np.abs(numeric)) > 1e-3
    assert np.allclose(analytic, numeric, rtol=1e-6, atol=1e-9)


def test_missing_observations_are_ignored():
    rng = np.random.default_rng(3)
    system, matter, bodies, markers = chain()
    q_true = random_pose(system, rng)
    observed = marker_locations(system, markers, q_true) + rng.normal(0, 0.004, (15, 3))
    missing = [1, 5, 9]
    observed[missing] = 10.0                                 # wrong, then hidden
    observed[missing, 1] = np.nan
    assembler = kt.Assembler(system).set_accuracy(1e-12)
    assembler.adopt_assembly_goal(markers)
    markers.move_all_observations(observed)
    state = start(system, q_true)
    goal = assembler.assemble(state)

    # The same fit with those markers given no observation at all.
    others = [m for m in range(15) if m not in missing]
    reduced = kt.Markers()
    for m in others:
        reduced.add_marker(markers.get_marker_name(m), markers.get_marker_body(m),
                           markers.get_marker_station(m))
    reference = kt.Assembler(system).set_accuracy(1e-12)
    reference.adopt_assembly_goal(reduced)
    reduced.move_all_observations(observed[others])
    state_ref = start(system, q_true)
    goal_ref = reference.assemble(state_ref)
    assert np.allclose(state.get_q(), state_ref.get_q(), atol=1e-8)
    assert goal == pytest.approx(goal_ref, rel=1e-9)
    assert markers.find_current_marker_error(5) == 0.0


def test_observation_order_by_name_with_ignored_columns():
    rng = np.random.default_rng(4)
    system, matter, bodies, markers = chain()
    q_true = random_pose(system, rng)
    p = marker_locations(system, markers, q_true)
    names = [markers.get_marker_name(m) for m in range(15)][::-1]
    markers.define_observation_order([names[0], None, *names[1:]])
    assert markers.get_num_observations() == 16
    assert markers.get_observation_index_for_marker(14) == 0
    assert markers.get_marker_index_for_observation(1) is None
    columns = np.vstack([p[14], [99.0, 99.0, 99.0], p[13::-1]])
    assembler = kt.Assembler(system).set_accuracy(1e-12)
    assembler.adopt_assembly_goal(markers)
    markers.move_all_observations(columns)
    assert np.array_equal(markers.get_observation(0), p[14])
    state = start(system, q_true + rng.uniform(-0.1, 0.1, q_true.size))
    assembler.assemble(state)
    assert np.max(np.abs(state.get_q() - q_true)) < 1e-6


def test_tracking_a_sinusoidal_motion_is_accurate_and_cheap():
    rng = np.random.default_rng(5)
    system, matter, bodies, markers = chain()
    q_mid = random_pose(system, rng, spread=1.0)
    phase = rng.uniform(0, 2 * np.pi, q_mid.size)

    def pose(t):
        return unit(q_mid + 0.25 * np.sin(2 * np.pi * t + phase))

    assembler = kt.Assembler(system).set_accuracy(1e-10)
    assembler.adopt_assembly_goal(markers)
    state = system.realize_topology()
    markers.move_all_observations(marker_locations(system, markers, pose(0.0)))
    assembler.assemble(state)
    cold = []
    tracked = []
    for t in np.arange(1, 51) / 50:
        q_t = pose(t)
        observed = marker_locations(system, markers, q_t)
        markers.move_all_observations(observed)
        before = assembler.get_num_goal_evals()
        assembler.track(t)
        tracked.append(assembler.get_num_goal_evals() - before)
        assembler.update_from_internal_state(state)
        assert np.max(np.abs(angle_difference(state.get_q(), q_t))) < 1e-6
        if len(cold) < 5:                                    # the same frame, from scratch
            fresh = kt.Markers()
            for m in range(markers.get_num_markers()):
                fresh.add_marker(markers.get_marker_body(m), markers.get_marker_station(m))
            scratch = kt.Assembler(system).set_accuracy(1e-10)
            scratch.adopt_assembly_goal(fresh)
            fresh.move_all_observations(observed)
            cold_state = system.realize_topology()
            scratch.assemble(cold_state)          # (a quaternion may come out negated)
            assert np.max(np.abs(marker_locations(system, markers, cold_state.get_q())
                                 - observed)) < 1e-9
            cold.append(scratch.get_num_goal_evals())
    assert assembler.get_num_assembly_steps() == 51
    assert np.mean(tracked) < 0.5 * np.mean(cold)


def test_fitting_with_a_coordinate_coupler_keeps_it_and_is_stationary_on_its_manifold():
    rng = np.random.default_rng(6)
    system, matter, bodies, markers = chain(coupled=True)
    pose = system.realize_topology()
    pose.set_q(random_pose(system, rng))
    system.project(pose, 1e-14)
    q_true = np.array(pose.get_q())
    exact = marker_locations(system, markers, q_true)

    assembler = kt.Assembler(system).set_accuracy(1e-12).set_tolerance(1e-11)
    assembler.adopt_assembly_goal(markers)
    markers.move_all_observations(exact)
    state = system.realize_topology()
    assembler.assemble(state)
    system.realize(state, kt.Stage.POSITION)
    assert np.max(np.abs(matter.get_q_err(state))) <= 1e-11
    assert np.max(np.abs(state.get_q() - q_true)) < 1e-6

    observed = exact + rng.normal(0, 0.005, exact.shape)
    markers.move_all_observations(observed)
    assembler.track()
    internal = assembler.get_internal_state()
    q = np.array(internal.get_q())
    assert np.max(np.abs(matter.get_q_err(internal))) <= 1e-11
    # Stationary on the manifold: the goal's gradient has no component along directions
    # that keep the coupler (q_knee = q[11], q_ankle = q[12]) and the quaternion lengths.
    ones = np.ones(15)

    def f(x):
        return weighted_goal(system, markers, x, observed, ones)

    gradient = fd_gradient(f, q)
    C = np.zeros((3, q.size))
    C[0, 11], C[0, 12] = 0.5, -1.0
    C[1, QUATERNIONS[0]], C[2, QUATERNIONS[1]] = q[QUATERNIONS[0]], q[QUATERNIONS[1]]
    tangent = np.linalg.svd(C)[2][3:]
    assert np.max(np.abs(tangent @ gradient)) < 1e-8
    assert np.max(np.abs(gradient)) > 1e-6                   # the coupler pushes back


def test_marker_bookkeeping():
    system, matter, bodies, markers = chain()
    assert markers.get_num_markers() == 15
    index = markers.add_marker(bodies[2], [0.0, 0.1, 0.0], 2.0)
    assert markers.get_marker_name(index) == "_UNNAMED_15"
    assert markers.get_marker_index("_UNNAMED_15") == index
    assert markers.get_marker_body(index) is bodies[2]
    assert np.array_equal(markers.get_marker_station(index), [0.0, 0.1, 0.0])
    assert markers.get_marker_weight(index) == 2.0
    markers.change_marker_weight("b1m0", 0.0)
    assert markers.get_marker_weight(0) == 0.0
    assert markers.get_num_observations() == 16
    assert np.all(np.isnan(markers.get_all_observations()))
    markers.move_one_observation(3, [1.0, 2.0, 3.0])
    assert np.array_equal(markers.get_observation(3), [1.0, 2.0, 3.0])


def test_bad_input_is_refused_with_a_clear_error():
    system, matter, bodies, markers = chain()
    with pytest.raises(InvalidArgumentError, match="no marker named 'knee'.*b1m0"):
        markers.get_marker_index("knee")
    with pytest.raises(InvalidArgumentError, match="no marker named 'knee'"):
        markers.define_observation_order(["b1m0", "knee"])
    with pytest.raises(InvalidArgumentError, match=r"expected 15 observations.*\(14, 3\)"):
        markers.move_all_observations(np.zeros((14, 3)))
    with pytest.raises(InvalidArgumentError, match="no observation 15"):
        markers.move_one_observation(15, [0, 0, 0])
    with pytest.raises(InvalidArgumentError, match="already marker 0"):
        markers.add_marker("b1m0", bodies[0], [0, 0, 0])
    with pytest.raises(InvalidArgumentError, match="3 finite numbers"):
        markers.add_marker(bodies[0], [0, 0])
    with pytest.raises(InvalidArgumentError, match=">= 0"):
        markers.add_marker(bodies[0], [0, 0, 0], -1.0)
    with pytest.raises(InvalidArgumentError, match="must be a MobilizedBody"):
        markers.add_marker("x", 3, [0, 0, 0])
    with pytest.raises(InvalidArgumentError, match="one observation per marker"):
        markers.define_observation_order([0, 1, 0])
    with pytest.raises(InvalidArgumentError, match="not been adopted"):
        markers.find_current_marker_location(0)

    other_system, _, other_bodies, _ = chain()
    foreign = kt.Markers()
    foreign.add_marker("a", bodies[1], [0, 0, 0])
    foreign.add_marker("b", other_bodies[1], [0, 0, 0])
    assembler = kt.Assembler(system)
    assembler.adopt_assembly_goal(foreign)
    foreign.move_all_observations(np.zeros((2, 3)))
    with pytest.raises(InvalidArgumentError, match="marker 'b'.*another system"):
        assembler.assemble(system.realize_topology())

    empty = kt.Assembler(system)
    empty.adopt_assembly_goal(kt.Markers())
    with pytest.raises(InvalidArgumentError, match="no markers defined"):
        empty.assemble(system.realize_topology())

    unseen = kt.Assembler(system)
    unseen.adopt_assembly_goal(markers)
    with pytest.raises(KinetreeError, match="every observation is missing"):
        unseen.assemble(system.realize_topology())

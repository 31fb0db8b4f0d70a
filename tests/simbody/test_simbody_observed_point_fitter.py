"""Simbody's TestObservedPointFitter, ported: a random tree of ten bodies (Cylinder,
Slider, Ball and Pin mobilizers, a main chain with side branches) posed at random q in
Euler angles, random stations on each body and their locations there as targets; fitting
from the default pose finds them again (an RMS error of at most 0.03 m), and with Gaussian
noise of 0.15 m on the targets a fit between 0.1 and 0.5 m; the reported error is the RMS
of the fitted stations' distances. Once without constraints, once with a Rod between the
first and last bodies. Simbody draws from its own generator; this port draws from numpy's,
with the same distributions and seeds 0-3."""

import numpy as np
import pytest

import kinetree as kt

NUM_BODIES = 10
BOND_LENGTH = 0.5
ITERATIONS = 4
TOL = 1e-4


def fitting(mbs, state, body_ixs, stations, target_locations, min_error, max_error,
            end_distance):
    """Simbody's testFitting: whether the reported error lies in [min_error, max_error];
    asserts that it is the RMS distance of the fitted stations from their targets and,
    for an end_distance >= 0, that the first and last bodies are that far apart."""
    reported = kt.ObservedPointFitter.find_best_fit(mbs, state, body_ixs, stations,
                                                    target_locations, tolerance=TOL)
    result = min_error <= reported <= max_error
    # The error was calculated correctly.
    error, num_stations = 0.0, 0
    mbs.realize(state, kt.Stage.POSITION)
    matter = mbs.get_matter_subsystem()
    for i, index in enumerate(body_ixs):
        num_stations += len(stations[i])
        X_GB = matter.get_mobilized_body(index).get_body_transform(state)
        for j, station in enumerate(stations[i]):
            error += float(np.sum((np.asarray(target_locations[i][j])
                                   - X_GB.shift_frame_station_to_base(station)) ** 2))
    error = np.sqrt(error / num_stations)
    assert abs(1.0 - error / reported) < 0.0001          # machine precision, in Simbody
    if end_distance >= 0:
        first = matter.get_mobilized_body(body_ixs[0]).get_body_origin_location(state)
        last = matter.get_mobilized_body(body_ixs[-1]).get_body_origin_location(state)
        assert abs(1.0 - end_distance / np.linalg.norm(first - last)) < TOL
    return result


@pytest.mark.parametrize("use_constraint", [False, True], ids=["unconstrained", "constrained"])
def test_observed_point_fitter(use_constraint):
    failures = 0
    for iteration in range(ITERATIONS):
        mbs = kt.MultibodySystem()
        matter = kt.SimbodyMatterSubsystem(mbs)
        body = kt.Body.Rigid(kt.MassProperties(1, [0, 0, 0], kt.Inertia(1)))
        last_body = last_main_chain_body = matter.Ground()
        bodies = []
        random = np.random.default_rng(iteration)
        M = kt.MobilizedBody
        for _ in range(NUM_BODIES):
            main_chain = random.uniform() < 0.5
            parent = last_main_chain_body if main_chain else last_body
            kind = (M.Cylinder, M.Slider, M.Ball, M.Pin)[int(random.uniform() * 4)]
            next_body = kind(parent, kt.Transform([0, 0, 0]), body,
                             kt.Transform([0, BOND_LENGTH, 0]))
            bodies.append(next_body)
            if main_chain:
                last_main_chain_body = next_body
            last_body = next_body
        mbs.realize_topology()
        s = mbs.get_default_state()
        matter.set_use_euler_angles(s, True)
        mbs.realize_model(s)

        # A random initial conformation.
        q = s.upd_q()
        for mobod in bodies:
            first = mobod.get_first_q_index(s)
            for i in range(mobod.get_num_q(s)):
                q[first + i] = 2.0 * random.uniform()
        mbs.realize(s, kt.Stage.POSITION)

        # Some random stations on each body.
        stations, target_locations, body_ixs = [], [], []
        for mobod in bodies:
            body_ixs.append(mobod.get_mobilized_body_index())
            here = [2.0 * random.uniform(size=3) - 1.0
                    for _ in range(1 + int(random.uniform() * 4))]
            stations.append(here)
            X_GB = mobod.get_body_transform(s)
            target_locations.append([X_GB.shift_frame_station_to_base(p) for p in here])

        # Simbody declares the distance again inside its if-block, so the one it checks
        # stays -1: the fit is not asked to keep the Rod's length.
        distance = -1
        if use_constraint:
            # A constraint fixing the distance between the first and last bodies.
            between = np.linalg.norm(bodies[0].get_body_origin_location(s)
                                     - bodies[-1].get_body_origin_location(s))
            kt.Constraint.Rod(bodies[0], [0, 0, 0], bodies[-1], [0, 0, 0], 1.001 * between)
        s = mbs.realize_topology()
        matter.set_use_euler_angles(s, True)
        mbs.realize_model(s)

        # Try fitting it.
        init_state = s.copy()
        if not fitting(mbs, s, body_ixs, stations, target_locations, 0.0, 0.03, distance):
            failures += 1

        # Random noise on the target locations: a decent fit all the same.
        for targets in target_locations:
            for j in range(len(targets)):
                targets[j] = targets[j] + random.normal(0.0, 0.15, size=3)
        s = init_state.copy()                 # from the same configuration as before
        if not fitting(mbs, s, body_ixs, stations, target_locations, 0.1, 0.5, distance):
            failures += 1
    assert failures == 0                      # a reasonable fit every time

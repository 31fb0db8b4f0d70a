"""States, Systems and model objects pickle and deep-copy: a State comes back realizing
the same u̇ bit for bit and accepting new variables, and a System sent to a spawned
worker process simulates the same trajectory as here."""

import copy
import multiprocessing
import pickle

import numpy as np
from test_state_file import model

import kinetree as kt


def test_a_state_round_trips_through_pickle_and_realizes_the_same_udot():
    system, state = model()
    system.realize(state, kt.Stage.ACCELERATION)        # a realized State, plan and all
    for back in (pickle.loads(pickle.dumps(state)), copy.deepcopy(state)):
        assert back.get_time() == state.get_time()
        system.realize(back, kt.Stage.ACCELERATION)
        assert back.get_u_dot().tobytes() == state.get_u_dot().tobytes()
        # The unpickled State's variables are live: a new q changes what it realizes.
        q = back.get_q() + 0.1
        back.set_q(q)
        np.testing.assert_array_equal(back.get_y()[:q.size], q)
        system.realize(back, kt.Stage.ACCELERATION)
        assert not np.array_equal(back.get_u_dot(), state.get_u_dot())
        # ... and what a body's pose reads, from the realized cache, is that new q's.
        fresh = state.copy()
        fresh.set_q(q)
        system.realize(fresh, kt.Stage.ACCELERATION)
        tip = system.get_matter_subsystem().get_mobilized_body(3)
        np.testing.assert_array_equal(tip.get_body_origin_location(back),
                                      tip.get_body_origin_location(fresh))


def test_model_objects_pickle_and_deep_copy():
    com = [0.1, -0.2, 0.3]
    inertia = kt.Inertia(2.0, 3.0, 4.0, 0.1, 0.2, 0.3)
    mass_properties = kt.MassProperties(1.5, com, inertia.shift_from_mass_center(com, 1.5))
    objects = [inertia, kt.UnitInertia(1.0), mass_properties,
               kt.Transform(kt.Rotation.about_x(0.3), [1, 2, 3]), kt.Rotation.about_y(0.7)]
    for obj in objects:
        for back in (pickle.loads(pickle.dumps(obj)), copy.deepcopy(obj)):
            assert type(back) is type(obj)
            assert repr(back) == repr(obj)


def simulate_in_worker(payload):
    system, state = pickle.loads(payload)
    trajectory = kt.simulate(system, state, 1.0, accuracy=1e-6, progress=False)
    return np.concatenate([trajectory.q[-1], trajectory.u[-1]])


def test_a_system_pickled_into_a_spawned_worker_simulates_the_same_trajectory():
    system, state = model()
    payload = pickle.dumps((system, state))
    trajectory = kt.simulate(system, state, 1.0, accuracy=1e-6, progress=False)
    here = np.concatenate([trajectory.q[-1], trajectory.u[-1]])
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        there = pool.apply(simulate_in_worker, (payload,))
    assert there.tobytes() == here.tobytes()
    twin, twin_state = copy.deepcopy((system, state))
    again = simulate_in_worker(pickle.dumps((twin, twin_state)))
    assert again.tobytes() == here.tobytes()

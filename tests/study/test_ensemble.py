"""simulate_ensemble: every member equals a lone simulate of it bit for bit, in threads,
processes and on a Dask cluster; parameters reach the members; a failing member is
recorded and the others go on; bad input is refused before anything runs; a store
resumes an interrupted ensemble; the xarray Dataset holds what the Trajectories hold."""

import concurrent.futures as cf

import numpy as np
import pytest

import kinetree as kt
from kinetree.errors import InvalidArgumentError

T_FINAL = 0.5


def pendulum():
    """A three-pin chain under gravity with a spring at its first joint."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    gravity = kt.Force.Gravity(forces, matter, [0, -1, 0], 9.81)
    body = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(0.01)))
    parent = matter.Ground()
    for _ in range(3):
        parent = kt.MobilizedBody.Pin(parent, kt.Transform([0, -0.3, 0]), body,
                                      kt.Transform())
    spring = kt.Force.MobilityLinearSpring(forces, matter.get_mobilized_body(1), 0, 5.0, 0.0)
    state = system.realize_topology()
    state.set_q([0.4, -0.2, 0.3])
    return system, state, spring, gravity


def lone(system, state, **settings):
    return kt.simulate(system, state, T_FINAL, progress=False, **settings)


def assert_same(a, b):
    assert a.t.tobytes() == b.t.tobytes()
    assert a.q.tobytes() == b.q.tobytes()
    assert a.u.tobytes() == b.u.tobytes()
    assert a.columns["energy"].tobytes() == b.columns["energy"].tobytes()


def members():
    system, state, spring, gravity = pendulum()
    stiffness = [1.0, 5.0, 20.0, 40.0]
    q0 = [0.1, 0.5, -0.4, 0.9]
    return system, state, spring, {spring.set_stiffness: stiffness, "Pin1.q0": q0}


def expected(system, state, spring, parameters):
    runs = []
    for k, q in zip(parameters[spring.set_stiffness], parameters["Pin1.q0"]):
        s = state.copy()
        spring.set_stiffness(s, k)
        s.upd_q()[0] = q
        runs.append(lone(system, s, accuracy=1e-6))
    return runs


@pytest.mark.parametrize("executor", [None, "threads", "processes"])
def test_every_member_equals_its_lone_simulation_bit_for_bit(executor):
    system, state, spring, parameters = members()
    ensemble = kt.simulate_ensemble(system, state, T_FINAL, parameters=parameters,
                                    accuracy=1e-6, executor=executor, max_workers=2,
                                    progress=False)
    assert ensemble.stats["executor"] == (executor or "threads")
    assert not ensemble.failures
    for got, want in zip(ensemble.trajectories, expected(system, state, spring, parameters)):
        assert_same(got, want)
    # The members differ: the parameters reached them.
    assert len({traj.q[-1, 0] for traj in ensemble.trajectories}) == 4


class Drag(kt.Force.Custom.Implementation):
    """A Python force: linear drag on every joint."""

    def calc_force(self, state, body_forces, particle_forces, mobility_forces):
        mobility_forces -= 0.3 * state.get_u()


def test_a_model_with_python_in_it_runs_in_processes_and_equals_lone_runs():
    system, state, spring, _ = pendulum()
    forces = next(system.get_subsystem(i) for i in range(system.get_num_subsystems())
                  if isinstance(system.get_subsystem(i), kt.GeneralForceSubsystem))
    kt.Force.Custom(forces, Drag())
    state = system.realize_topology()
    state.set_q([0.4, -0.2, 0.3])
    parameters = {"Pin2.q0": [-0.2, 0.1, 0.6]}
    ensemble = kt.simulate_ensemble(system, state, T_FINAL, parameters=parameters,
                                    accuracy=1e-6, max_workers=2, progress=False)
    assert ensemble.stats["executor"] == "processes"
    for q1, got in zip(parameters["Pin2.q0"], ensemble.trajectories):
        s = state.copy()
        s.upd_q()[1] = q1
        assert_same(got, lone(system, s, accuracy=1e-6))


def test_members_differing_in_q_and_u_alone_equal_lone_runs_in_one_worker_process():
    """A worker copies the members that differ from the last only in t, q, u and z from
    that one's State (realized to INSTANCE): each still equals its lone run."""
    system, state, spring, _ = pendulum()
    parameters = {"Pin1.q0": [0.1, 0.5, -0.4, 0.9], "Pin3.u0": [0.0, 1.0, -2.0, 0.5]}
    ensemble = kt.simulate_ensemble(system, state, T_FINAL, parameters=parameters,
                                    accuracy=1e-6, executor="processes", max_workers=1,
                                    progress=False)
    for q, u, got in zip(parameters["Pin1.q0"], parameters["Pin3.u0"],
                         ensemble.trajectories):
        s = state.copy()
        s.upd_q()[0], s.upd_u()[2] = q, u
        want = lone(system, s, accuracy=1e-6)
        assert_same(got, want)
        assert got.state(-1).get_y().tobytes() == want.state(-1).get_y().tobytes()


def test_an_executor_given_is_used():
    system, state, spring, parameters = members()
    with cf.ThreadPoolExecutor(2) as pool:
        ensemble = kt.simulate_ensemble(system, state, T_FINAL, parameters=parameters,
                                        accuracy=1e-6, executor=pool, progress=False)
    for got, want in zip(ensemble.trajectories, expected(system, state, spring, parameters)):
        assert_same(got, want)


def test_a_dask_cluster_runs_the_same_members():
    distributed = pytest.importorskip("distributed")
    system, state, spring, parameters = members()
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        ensemble = kt.simulate_ensemble(system, state, T_FINAL, parameters=parameters,
                                        accuracy=1e-6, executor=client, progress=False)
        # again on the same workers, which keep the System: nothing is sent ahead
        again = kt.simulate_ensemble(system, state, T_FINAL, parameters=parameters,
                                     accuracy=1e-6, executor=client, progress=False)
    assert ensemble.stats["executor"] == "dask"
    for k, got, second, want in zip(parameters[spring.set_stiffness], ensemble.trajectories,
                                    again.trajectories,
                                    expected(system, state, spring, parameters)):
        assert_same(got, want)
        assert_same(second, want)
        # The last State, rebuilt from what the worker sent: its own spring stiffness.
        final = got.state(-1)
        assert final.get_y().tobytes() == want.state(-1).get_y().tobytes()
        assert spring.get_stiffness(final) == k


def test_a_failing_member_is_recorded_and_the_others_go_on():
    system, state, spring, _ = pendulum()
    # A spring far too stiff for the fixed step: the second member diverges.
    parameters = {spring.set_stiffness: [5.0, 1e9, 5.0]}
    ensemble = kt.simulate_ensemble(system, state, T_FINAL, parameters=parameters,
                                    fixed_step_size=1e-3, executor="threads",
                                    progress=False)
    assert sorted(ensemble.failures) == [1]
    failure = ensemble.failures[1]
    assert "diverged" in failure.error
    assert failure.state.get_time() < T_FINAL
    assert failure.trajectory is ensemble.trajectories[1]
    assert ensemble.trajectories[1].t[-1] < T_FINAL
    for member in (0, 2):
        assert ensemble.trajectories[member].t[-1] == T_FINAL
    # Its last good State and reports are finite: nothing of the divergence leaks in.
    assert np.isfinite(failure.state.get_y()).all()
    assert np.isfinite(failure.trajectory.q).all()


def test_failures_and_last_states_come_back_from_processes_as_threads_have_them():
    system, state, spring, _ = pendulum()
    # Member 1 diverges (a spring far too stiff for the fixed step); member 2 cannot
    # start (its q is NaN), so it has no reports at all.
    parameters = {spring.set_stiffness: [5.0, 1e9, 5.0, 20.0],
                  "Pin1.q0": [0.1, 0.2, float("nan"), 0.3]}
    runs = {executor: kt.simulate_ensemble(system, state, T_FINAL, parameters=parameters,
                                           fixed_step_size=1e-3, executor=executor,
                                           max_workers=2, progress=False)
            for executor in ("threads", "processes")}
    threads, processes = runs["threads"], runs["processes"]
    assert sorted(processes.failures) == sorted(threads.failures) == [1, 2]
    assert processes.trajectories[2] is None and threads.trajectories[2] is None
    for member in (0, 1, 3):
        assert_same(processes[member], threads[member])
        # The member's last State, rebuilt from what came back: its time, variables
        # and its own spring stiffness.
        got, want = processes[member].state(-1), threads[member].state(-1)
        assert got.get_time() == want.get_time()
        assert got.get_y().tobytes() == want.get_y().tobytes()
        assert spring.get_stiffness(got) == parameters[spring.set_stiffness][member]
    for member in (1, 2):
        got, want = processes.failures[member], threads.failures[member]
        assert got.error == want.error
        assert got.state.get_time() == want.state.get_time()
        assert got.state.get_y().tobytes() == want.state.get_y().tobytes()


def test_bad_input_is_refused_before_any_member_runs():
    system, state, spring, _ = pendulum()
    other, other_state, _, _ = pendulum()
    with pytest.raises(InvalidArgumentError, match="member 1"):
        kt.simulate_ensemble(system, [state, other_state], T_FINAL, progress=False)
    with pytest.raises(InvalidArgumentError, match="'Pin9.q0' names no q or u"):
        kt.simulate_ensemble(system, state, T_FINAL, parameters={"Pin9.q0": [0.1, 0.2]},
                             progress=False)
    with pytest.raises(InvalidArgumentError, match="member 1: setting"):
        kt.simulate_ensemble(system, state, T_FINAL,
                             parameters={spring.set_stiffness: [1.0, "stiff"]},
                             progress=False)
    with pytest.raises(InvalidArgumentError, match="2 States but 3 rows"):
        kt.simulate_ensemble(system, [state, state], T_FINAL,
                             parameters={"Pin1.q0": [0.1, 0.2, 0.3]}, progress=False)


@pytest.mark.parametrize("executor", ["threads", "processes"])
def test_a_store_resumes_running_only_the_members_not_finished(tmp_path, executor):
    system, state, spring, parameters = members()
    settings = dict(parameters=parameters, accuracy=1e-6, executor=executor, max_workers=2,
                    progress=False, store=tmp_path / "runs")
    first = kt.simulate_ensemble(system, state, T_FINAL, **settings)
    assert first.stats["members_run"] == 4
    # As if interrupted after two members: the others' files are gone.
    for member in (1, 3):
        (tmp_path / "runs" / f"member-{member:06d}.npz").unlink()
    again = kt.simulate_ensemble(system, state, T_FINAL, **settings)
    assert (again.stats["members_run"], again.stats["members_from_store"]) == (2, 2)
    for got, want in zip(again.trajectories, first.trajectories):
        assert_same(got, want)
    # Another ensemble in the same store is refused.
    with pytest.raises(InvalidArgumentError, match="holds another ensemble"):
        kt.simulate_ensemble(system, state, T_FINAL, **{**settings, "accuracy": 1e-5})


def test_to_xarray_holds_the_trajectories_and_parameters():
    pytest.importorskip("xarray")
    system, state, spring, parameters = members()
    ensemble = kt.simulate_ensemble(system, state, T_FINAL, parameters=parameters,
                                    accuracy=1e-6, report_interval=0.05, progress=False)
    data = ensemble.to_xarray()
    assert dict(data.sizes) == {"member": 4, "time": 11}
    for member, traj in enumerate(ensemble.trajectories):
        np.testing.assert_array_equal(data["Pin2.q0"].values[member], traj.q[:, 1])
        np.testing.assert_array_equal(data["energy"].values[member], traj.columns["energy"])
    np.testing.assert_array_equal(data["MobilityLinearSpring.set_stiffness"].values,
                                  parameters[spring.set_stiffness])
    np.testing.assert_array_equal(data["initial_Pin1.q0"].values, parameters["Pin1.q0"])
    np.testing.assert_array_equal(data["Pin1.q0"].values[:, 0], parameters["Pin1.q0"])


def test_a_store_sees_per_state_parameters_set_before_the_call(tmp_path):
    system, state, spring, _ = pendulum()
    store = tmp_path / "runs"
    kt.simulate_ensemble(system, state, T_FINAL, parameters={"Pin1.q0": [0.1, 0.2]},
                         store=store, progress=False)
    stiffer = state.copy()
    spring.set_stiffness(stiffer, 40.0)
    with pytest.raises(InvalidArgumentError, match="holds another ensemble"):
        kt.simulate_ensemble(system, stiffer, T_FINAL, parameters={"Pin1.q0": [0.1, 0.2]},
                             store=store, progress=False)


def test_a_member_failing_at_its_start_is_nan_in_the_dataset():
    pytest.importorskip("xarray")
    system, state, spring, _ = pendulum()
    ensemble = kt.simulate_ensemble(system, state, T_FINAL, executor="threads",
                                    parameters={"Pin1.q0": [0.1, float("nan")]},
                                    progress=False)
    assert sorted(ensemble.failures) == [1] and ensemble.trajectories[1] is None
    assert "could not start" in ensemble.failures[1].error
    data = ensemble.to_xarray()
    assert np.isnan(data["Pin1.q0"].values[1]).all()
    np.testing.assert_array_equal(data["Pin1.q0"].values[0], ensemble.trajectories[0].q[:, 0])


def test_outputs_that_cannot_travel_to_processes_are_refused_by_name():
    system, state, spring, _ = pendulum()
    with pytest.raises(InvalidArgumentError, match="output 'tip'.*module level"):
        kt.simulate_ensemble(system, state, T_FINAL, executor="processes",
                             outputs={"tip": lambda s: s.get_q()[0]}, progress=False)

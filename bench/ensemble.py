"""Ensembles: many simulations of one model at once, against lone runs and MuJoCo's rollout.

The model is the 10-pin chain of ``fig3_model`` under gravity; each member starts from
its own first-joint angle and runs 1 s of classic RK4 at a fixed step of 1 ms, 101
reports.

1. Threads: 256 members on 1 and on 2 threads, against a lone ``simulate`` of a member:
   the cost per member on one thread over the lone run's, and the speed-up of 2 threads.
2. MuJoCo: ``mujoco.rollout`` of the same 256 members on 2 threads, side by side: steps
   per second per core of each, the best of each engine's runs, taken in turn.
3. Dask: 200 members on a LocalCluster of 2 single-threaded worker processes: the wall
   time over the ideal (200 lone runs shared by 2 cores), after a first ensemble that
   loads the System and its compiled code on each worker, the best of 5 taken in turn
   with lone runs; once with Dask quieted for a small machine (``QUIET_DASK``), once
   with its defaults. Then the same 200 with a store, one worker killed once 40 members are
   stored: what the call returns, and a rerun with the store, which runs only what was
   left.

Run: ``.venv/bin/python bench/ensemble.py`` (the ``bench`` and ``ensemble`` extras).
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import multiprocessing
import os
import pickle
import signal
import tempfile
import threading
import time
from pathlib import Path

import mujoco
import numpy as np
from fig3_model import pin_chain
from mujoco import rollout
from realization import mujoco_tree

import kinetree as kt

H = 1e-3
T_FINAL = 1.0
SETTINGS = dict(integrator="RungeKutta4", fixed_step_size=H, progress=False)


def first_angles(n: int) -> np.ndarray:
    return np.linspace(-0.5, 0.5, n)


def lone_seconds(system, state, repeats: int = 20) -> float:
    kt.simulate(system, state, T_FINAL, **SETTINGS)
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        kt.simulate(system, state, T_FINAL, **SETTINGS)
        best = min(best, time.perf_counter() - start)
    return best


def ensemble_seconds(system, state, n: int, **options) -> tuple[float, kt.Ensemble]:
    parameters = {"Pin1.q0": first_angles(n)}
    start = time.perf_counter()
    ensemble = kt.simulate_ensemble(system, state, T_FINAL, parameters=parameters,
                                    **SETTINGS, **options)
    return time.perf_counter() - start, ensemble


def threads(system, state) -> float:
    n = 256
    lone = lone_seconds(system, state)
    one = min(ensemble_seconds(system, state, n, executor="threads", max_workers=1)[0]
              for _ in range(2))
    two = min(ensemble_seconds(system, state, n, executor="threads", max_workers=2)[0]
              for _ in range(2))
    print(f"[1] {n} members, 1 s each: a lone simulate {lone * 1e3:.2f} ms")
    print(f"    1 thread  {one / n * 1e3:.2f} ms per member ({one / n / lone:.3f} of a lone "
          f"run, target <= 1.1)")
    print(f"    2 threads {two / n * 1e3:.2f} ms per member: {one / two:.2f}x one thread "
          f"(target >= 1.8)")
    return two


def mujoco_rollout(system, state, model_parts, n: int, kinetree_two: float) -> None:
    parents, frames, bodies, q, u = model_parts
    model, data = mujoco_tree(parents, frames, bodies, H, "RK4")
    spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
    states = np.empty((n, mujoco.mj_stateSize(model, spec)))
    for i, angle in enumerate(first_angles(n)):
        mujoco.mj_resetData(model, data)
        data.qpos[:] = q
        data.qpos[0] = angle
        data.qvel[:] = u
        mujoco.mj_getState(model, data, states[i], spec)
    steps = int(round(T_FINAL / H))
    datas = [mujoco.MjData(model) for _ in range(2)]
    rollout.rollout(model, datas, states, nstep=steps)         # the pool, started
    best = float("inf")
    for _ in range(3):      # interleaved with kinetree's: the machine's speed wanders
        start = time.perf_counter()
        rollout.rollout(model, datas, states, nstep=steps)
        best = min(best, time.perf_counter() - start)
        kinetree_two = min(kinetree_two, ensemble_seconds(
            system, state, n, executor="threads", max_workers=2)[0])
    per_core = n * steps / 2
    print(f"[2] MuJoCo rollout, {n} members on 2 threads: {per_core / best / 1e3:.0f} k steps "
          f"per second per core; kinetree {per_core / kinetree_two / 1e3:.0f} k "
          f"({best / kinetree_two:.2f} of MuJoCo's rate, target >= 1)")


QUIET_DASK = {"distributed.worker.profile.enabled": False,
              "distributed.admin.tick.interval": "500ms",
              "distributed.admin.system-monitor.interval": "5s",
              "distributed.worker.memory.monitor-interval": "1s"}
"""Dask's settings for a cluster sharing a few cores with its client (docs/ensembles.md):
the workers' statistical profiler off, and the event-loop and system checks that an idle
LocalCluster runs (some 5% of 2 cores) ten to 25 times less often."""


def dask_overhead(client, plain, system, state, label: str, rounds: int = 5) -> kt.Ensemble:
    """Ensembles of 200 members on ``client``'s cluster, after a first that readies each
    worker, in turn with lone runs and with the same members on two plain processes
    (``plain``): the best ensemble's wall time over the ideal of the best lone run and
    over the best of the plain processes, and where the CPU outside the members went in
    that ensemble."""
    n = 200
    ensemble_seconds(system, state, 4, executor=client)          # each worker ready
    best = (float("inf"),)
    lone = side_by_side = float("inf")
    for _ in range(rounds):
        lone = min(lone, lone_seconds(system, state, repeats=5))
        side_by_side = min(side_by_side, plain())
        workers, client_cpu = client.run(cpu_seconds), cpu_seconds()
        wall, ensemble = ensemble_seconds(system, state, n, executor=client)
        client_cpu = cpu_seconds() - client_cpu
        workers = sum(client.run(cpu_seconds).values()) - sum(workers.values())
        best = min(best, (wall, ensemble, workers, client_cpu), key=lambda run: run[0])
    wall, ensemble, workers, client_cpu = best
    ideal = n * lone / 2
    inside = sum(traj.stats["wall_time_s"] for traj in ensemble.trajectories)
    print(f"[3] Dask ({label}), {n} members on 2 worker processes: {wall:.2f} s, the ideal "
          f"{ideal:.2f} s: overhead {100 * (wall / ideal - 1):.1f}% (target <= 5%); two plain "
          f"processes running {n // 2} lone members each, taken in turn: {side_by_side:.2f} s "
          f"({100 * (side_by_side / ideal - 1):.1f}% over the ideal), Dask "
          f"{100 * (wall / side_by_side - 1):+.1f}% over them")
    print(f"    stepping and reports (wall_time_s) took {inside / n * 1e3:.2f} ms a member; "
          f"CPU: the workers {workers:.2f} s, the client, scheduler and nannies "
          f"{client_cpu:.2f} s")
    return ensemble


_PLAIN: dict = {}
"""In a plain worker process: the System and State it runs members of."""


def _plain_ready(payload: bytes, barrier) -> None:
    """Load the System, run one member, and wait for the other process to be as ready."""
    _PLAIN["model"] = pickle.loads(payload)
    system, state = _PLAIN["model"]
    kt.simulate(system, state, T_FINAL, **SETTINGS)
    barrier.wait()


def _plain_members(angles) -> None:
    """Lone simulates of these members, one after the other."""
    system, state = _PLAIN["model"]
    for angle in angles:
        member = state.copy()
        member.upd_q()[0] = angle
        kt.simulate(system, member, T_FINAL, **SETTINGS)


@contextlib.contextmanager
def plain_processes(system, state, n: int):
    """A function timing (s) two plain processes, started and ready beforehand, each
    running half of n members as lone simulates: what 2 cores of this machine do side
    by side with no scheduler at all."""
    context = multiprocessing.get_context("spawn")
    payload = pickle.dumps((system, state))
    halves = np.array_split(first_angles(n), 2)
    with context.Manager() as manager, cf.ProcessPoolExecutor(2, mp_context=context) as pool:
        barrier = manager.Barrier(2)
        for ready in [pool.submit(_plain_ready, payload, barrier) for _ in range(2)]:
            ready.result()

        def run() -> float:
            start = time.perf_counter()
            for done in [pool.submit(_plain_members, half) for half in halves]:
                done.result()
            return time.perf_counter() - start

        yield run


def cpu_seconds() -> float:
    """This process's CPU time (s), all its threads."""
    times = os.times()
    return times.user + times.system


def dask_runs(system, state) -> None:
    import dask
    from distributed import Client, LocalCluster

    n = 200
    with plain_processes(system, state, n) as plain:
        with dask.config.set(QUIET_DASK), \
                LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                             dashboard_address=None) as cluster, Client(cluster) as client:
            dask_overhead(client, plain, system, state, "quieted as docs/ensembles.md shows")
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                          dashboard_address=None) as cluster, Client(cluster) as client:
            ensemble = dask_overhead(client, plain, system, state, "default settings")
            with tempfile.TemporaryDirectory() as folder:
                store = Path(folder) / "store"
                outcome = {}

                def run():
                    try:
                        outcome["ensemble"] = ensemble_seconds(system, state, n, executor=client,
                                                               store=store)[1]
                    except Exception as error:      # a lost worker may end the call
                        outcome["error"] = error

                pids = client.run(os.getpid)             # {worker address: its process}
                runner = threading.Thread(target=run)
                runner.start()
                while runner.is_alive() and len(list(store.glob("member-*.npz"))) < 40:
                    time.sleep(0.01)
                os.kill(min(pids.values()), signal.SIGKILL)
                runner.join()
                stored = len(list(store.glob("member-*.npz")))
                said = "completed" if "ensemble" in outcome else \
                    f"raised {type(outcome['error']).__name__}"
                again = ensemble_seconds(system, state, n, executor=client, store=store)[1]
                same = all(a.q.tobytes() == b.q.tobytes()
                           for a, b in zip(again.trajectories, ensemble.trajectories))
                print(f"    a worker killed after 40 members: the call {said} with {stored} "
                      f"members stored; the rerun ran {again.stats['members_run']} and read "
                      f"{again.stats['members_from_store']} from the store; all {n} equal the "
                      f"first run's bit for bit: {same}")


def main() -> None:
    system, state, parts = pin_chain()
    two = threads(system, state)
    mujoco_rollout(system, state, parts, 256, two)
    dask_runs(system, state)


if __name__ == "__main__":
    main()

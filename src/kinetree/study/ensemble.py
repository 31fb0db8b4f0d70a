"""simulate_ensemble: many simulations of one System, each a member with its own initial
State and parameters, run at once on every core or on a Dask cluster.

Each member is exactly ``simulate(system, its State, t_final, ...)``: the same steps and
the same numbers, bit for bit, wherever it runs. Members of a model made of built-in
elements run in threads (their steps are compiled code that releases the GIL); a model
with Python in its realization runs in processes; a ``dask.distributed.Client`` sends
them to its workers in chunks, each worker keeping the System (and its compiled code)
from chunk to chunk. A member that fails is recorded with its error, its last good State
and its reports so far, and the others go on. With a ``store`` (a folder), each finished
member is written there as it finishes, and a later call with the same store runs only
the members not yet there.
"""

from __future__ import annotations

import concurrent.futures as cf
import hashlib
import json
import math
import multiprocessing
import os
import pickle
import sys
import time
import weakref
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import numpy as np
from tqdm import tqdm

from kinetree.errors import InvalidArgumentError, KinetreeError, SimulationError
from kinetree.study.simulate import coordinate_labels, simulate
from kinetree.study.trajectory import Trajectory
from kinetree.system import state_file
from kinetree.system.stage import Stage

STORE_FORMAT = "kinetree-ensemble"
STORE_VERSION = 1


@dataclass
class Failure:
    """A member that did not reach ``t_final``: the ``error`` message, the last ``state``
    it accepted (a run from it goes on) and the ``trajectory`` of its reports so far."""

    error: str
    state: object
    trajectory: Trajectory | None


@dataclass
class Ensemble:
    """What ``simulate_ensemble`` returns.

    ``trajectories``: one Trajectory per member, in member order (a failed member's holds
    its reports until it stopped; None for one that failed before its first report).
    ``failures``: {member: Failure}. ``parameters``: {column name: (members,) array} of
    the values each member ran with. ``stats``: the executor used, the wall time (s), the
    members run now and those read from the store.
    """

    trajectories: list[Trajectory]
    failures: dict[int, Failure] = field(default_factory=dict)
    parameters: dict[str, np.ndarray] = field(default_factory=dict)
    stats: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.trajectories)

    def __getitem__(self, member: int) -> Trajectory:
        return self.trajectories[member]

    def __repr__(self) -> str:
        return (f"<Ensemble of {len(self)} members, {len(self.failures)} failed, "
                f"run on {self.stats.get('executor', '?')}>")

    def to_xarray(self):
        """One ``xarray.Dataset``: a variable per column of the members' Trajectories
        (q, u, z and extra columns by their labels, as in .sto files), each over
        (member, time); the parameters are coordinates along ``member`` (those setting
        a q or u named ``initial_<label>``). A member that
        stopped early is NaN after its last report. Write it with ``to_netcdf`` or
        ``to_zarr``."""
        import xarray as xr

        made = [traj for traj in self.trajectories if traj is not None]
        if not made:
            raise InvalidArgumentError(
                "Ensemble.to_xarray: no member made a report (every one failed at its "
                "start: see .failures).")
        longest = max(made, key=len)
        t = longest.t
        for member, traj in enumerate(self.trajectories):
            if traj is not None and not np.array_equal(traj.t, t[:len(traj)]):
                raise InvalidArgumentError(
                    f"Ensemble.to_xarray: member {member} reports at other times than "
                    f"member {self.trajectories.index(longest)} (its States start at "
                    f"another time, or it ran with another report interval); a Dataset "
                    f"needs one time axis: give every member the same start time.")
        labels = longest.get_labels()[1:]
        values = np.full((len(self), t.size, len(labels)), np.nan)
        for member, traj in enumerate(self.trajectories):
            if traj is not None:
                values[member, :len(traj)] = traj._table()[:, 1:]
        coords = {"member": np.arange(len(self)), "time": t}
        # A parameter setting a q or u is named apart from that q's or u's variable.
        coords.update({(f"initial_{name}" if name in labels else name): ("member", column)
                       for name, column in self.parameters.items()})
        return xr.Dataset({label: (("member", "time"), values[:, :, j])
                           for j, label in enumerate(labels)}, coords=coords,
                          attrs={"failed_members": sorted(self.failures)})


def simulate_ensemble(system, states, t_final: float, *, parameters=None, integrator=None,
                      accuracy: float | None = None, report_interval: float | None = None,
                      outputs: dict | None = None, executor=None, max_workers: int | None = None,
                      store=None, progress: bool = True, **options) -> Ensemble:
    """Simulate every member from its State to ``t_final`` (s), as ``simulate`` does.

    - ``states``: the members' initial States (a list), or one State copied for each
      member.
    - ``parameters``: a table, one row per member: {column: sequence} (or a list of
      {column: value} rows, or anything with ``to_dict("list")``, such as a DataFrame).
      A column is a q or u label as Trajectory columns have them (``Pin1.q0``), or a
      setter called as ``setter(state, value)`` on the member's State before it runs:
      ``spring.set_stiffness``, ``gravity.set_magnitude``, ``coordinate.set_value`` of a
      model loaded from a file.
    - ``integrator``, ``accuracy``, ``report_interval``, ``outputs`` and ``options``: as
      ``simulate``'s, the same for every member. With processes or Dask, ``outputs`` must
      be functions defined at module level (they travel by pickle).
    - ``executor``: None (threads when the model's steps are compiled throughout, else
      processes), "threads", "processes", a ``concurrent.futures.Executor`` or a
      ``dask.distributed.Client``; ``max_workers`` caps the threads or processes.
    - ``store``: a folder; each finished member is written there, and a later call with
      the same store and the same members runs only those not finished.
    - ``progress``: a progress bar over members on stderr.

    Bad input (a State of another System, a column naming nothing) is refused before any
    member runs, naming the member and the column.
    """
    members = _members(system, states, parameters)
    t_final = float(t_final)
    if not math.isfinite(t_final):
        raise InvalidArgumentError(f"simulate_ensemble: t_final must be a finite time (s), "
                                   f"got {t_final!r}.")
    late = [i for i, s in enumerate(members.bases) if not t_final > s.get_time()]
    if late:
        raise InvalidArgumentError(
            f"simulate_ensemble: member {late[0]}'s State is at t = "
            f"{members.bases[late[0]].get_time()!r} s, not before t_final = {t_final!r} s; "
            f"ask for a later t_final.")
    settings = dict(t_final=t_final, integrator=integrator, accuracy=accuracy,
                    report_interval=report_interval, outputs=outputs, **options)
    wall = time.perf_counter()
    kind = _executor_kind(system, members.bases[0], executor)
    saved = _Store(store, system, members, settings) if store is not None else None
    results: dict[int, tuple] = saved.load() if saved is not None else {}
    pending = [i for i in range(len(members)) if i not in results]
    bar = tqdm(total=len(members), initial=len(results), desc="ensemble",
               unit="member", file=sys.stderr, disable=not progress)

    def finished(member: int, result: tuple) -> None:
        results[member] = result
        if saved is not None:
            saved.write(member, result)
        bar.update(1)

    with bar:
        if pending:
            if kind == "threads":
                _run_threads(system, members, pending, settings, executor,
                             max_workers, finished)
            elif kind == "dask":
                _run_dask(system, members, pending, settings, executor, finished)
            else:
                _run_pickled(system, members, pending, settings, executor,
                             max_workers, finished)
    trajectories, failures = [], {}
    names = coordinate_labels(system, members.bases[0])
    for member in range(len(members)):
        trajectory, failure = _unpack(system, names, results[member])
        trajectories.append(trajectory)
        if failure is not None:
            failures[member] = failure
    stats = {"executor": kind, "wall_time_s": time.perf_counter() - wall,
             "members_run": len(pending),
             "members_from_store": len(members) - len(pending)}
    return Ensemble(trajectories, failures, members.columns, stats)


# ------------------------------------------------------------------ members
@dataclass
class _Members:
    """The members' initial States, made when a member is sent: ``bases[i]`` (its
    setters' parameters applied) with row i of each coordinate column set. One State
    given for all stays one base, so no copy is made before a member needs it."""

    bases: list
    coordinates: list[tuple[str, int, np.ndarray]]
    """(``"q"`` or ``"u"``, its index in the State's q or u, the members' values)."""
    columns: dict[str, np.ndarray]

    def __len__(self) -> int:
        return len(self.bases)

    def state(self, i: int):
        """Member ``i``'s initial State, a State of its own."""
        s = self.bases[i].copy()
        for kind, k, values in self.coordinates:
            (s.upd_q() if kind == "q" else s.upd_u())[k] = values[i]
        return s

    def packed(self, i: int):
        """Member ``i``'s initial State as it travels (``_packed``). The base is packed
        once and shared by the members, each with its own copy of the few lists its
        coordinates change."""
        base = self.bases[i]
        cached = self._packed_bases.get(id(base))
        if cached is None:      # the base is kept with it, so that its id stays its own
            cached = self._packed_bases[id(base)] = (base, _packed(base))
        packed = cached[1]
        if not isinstance(packed, _PackedState):       # it travels whole
            return self.state(i)
        if not self.coordinates:
            return packed
        parts = list(packed.parts)
        for (kind, _, values), (j, at) in zip(self.coordinates, self._places):
            if parts[j] is packed.parts[j]:
                parts[j] = dict(parts[j])
            if parts[j][kind] is packed.parts[j][kind]:
                parts[j][kind] = list(parts[j][kind])
            parts[j][kind][at] = float(values[i])
        return _PackedState(packed.t, parts)

    def __post_init__(self):
        self._packed_bases: dict[int, tuple] = {}
        # (subsystem, index within its part) of each coordinate column's q or u
        self._places = []
        for kind, k, _ in self.coordinates:
            spans = [(j, p.q_slice if kind == "q" else p.u_slice)
                     for j, p in enumerate(self.bases[0]._parts)]
            self._places.append(next((j, k - span.start) for j, span in spans
                                     if span.start <= k < span.stop))


def _members(system, states, parameters) -> _Members:
    """The members' bases and parameters, every value checked before any member runs."""
    table = _table(parameters)
    rows = None if not table else len(next(iter(table.values())))
    if isinstance(states, (list, tuple)):
        if not states:
            raise InvalidArgumentError("simulate_ensemble: states is empty; give one State "
                                       "per member, or one State for all.")
        if rows is not None and rows != len(states):
            raise InvalidArgumentError(
                f"simulate_ensemble: {len(states)} States but {rows} rows of parameters; "
                f"give one row per member.")
        given = list(states)
    else:
        given = [states] * (rows or 1)
    for i, s in enumerate(given):
        try:
            system._check_state(s, "simulate_ensemble")
        except KinetreeError as error:
            raise InvalidArgumentError(
                f"simulate_ensemble: member {i}: {error} Pass States of the System being "
                f"simulated (system.get_default_state(), or copies of one).") from None
    if not isinstance(states, (list, tuple)):
        # One State for all, realized to INSTANCE once: a member's copy of it then
        # realizes that stage again only if its parameters change it.
        template = states.copy()
        try:
            system.realize(template, Stage.INSTANCE)
        except Exception:
            template = states           # each member's run says what is wrong
        given = [template] * len(given)
    labels = coordinate_labels(system, given[0])
    where = {label: ("q", k) for k, label in enumerate(labels["q"])}
    where.update({label: ("u", k) for k, label in enumerate(labels["u"])})
    columns, coordinates, setters = {}, [], {}
    for key in table:
        if isinstance(key, str):
            if key not in where:
                some = ", ".join(labels["q"][:4]) + (", ..." if len(labels["q"]) > 4 else "")
                raise InvalidArgumentError(
                    f"simulate_ensemble: the parameters' column {key!r} names no q or u of "
                    f"this System (its q are {some}); name a coordinate by its Trajectory "
                    f"label, or give a setter such as spring.set_stiffness as the column.")
            coordinates.append((*where[key], _numbers(key, table[key])))
        elif callable(key):
            setters[key] = table[key]
        else:
            raise InvalidArgumentError(
                f"simulate_ensemble: the parameters' column {key!r} is neither a q or u "
                f"label nor a setter(state, value); give one of those.")
        columns[_column_name(key)] = np.asarray(table[key])
    if len(columns) != len(table):
        raise InvalidArgumentError(
            f"simulate_ensemble: two parameters' columns have the same name "
            f"({sorted(columns)}); give each setter of its own element.")
    if setters:
        given = [_set(i, s.copy(), setters) for i, s in enumerate(given)]
    return _Members(given, coordinates, columns)


def _numbers(label: str, values) -> np.ndarray:
    """A coordinate column's values as floats, or the member whose value is not one."""
    out = np.empty(len(values))
    for i, value in enumerate(values):
        try:
            out[i] = float(value)
        except Exception as error:
            raise InvalidArgumentError(
                f"simulate_ensemble: member {i}: setting {label} to {value!r} failed: "
                f"{type(error).__name__}: {error}; fix that row's value.") from None
    return out


def _set(i: int, state, setters: dict):
    """``state`` with member ``i``'s value of each setter column applied."""
    for key, values in setters.items():
        value = values[i]
        try:
            key(state, value)
        except Exception as error:
            raise InvalidArgumentError(
                f"simulate_ensemble: member {i}: setting {_column_name(key)} to "
                f"{value!r} failed: {type(error).__name__}: {error}; fix that row's "
                f"value.") from None
    return state


def _table(parameters) -> dict:
    """{column: sequence} of a parameters table (simulate_ensemble's docstring says what one is)."""
    if parameters is None:
        return {}
    if hasattr(parameters, "to_dict") and not isinstance(parameters, dict):
        parameters = parameters.to_dict("list")
    if isinstance(parameters, (list, tuple)):
        keys = list(dict.fromkeys(k for row in parameters for k in row))
        missing = [(i, k) for i, row in enumerate(parameters) for k in keys if k not in row]
        if missing:
            i, k = missing[0]
            raise InvalidArgumentError(
                f"simulate_ensemble: parameters row {i} has no value for "
                f"{_column_name(k)}; give every row every column.")
        parameters = {k: [row[k] for row in parameters] for k in keys}
    if not isinstance(parameters, dict):
        raise InvalidArgumentError(
            f"simulate_ensemble: parameters must be a table, {{column: values}} or a list "
            f"of rows, got {type(parameters).__name__}.")
    lengths = {_column_name(k): len(v) for k, v in parameters.items()}
    if len(set(lengths.values())) > 1:
        raise InvalidArgumentError(
            f"simulate_ensemble: the parameters' columns differ in length ({lengths}); "
            f"give one value per member in each.")
    return dict(parameters)


def _column_name(key) -> str:
    """A column's name: the label itself, or ``<element>.<setter>`` for a setter."""
    if isinstance(key, str):
        return key
    owner = getattr(key, "__self__", None)
    method = getattr(key, "__name__", type(key).__name__)
    if owner is None:
        return method
    name = getattr(owner, "name", None)
    if not isinstance(name, str):
        get_name = getattr(owner, "get_name", None)
        name = get_name() if callable(get_name) else type(owner).__name__
    return f"{name}.{method}"


# ---------------------------------------------------------------- running
def _executor_kind(system, state, executor) -> str:
    if executor is None:
        stepper = getattr(system, "_compiled_stepper", None)
        return "threads" if stepper is not None and stepper(state.copy()) is not None \
            else "processes"
    if isinstance(executor, str):
        if executor not in ("threads", "processes"):
            raise InvalidArgumentError(
                f"simulate_ensemble: executor {executor!r} is not 'threads' or "
                f"'processes'; or pass a concurrent.futures.Executor or a Dask Client.")
        return executor
    if type(executor).__module__.startswith("distributed"):
        return "dask"
    if isinstance(executor, cf.ThreadPoolExecutor):
        return "threads"
    if isinstance(executor, cf.Executor):
        return "processes"
    raise InvalidArgumentError(
        f"simulate_ensemble: executor is a {type(executor).__name__}; give None, "
        f"'threads', 'processes', a concurrent.futures.Executor or a dask Client.")


@dataclass
class _PackedState:
    """A State as it travels to and from other processes: its time and what a State file
    holds of it (q, u, z and the discrete variables), a few kilobytes where the whole
    State, its realization cache included, is some fifty. The q, u and z go as lists
    of floats, which a pickle holds inline: a Dask message carries each array apart."""

    t: float
    parts: list


def _packed(state):
    """``state`` to send: packed, unless it holds auto-update values pending in its
    cache, which a State file does not keep and a run would use."""
    if state is None or state._has_auto_update_variables():
        return state
    parts = state._state_parts()
    for part in parts:
        for key in ("q", "u", "z"):
            part[key] = part[key].tolist()
    return _PackedState(state.get_time(), parts)


def _unpacked(system, item):
    """The State sent as ``item`` (``_packed``), rebuilt on ``system``'s default State."""
    if not isinstance(item, _PackedState):
        return item
    return system.get_default_state()._load_parts(system, item.t, item.parts,
                                                  "simulate_ensemble")


def _run_member(system, state, settings: dict) -> tuple:
    """One member: ("done", trajectory) or ("failed", message, last State, reports)."""
    settings = dict(settings)
    t_final = settings.pop("t_final")
    try:
        return ("done", simulate(system, state, t_final, progress=False, **settings))
    except SimulationError as error:
        return ("failed", str(error), error.state, error.trajectory)


def _run_threads(system, members, pending, settings, executor, max_workers, finished):
    pool = executor if isinstance(executor, cf.Executor) else cf.ThreadPoolExecutor(
        max_workers=max_workers or os.cpu_count())

    def run(i: int) -> tuple:
        return _run_member(system, members.state(i), settings)

    try:
        futures = {pool.submit(run, i): i for i in pending}
        for future in cf.as_completed(futures):
            finished(futures[future], future.result())
    finally:
        if pool is not executor:
            pool.shutdown(cancel_futures=True)


def _chunks(pending: list, workers: int) -> list[list]:
    """Runs of members for one task each, shrinking as they go (a quarter of each
    worker's share of what is left): few tasks, one pickle of results each, and a last
    task of one member, so that no worker idles long while another finishes."""
    chunks, at = [], 0
    while at < len(pending):
        size = max(1, math.ceil((len(pending) - at) / (4 * max(1, workers))))
        chunks.append(pending[at:at + size])
        at += size
    return chunks


_WORKER_SYSTEMS: dict[str, object] = {}
"""In a worker process: {the digest of a pickled System: the System}, kept across chunks
so that each worker unpickles (and loads the compiled code of) its System once."""


_WORKER_TEMPLATE: dict[str, tuple] = {}
"""In a worker process: {the digest of the System: (the discrete parts of a member's
packed State, that State realized to INSTANCE)}, from which members with the same
discrete variables are copied (``_member_state``)."""


def _worker_system(payload: bytes, digest: str):
    system = _WORKER_SYSTEMS.get(digest)
    if system is None:
        _WORKER_SYSTEMS.clear()
        _WORKER_TEMPLATE.clear()
        system = _WORKER_SYSTEMS[digest] = pickle.loads(payload)
    return system


def _member_state(system, digest: str, item):
    """A member's State in a worker, from what was sent (``_packed``): a copy of the
    last member's State with this one's t, q, u and z where their discrete variables
    are the same, which is then realized to INSTANCE already (as a State loaded from its
    parts would be when simulate begins); else rebuilt from its parts."""
    if not isinstance(item, _PackedState):
        return item
    known = _WORKER_TEMPLATE.get(digest)
    if known is not None and all(
            mine["discrete"] is theirs["discrete"]
            or state_file.same(mine["discrete"], theirs["discrete"])
            for mine, theirs in zip(item.parts, known[0], strict=True)):
        state = known[1].copy()
        state.set_time(item.t)
        q, u, z = state.upd_q(), state.upd_u(), state.upd_z()
        for mine, part in zip(item.parts, state._parts):
            q[part.q_slice], u[part.u_slice] = mine["q"], mine["u"]
            z[part.z_slice] = mine["z"]
        return state
    state = _unpacked(system, item)
    template = state.copy()
    try:
        system.realize(template, Stage.INSTANCE)
    except Exception:
        return state                # its run says what is wrong
    _WORKER_TEMPLATE[digest] = (item.parts, template)
    return state


def prepare_worker(payload: bytes, digest: str, state, settings: dict) -> None:
    """In a worker: unpickle the System and run one short step of a member, so that its
    compiled code is loaded before the members arrive (a second of a worker's start)."""
    system = _worker_system(payload, digest)
    state = _unpacked(system, state)
    _run_member(system, state, {**settings, "t_final": state.get_time() + 1e-6})


def run_chunk(payload: bytes, digest: str, states: list, settings: dict) -> _Chunk:
    """In a worker: run each of ``states`` (a chunk of members, packed) on the pickled
    System, returning what travels back."""
    system = _worker_system(payload, digest)
    return _Chunk.of([_run_member(system, _member_state(system, digest, s), settings)
                      for s in states])


@dataclass
class _Chunk:
    """A chunk's results as they travel back: every member's rows laid end to end in a
    few arrays (a Dask message carries each array as a frame of its own, some 90 µs
    apiece), and per member its outcome, statistics and last State, packed."""

    messages: list
    """Per member: None for one that reached t_final, else its error message."""
    finals: list
    counts: list[int]
    """Per member: its number of rows; -1 for a failed member with no Trajectory."""
    t: np.ndarray
    q: np.ndarray
    u: np.ndarray
    z: np.ndarray
    columns: dict[str, np.ndarray]
    """The extra columns, which every member of one ensemble has alike."""
    stats: list[dict]

    @classmethod
    def of(cls, results: list[tuple]) -> _Chunk:
        """The chunk of ``_run_member``'s results."""
        messages, finals, trajs = [], [], []
        for result in results:
            if result[0] == "done":
                messages.append(None)
                finals.append(_packed(result[1]._template))
                trajs.append(result[1])
            else:
                _, message, state, traj = result
                messages.append(message)
                finals.append(_packed(state))
                trajs.append(traj)
        made = [traj for traj in trajs if traj is not None]
        if made:
            t, q, u, z = (np.concatenate([getattr(traj, k) for traj in made])
                          for k in ("t", "q", "u", "z"))
            columns = {label: np.concatenate([traj.columns[label] for traj in made])
                       for label in made[0].columns}
        else:
            t, q, u, z, columns = np.empty(0), None, None, None, {}
        return cls(messages, finals, [-1 if traj is None else len(traj) for traj in trajs],
                   t, q, u, z, columns, [None if traj is None else dict(traj.stats)
                                         for traj in trajs])

    def results(self) -> list[tuple]:
        """Per member: ("done", rows, last State) or ("failed", message, last State,
        rows or None); the rows are views of the chunk's arrays."""
        out, at = [], 0
        for message, final, count, stats in zip(self.messages, self.finals, self.counts,
                                                self.stats):
            rows = None
            if count >= 0:
                span = slice(at, at + count)
                at += count
                rows = {"t": self.t[span], "q": self.q[span], "u": self.u[span],
                        "z": self.z[span], "stats": stats,
                        "columns": {k: v[span] for k, v in self.columns.items()}}
            out.append(("done", rows, final) if message is None else
                       ("failed", message, final, rows))
        return out


def _rows(traj: Trajectory) -> dict:
    return {"t": np.asarray(traj.t), "q": np.asarray(traj.q), "u": np.asarray(traj.u),
            "z": np.asarray(traj.z), "columns": {k: np.asarray(v)
                                                 for k, v in traj.columns.items()},
            "stats": dict(traj.stats)}


def _picklable(settings: dict, where: str) -> None:
    """Refuse settings that cannot travel to another process, naming the culprit."""
    for label, f in (settings.get("outputs") or {}).items():
        try:
            pickle.dumps(f)
        except Exception:
            raise InvalidArgumentError(
                f"simulate_ensemble: the output '{label}' cannot be sent to {where} (a "
                f"lambda or a function defined inside another): define it at module level, "
                f"or run in threads (executor='threads').") from None


def _run_pickled(system, members, pending, settings, executor, max_workers, finished):
    _picklable(settings, "worker processes")
    payload = pickle.dumps(system)
    digest = hashlib.sha256(payload).hexdigest()
    workers = max_workers or os.cpu_count() or 1
    pool = executor if isinstance(executor, cf.Executor) else cf.ProcessPoolExecutor(
        max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
        initializer=prepare_worker,
        initargs=(payload, digest, members.packed(pending[0]), settings))
    try:
        futures = {pool.submit(run_chunk, payload, digest,
                               [members.packed(i) for i in chunk], settings): chunk
                   for chunk in _chunks(pending, workers)}
        for future in cf.as_completed(futures):
            for member, result in zip(futures[future], future.result().results()):
                finished(member, result)
    finally:
        if pool is not executor:
            pool.shutdown(cancel_futures=True)


def _run_dask(system, members, pending, settings, client, finished):
    from distributed import as_completed

    _picklable(settings, "Dask workers")
    payload = pickle.dumps(system)
    digest = hashlib.sha256(payload).hexdigest()
    shared = _shared_system(client, payload, digest, members.packed(pending[0]), settings)
    workers = len(client.scheduler_info().get("workers", {})) or 1
    chunks = _chunks(pending, workers)
    futures = client.map(run_chunk, [shared] * len(chunks), [digest] * len(chunks),
                         [[members.packed(i) for i in chunk] for chunk in chunks],
                         [settings] * len(chunks), pure=False)
    chunk_of = {future.key: chunk for future, chunk in zip(futures, chunks)}
    for future, chunk in as_completed(futures, with_results=True):
        for member, result in zip(chunk_of[future.key], chunk.results()):
            finished(member, result)


_SHARED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
"""{Dask Client: (the digest of the System its workers hold, the future of its pickle)}:
a later ensemble of the same System on the same cluster sends nothing ahead."""


def _shared_system(client, payload: bytes, digest: str, state, settings: dict):
    """The future of the pickled System on every worker of ``client``'s cluster, each
    worker ready (``prepare_worker``) before the members go out, so that none waits on
    another's start; a worker that joins (or restarts) later gets the System with its
    first chunk."""
    known = _SHARED.get(client)
    if known is not None and known[0] == digest and known[1].status == "finished":
        return known[1]
    client.run(prepare_worker, payload, digest, state, settings)
    shared = client.scatter(payload, broadcast=True, hash=False)
    _SHARED[client] = (digest, shared)
    return shared


def _unpack(system, names: dict, result: tuple) -> tuple:
    """(the member's Trajectory, its Failure or None) from a result in any form;
    ``names`` are the System's q, u and z labels. A member's last State that came
    packed is rebuilt only when its Trajectory's States are asked for."""
    if result[0] == "done":
        traj = result[1]
        if not isinstance(traj, Trajectory):
            traj = _trajectory(system, names, traj, result[2])
        return traj, None
    _, message, state, rows = result
    state = _unpacked(system, state)
    if rows is not None and not isinstance(rows, Trajectory):
        rows = _trajectory(system, names, rows, state)
    return rows, Failure(message, state, rows)


def _trajectory(system, names: dict, rows: dict, final) -> Trajectory:
    traj = Trajectory(rows["t"], rows["q"], rows["u"], rows["z"], q_names=names["q"],
                      u_names=names["u"], z_names=names["z"], columns=rows["columns"],
                      stats=rows["stats"], name=system.get_name(), system=system,
                      copy_template=False)
    if isinstance(final, _PackedState):
        traj._template_loader = partial(_unpacked, system, final)
    else:
        traj._template = final      # rebuilt for this Trajectory alone: no copy needed
    return traj


# ------------------------------------------------------------------ store
class _Store:
    """A folder of finished members: ``ensemble.json`` says which ensemble (a digest of
    the members' initial States, parameters and settings), ``member-<k>.npz`` holds one
    member's rows, last State's variables and outcome. Read without pickle."""

    def __init__(self, folder, system, members: _Members, settings: dict):
        self.folder = Path(folder)
        self.system, self.members = system, members
        self.key = self._key(members, settings)
        manifest = self.folder / "ensemble.json"
        if manifest.exists():
            found = json.loads(manifest.read_text())
            if found.get("format") != STORE_FORMAT or found.get("key") != self.key:
                raise InvalidArgumentError(
                    f"simulate_ensemble: the store {self.folder} holds another ensemble "
                    f"(other members, parameters or settings); give a new folder, or "
                    f"delete this one to start over.")
        else:
            self.folder.mkdir(parents=True, exist_ok=True)
            manifest.write_text(json.dumps({"format": STORE_FORMAT,
                                            "version": STORE_VERSION, "key": self.key,
                                            "members": len(members)}))

    @staticmethod
    def _key(members: _Members, settings: dict) -> str:
        """A digest of what makes the members' runs: each initial State as a State file
        holds it (the System's structure, t, q, u, z and the discrete variables, per-State
        parameters included), the parameters and the settings."""
        h = hashlib.sha256()
        for s in map(members.state, range(len(members))):
            encoder = state_file.Encoder()
            try:
                header = state_file.encode_state(encoder, s._signature, s._t,
                                                 s._state_parts())
            except InvalidArgumentError:    # a variable no file can hold: its numbers only
                header = {"signature": s._signature, "t": s._t}
                encoder.arrays = {"y": s.get_y()}
            h.update(json.dumps(header, sort_keys=True).encode())
            for name in sorted(encoder.arrays):
                h.update(name.encode())
                h.update(np.ascontiguousarray(encoder.arrays[name]).tobytes())
        for name, column in members.columns.items():
            h.update(name.encode())
            h.update(repr(column.tolist()).encode())
        described = {k: (v if isinstance(v, (int, float, str, type(None)))
                         else getattr(v, "__name__", type(v).__name__))
                     for k, v in settings.items() if k != "outputs"}
        described["outputs"] = sorted(settings.get("outputs") or {})
        h.update(json.dumps(described, sort_keys=True, default=str).encode())
        return h.hexdigest()

    def _path(self, member: int) -> Path:
        return self.folder / f"member-{member:06d}.npz"

    def write(self, member: int, result: tuple) -> None:
        done = result[0] == "done"
        if done:
            traj = result[1]
            rows = _rows(traj) if isinstance(traj, Trajectory) else traj
            final = traj._recorded_template() if isinstance(traj, Trajectory) \
                else result[2]
            message = ""
        else:
            _, message, final, traj = result
            rows = None if traj is None else (
                _rows(traj) if isinstance(traj, Trajectory) else traj)
        final = _unpacked(self.system, final)
        arrays = {"final_t": np.float64(final.get_time()), "final_y": final.get_y(),
                  "done": np.bool_(done), "error": np.str_(message)}
        if rows is not None:
            arrays.update(t=rows["t"], q=rows["q"], u=rows["u"], z=rows["z"],
                          stats=np.str_(json.dumps(rows["stats"], default=str)),
                          columns=np.array(list(rows["columns"]), dtype=str))
            arrays.update({f"column:{k}": v for k, v in rows["columns"].items()})
        partial = self._path(member).with_suffix(".part.npz")
        np.savez(partial, **arrays)
        os.replace(partial, self._path(member))     # a member is there whole, or not

    def load(self) -> dict[int, tuple]:
        found = {}
        for member in range(len(self.members)):
            path = self._path(member)
            if not path.exists():
                continue
            with np.load(path, allow_pickle=False) as f:
                final = self.members.state(member)
                final.set_time(float(f["final_t"]))
                final.set_y(f["final_y"])
                rows = None
                if "t" in f:
                    rows = {"t": f["t"], "q": f["q"], "u": f["u"], "z": f["z"],
                            "columns": {k: f[f"column:{k}"] for k in f["columns"]},
                            "stats": json.loads(str(f["stats"]))}
                found[member] = ("done", rows, final) if bool(f["done"]) else \
                    ("failed", str(f["error"]), final, rows)
        return found

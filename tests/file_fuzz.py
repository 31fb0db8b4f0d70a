"""Mutations of kinetree's files (State files and checkpoints: numpy arrays and a JSON
header in a zip) for the fuzz tests: arrays shortened, lengthened, retyped, made
non-finite or declared huge; header keys and values renamed, retyped or deleted; JSON
nested deeply; members deleted, duplicated or renamed; and the model whose files they
mutate."""

import copy
import io
import json
import warnings
import zipfile

import numpy as np
from support import world

import kinetree as kt


def members_of(data: bytes) -> list:
    """The (name, array) members of a State file's bytes, in order."""
    with np.load(io.BytesIO(data)) as archive:
        return [(name, archive[name]) for name in archive.files]


def npy(array) -> bytes:
    f = io.BytesIO()
    np.save(f, array, allow_pickle=True)
    return f.getvalue()


def huge(array, rng) -> bytes:
    """A .npy that declares a huge shape of ``array``'s dtype and holds a few bytes."""
    f = io.BytesIO()
    shape = (int(rng.choice([10 ** 8, 10 ** 12, 2 ** 62])),) if rng.random() < 0.7 else \
        (10 ** 6, 10 ** 6)
    np.lib.format.write_array_header_1_0(
        f, {"descr": np.lib.format.dtype_to_descr(array.dtype), "fortran_order": False,
            "shape": shape})
    return f.getvalue() + bytes(16)


def archive(members: list) -> bytes:
    """A zip of (name, .npy bytes) members, as numpy's savez writes them."""
    f = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")             # a duplicated name warns
        with zipfile.ZipFile(f, "w") as z:
            for name, data in members:
                z.writestr(name + ".npy", data)
    return f.getvalue()


def paths(value, at=()):
    """The path (keys and indices) of every node of a JSON value, itself first."""
    yield at
    items = value.items() if isinstance(value, dict) else \
        enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        yield from paths(item, at + (key,))


def node(value, at):
    for key in at:
        value = value[key]
    return value


def mutate_array(array: np.ndarray, rng) -> bytes:
    """``array`` shortened, lengthened, retyped, made non-finite or declared huge."""
    flat = array.reshape(-1)
    kind = rng.integers(7)
    if kind == 0:
        return npy(flat[:rng.integers(flat.size)] if flat.size else flat)
    if kind == 1:
        return npy(np.concatenate([flat, rng.normal(size=rng.integers(1, 4))]).astype(
            array.dtype))
    if kind == 2:
        target = rng.choice(["int64", "int8", "bool", "complex128", "float32", "object",
                             "U8", "uint64"])
        with np.errstate(invalid="ignore", over="ignore"):     # NaN and huge values cast
            return npy(array.astype(target))
    if kind == 3 and array.dtype.kind in "fc" and array.size:
        bad = array.astype(float, copy=True).reshape(-1)
        bad[rng.random(bad.size) < 0.5] = rng.choice([np.nan, np.inf, -np.inf])
        bad[rng.integers(bad.size)] = np.nan
        return npy(bad.reshape(array.shape))
    if kind == 4:
        return huge(array, rng)
    if kind == 5:
        return npy(array.reshape(1, -1) if array.ndim else array.reshape(1))
    return npy(array[()] if array.ndim == 0 else np.asarray(array.sum()))


RETYPED = [None, True, False, 0, -1, 0.5, 1e308, "MODEL", "a0", [], {}, [1.0, 2.0],
           {"array": "a1"}, {"list": []}, {"tuple": [1]}, {"scalar": "p0_q"},
           {"dict": {"x": 1}}]
"""Header values of every JSON kind, to put where a value of another kind was."""


def json_kind(value) -> str:
    """None, bool, number, str, list or dict (the value of an encoded array, list,
    tuple or dict is a dict)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return "number"
    return type(value).__name__


def mutate_header(header: dict, rng) -> str:
    """``header`` with a key or value renamed, retyped or deleted, or a value wrapped in
    lists (nested deeply), as JSON."""
    header = copy.deepcopy(header)
    kind = int(rng.integers(6))
    # A None in the System's default State is a placeholder (a delay's rates) whose
    # owner alone knows what may replace it: test_state_file_hardening has that case.
    every = [at for at in list(paths(header))[1:]
             if kind not in (3, 5) or node(header, at) is not None]
    at = every[rng.integers(len(every))]
    parent, key = node(header, at[:-1]), at[-1]
    if kind == 0 and isinstance(parent, dict):
        parent[key + rng.choice(["_", "x", " "])] = parent.pop(key)
    elif kind == 2 and isinstance(parent[key], str):
        parent[key] = parent[key] + rng.choice(["x", "0", "_"])
    elif kind == 3:
        others = [v for v in RETYPED if json_kind(v) != json_kind(parent[key])]
        parent[key] = others[rng.integers(len(others))]
    elif kind == 4:
        depth = int(rng.choice([40, 400, 4000, 40000]))
        opening, closing = ('{"list": [', "]}") if rng.random() < 0.5 else ("[", "]")
        nested = opening * depth + json.dumps(parent[key]) + closing * depth
        parent[key] = "\0"                          # a marker for the nested text
        return json.dumps(header).replace('"\\u0000"', nested, 1)
    elif kind == 5:
        parent[key] = float(rng.choice([np.nan, np.inf, -np.inf]))
    else:
        del parent[key]
    return json.dumps(header)


def parsed(data: bytes) -> tuple:
    """(arrays by name, header, [(name, .npy bytes)]) of the State file ``data``."""
    arrays = dict(members_of(data))
    return (arrays, json.loads(str(arrays["header"])),
            [(name, npy(array)) for name, array in arrays.items()])


def mutated(original: tuple, rng) -> bytes:
    """The State file ``original`` (``parsed``) with one to three mutations: of an array,
    of the header, or a member deleted, duplicated or renamed."""
    arrays, header, members = original
    members = list(members)
    for _ in range(rng.integers(1, 4)):
        kind = rng.integers(10)
        k = int(rng.integers(len(members)))
        name = members[k][0]
        if kind < 4 and name in arrays and name != "header":
            members[k] = (name, mutate_array(arrays[name], rng))
        elif kind < 7:
            members = [(n, npy(np.array(mutate_header(header, rng))) if n == "header" else d)
                       for n, d in members]
        elif kind == 7:
            del members[k]
        elif kind == 8:
            members.insert(int(rng.integers(len(members) + 1)), members[k])
        else:
            members[k] = (name + rng.choice(["x", "_", ".npy"]), members[k][1])
    return archive(members)


class Settings(kt.Subsystem):
    """Per-State settings that move nothing: a dict of gains and a name, and a count."""

    def realize_topology(self, state):
        self.gains = self.allocate_discrete_variable(
            state, kt.Stage.INSTANCE, {"gains": [1.0, 2.0], "mode": "fast"})
        self.count = self.allocate_discrete_variable(state, kt.Stage.DYNAMICS, 3)


def states():
    """(system, [State, ...]): a slider carrying a double pendulum whose tip a rod holds
    to Ground, with gravity, a spring, a damper and a spring on a coordinate, in three
    States of their own q, u, damping, rod length and enabled forces."""
    system, matter, forces, body = world(inertia=0.05)
    Settings(system)
    cart = kt.MobilizedBody.Slider(matter.Ground(), kt.Transform(), body, kt.Transform())
    arm = kt.MobilizedBody.Pin(cart, kt.Transform(), body, kt.Transform([0, 0.5, 0]))
    tip = kt.MobilizedBody.Pin(arm, kt.Transform([0, -0.5, 0]), body,
                               kt.Transform([0, 0.5, 0]))
    kt.Force.TwoPointLinearSpring(forces, matter.Ground(), [1, 0, 0], tip, [0, 0, 0],
                                  30.0, 0.4)
    damper = kt.Force.MobilityLinearDamper(forces, arm, 0, 0.3)
    spring = kt.Force.MobilityLinearSpring(forces, cart, 0, 5.0, 0.1)
    rod = kt.Constraint.Rod(matter.Ground(), [0.3, -1.2, 0], tip, [0, -0.5, 0], 0.6)
    made = []
    for k, (q, u, damping, length) in enumerate([
            ((0.2, 0.4, -0.3), (0.0, 1.5, 0.0), 0.7, 0.65),
            ((-0.1, 1.0, 0.5), (0.3, -0.2, 2.0), 0.0, 0.8),
            ((0.0, -0.7, 1.2), (1.0, 0.0, -1.0), 2.5, 0.5)]):
        state = system.realize_topology()
        state.set_q(q)
        state.set_u(u)
        damper.set_damping(state, damping)
        rod.set_rod_length(state, length)
        forces.set_force_is_disabled(state, spring, k == 1)
        state.set_time(0.25 * k)
        made.append(state)
    return system, made

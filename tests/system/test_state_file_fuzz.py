"""A fuzz of State files (system/state_file.py, State.load): 1000 mutations of saved States
(arrays shortened, lengthened, retyped, made non-finite or declared huge; header keys and
values renamed, retyped or deleted; JSON nested deeply; members deleted or duplicated).
Each is refused with a kinetree error, or loads and realizes the original's u̇ bit for
bit; none raises anything else or takes more than 100 MB."""

import tracemalloc

import numpy as np
from file_fuzz import mutated, parsed
from support import world

import kinetree as kt
from kinetree.errors import KinetreeError

N_FILES = 1000


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


def test_a_thousand_mutated_state_files_are_refused_or_load_as_saved(tmp_path):
    system, originals = states()
    saved, udots = [], []
    for state in originals:
        path = tmp_path / "original.npz"
        state.save(path)
        saved.append(parsed(path.read_bytes()))
        system.realize(state, kt.Stage.ACCELERATION)
        udots.append(state.get_u_dot().tobytes())
    rng = np.random.default_rng(20240633)
    files = [mutated(saved[n % len(saved)], rng) for n in range(N_FILES)]
    path = tmp_path / "mutated.npz"
    outcomes = {"refused": 0, "loaded": 0}
    tracemalloc.start()
    try:
        for n, data in enumerate(files):
            path.write_bytes(data)
            try:
                state = kt.State.load(path, system)
                system.realize(state, kt.Stage.ACCELERATION)
            except KinetreeError:
                outcomes["refused"] += 1
            else:
                assert state.get_u_dot().tobytes() == udots[n % len(saved)], \
                    f"file {n} loaded as another State"
                outcomes["loaded"] += 1
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 100 << 20
    assert outcomes["refused"] > N_FILES // 2 and outcomes["loaded"] > 0

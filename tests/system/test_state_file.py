"""State files (system/state_file.py): a State saved and loaded realizes the same u̇ bit for
bit, and loading a file from someone else never runs code from it."""

import json
import pickle

import numpy as np
import pytest
from support import world

import kinetree as kt
from kinetree.errors import InvalidArgumentError, StateMismatchError


def model():
    """A pendulum on a slider with a rod to ground, springs, a damper and per-State
    parameters: discrete variables of lists, tuples of arrays, arrays and floats."""
    system, matter, forces, body = world(inertia=0.05)
    cart = kt.MobilizedBody.Slider(matter.Ground(), kt.Transform(), body, kt.Transform())
    arm = kt.MobilizedBody.Pin(cart, kt.Transform(), body, kt.Transform([0, 0.5, 0]))
    tip = kt.MobilizedBody.Pin(arm, kt.Transform([0, -0.5, 0]), body,
                               kt.Transform([0, 0.5, 0]))
    kt.Force.TwoPointLinearSpring(forces, matter.Ground(), [1, 0, 0], tip,
                                           [0, 0, 0], 30.0, 0.4)
    damper = kt.Force.MobilityLinearDamper(forces, arm, 0, 0.3)
    rod = kt.Constraint.Rod(matter.Ground(), [0.3, -1.2, 0], tip, [0, -0.5, 0], 0.6)
    state = system.realize_topology()
    cart.set_one_q(state, 0, 0.2)
    arm.set_one_q(state, 0, 0.4)
    tip.set_one_q(state, 0, -0.3)
    arm.set_one_u(state, 0, 1.5)
    damper.set_damping(state, 0.7)
    forces.set_force_is_disabled(state, damper, False)
    rod.set_rod_length(state, 0.65)
    state.set_time(0.75)
    return system, state


def test_a_saved_state_loads_and_realizes_the_same_udot_bit_for_bit(tmp_path):
    system, state = model()
    path = tmp_path / "state.npz"
    state.save(path)
    loaded = kt.State.load(path, system)
    assert loaded.get_time() == 0.75
    np.testing.assert_array_equal(loaded.get_y(), state.get_y())
    system.realize(state, kt.Stage.ACCELERATION)
    system.realize(loaded, kt.Stage.ACCELERATION)
    assert loaded.get_u_dot().tobytes() == state.get_u_dot().tobytes()
    assert loaded.get_multipliers().tobytes() == state.get_multipliers().tobytes()


class Payload:
    """What an attacker's pickle does on load: here, write a file."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_loading_a_pickle_runs_nothing(tmp_path):
    system, _ = model()
    marker = tmp_path / "ran"
    path = tmp_path / "state.pkl"
    path.write_bytes(pickle.dumps({"format": "kinetree-state/1", "payload": Payload(marker)}))
    with pytest.raises(StateMismatchError, match="not a kinetree State file"):
        kt.State.load(path, system)
    assert not marker.exists()


def test_an_archive_with_a_pickled_member_runs_nothing(tmp_path):
    system, state = model()
    marker = tmp_path / "ran"
    path = tmp_path / "state.npz"
    state.save(path)
    with np.load(path) as archive:
        members = {name: archive[name] for name in archive.files}
    members["p0_q"] = np.array([Payload(marker)], dtype=object)
    with open(path, "wb") as f:
        np.savez(f, **members)
    with pytest.raises(StateMismatchError, match="damaged"):
        kt.State.load(path, system)
    assert not marker.exists()


def rewrite_header(path, change):
    with np.load(path) as archive:
        members = {name: archive[name] for name in archive.files}
    header = json.loads(str(members["header"]))
    change(header)
    members["header"] = np.array(json.dumps(header))
    with open(path, "wb") as f:
        np.savez(f, **members)


def test_another_version_or_topology_is_refused_before_reading(tmp_path):
    system, state = model()
    path = tmp_path / "state.npz"
    state.save(path)
    rewrite_header(path, lambda h: h.update(version=2))
    with pytest.raises(StateMismatchError, match="version 2"):
        kt.State.load(path, system)
    state.save(path)
    rewrite_header(path, lambda h: h.update(signature="0" * 40))
    with pytest.raises(StateMismatchError, match="different topology"):
        kt.State.load(path, system)


def test_a_discrete_variable_that_cannot_be_stored_is_refused_at_save(tmp_path):
    class Holder(kt.Subsystem):
        def realize_topology(self, state):
            self.slot = self.allocate_discrete_variable(state, kt.Stage.INSTANCE,
                                                        {"gains": [1.0, 2.0]})

    system = kt.System()
    holder = Holder(system)
    state = system.realize_topology()
    path = tmp_path / "state.npz"
    state.save(path)                    # plain values are stored
    loaded = kt.State.load(path, system)
    assert holder.get_discrete_variable(loaded, holder.slot) == {"gains": [1.0, 2.0]}
    holder.set_discrete_variable(state, holder.slot, object())
    other = tmp_path / "other.npz"
    with pytest.raises(InvalidArgumentError, match="discrete variable 0 of subsystem"):
        state.save(other)
    assert not other.exists()

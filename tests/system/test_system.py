"""System: topology versions, the seed 000 §3.3-3.4 force-strength pattern, foreign and
stale States, and saving / loading States."""

import pickle

import numpy as np
import pytest

from kinetree.errors import (
    InvalidArgumentError,
    RealizeTopologyMustBeCalledFirstError,
    StateMismatchError,
    TopologyChangedError,
)
from kinetree.system import Stage, State, Subsystem, System


class Repulsion(Subsystem):
    """Two unit charges on a line, q = their positions, u = their velocities, repelling with
    strength k / r². Seed 000 §3.3: the default strength is a topological property; §3.4:
    the strength in use is a Dynamics-stage discrete variable initialized from it."""

    def __init__(self, system, default_strength=1.0):
        self._default_strength = default_strength
        super().__init__(system)

    def set_default_force_strength(self, k):
        self._default_strength = k
        self.invalidate_subsystem_topology_cache()

    def get_default_force_strength(self):
        return self._default_strength

    def realize_topology(self, state):
        self.allocate_q(state, [0.0, 1.0])
        self.allocate_u(state, [0.0, 0.0])
        self.strength = self.allocate_discrete_variable(
            state, Stage.DYNAMICS, self._default_strength)
        self.separation = self.allocate_cache_entry(state, Stage.POSITION, Stage.POSITION, 0.0)
        self.force = self.allocate_cache_entry(state, Stage.DYNAMICS, Stage.DYNAMICS, 0.0)

    def set_force_strength(self, state, k):
        self.set_discrete_variable(state, self.strength, k)

    def realize_position(self, state):
        q = self.get_q(state)
        self.set_cache_entry(state, self.separation, q[1] - q[0])

    def realize_velocity(self, state):
        self.upd_q_dot(state)[:] = self.get_u(state)

    def realize_dynamics(self, state):
        r = self.get_cache_entry(state, self.separation)
        k = self.get_discrete_variable(state, self.strength)
        self.set_cache_entry(state, self.force, k / r**2)

    def realize_acceleration(self, state):
        f = self.get_cache_entry(state, self.force)
        self.upd_u_dot(state)[:] = [-f, f]


def test_topology_parameter_then_discrete_variable():
    system = System()
    rep = Repulsion(system, default_strength=2.0)
    state = system.realize_topology()
    system.realize(state, Stage.ACCELERATION)
    np.testing.assert_allclose(state.get_u_dot(), [-2.0, 2.0])

    # §3.4: the strength is a state variable; changing it touches DYNAMICS only.
    rep.set_force_strength(state, 8.0)
    assert state.get_system_stage() == Stage.VELOCITY
    assert rep.get_cache_entry(state, rep.separation) == 1.0  # POSITION cache still valid
    system.realize(state, Stage.ACCELERATION)
    np.testing.assert_allclose(state.get_u_dot(), [-8.0, 8.0])

    # §3.3: changing the default is a topological change; old States are refused.
    rep.set_default_force_strength(3.0)
    with pytest.raises(TopologyChangedError, match="realize_topology") as err:
        system.realize(state, Stage.ACCELERATION)
    assert "Repulsion" in str(err.value)
    with pytest.raises(TopologyChangedError):
        rep.get_discrete_variable(state, rep.strength)
    fresh = system.realize_topology()
    system.realize(fresh, Stage.ACCELERATION)
    np.testing.assert_allclose(fresh.get_u_dot(), [-3.0, 3.0])


def test_default_state_copies_are_independent():
    system = System()
    rep = Repulsion(system)
    s1 = system.get_default_state()
    s1.set_q([5.0, 6.0])
    rep.set_force_strength(s1, 4.0)
    s2 = system.get_default_state()
    np.testing.assert_array_equal(s2.get_q(), [0.0, 1.0])
    assert rep.get_discrete_variable(s2, rep.strength) == 1.0


def test_adding_a_subsystem_changes_topology():
    system = System()
    Repulsion(system)
    state = system.realize_topology()
    Repulsion(system, default_strength=5.0)
    with pytest.raises(TopologyChangedError, match="was added"):
        system.realize(state)
    assert system.realize_topology().get_num_q() == 4


def test_state_from_another_system_is_refused():
    s1, s2 = System(), System()
    Repulsion(s1)
    Repulsion(s2)
    state = s1.realize_topology()
    s2.realize_topology()
    with pytest.raises(StateMismatchError, match="another System"):
        s2.realize(state)


def test_empty_state_is_refused():
    system = System()
    Repulsion(system)
    with pytest.raises(RealizeTopologyMustBeCalledFirstError, match="realize_topology"):
        system.realize(State())


def test_subsystem_belongs_to_one_system():
    s1 = System()
    rep = Repulsion(s1)
    with pytest.raises(InvalidArgumentError, match="already belongs"):
        System().adopt_subsystem(rep)


def test_realize_rejects_unknown_stage():
    system = System()
    Repulsion(system)
    state = system.realize_topology()
    with pytest.raises(InvalidArgumentError, match="not a Stage"):
        system.realize(state, "Kinematics")
    system.realize(state, "position")
    assert state.get_system_stage() == Stage.POSITION


def test_save_and_load_round_trip(tmp_path):
    system = System()
    rep = Repulsion(system)
    state = system.realize_topology()
    state.set_time(1.25)
    state.set_q([0.5, 2.0])
    state.set_u([-1.0, 1.0])
    rep.set_force_strength(state, 6.0)
    path = tmp_path / "state.pkl"
    state.save(path)
    loaded = State.load(path, system)
    assert loaded.get_time() == 1.25
    np.testing.assert_array_equal(loaded.get_y(), state.get_y())
    assert rep.get_discrete_variable(loaded, rep.strength) == 6.0
    system.realize(loaded, Stage.ACCELERATION)
    system.realize(state, Stage.ACCELERATION)
    np.testing.assert_array_equal(loaded.get_y_dot(), state.get_y_dot())


def test_load_refuses_file_of_another_topology(tmp_path):
    system = System()
    Repulsion(system)
    path = tmp_path / "state.pkl"
    system.realize_topology().save(path)
    other = System()
    Repulsion(other)
    Repulsion(other)
    with pytest.raises(StateMismatchError, match="different topology"):
        State.load(path, other)
    bogus = tmp_path / "bogus.pkl"
    bogus.write_bytes(pickle.dumps({"hello": 1}))
    with pytest.raises(StateMismatchError, match="not a kinetree State"):
        State.load(bogus, system)


def test_load_rebuilds_the_model_only_where_the_file_changes_a_model_stage_value(tmp_path):
    class Counting(Subsystem):
        models = 0

        def realize_topology(self, state):
            self.flag = self.allocate_discrete_variable(state, Stage.MODEL, np.array([1.0]))

        def realize_model(self, state):
            Counting.models += 1
            self.allocate_q(state, np.zeros(2))

    system = System()
    sub = Counting(system)
    system.realize_topology()
    state = system.get_default_state()
    state.set_q([1.0, 2.0])
    state.save(tmp_path / "same.kts")
    sub.set_discrete_variable(state, sub.flag, np.array([2.0]))
    system.realize_model(state)
    state.save(tmp_path / "changed.kts")
    before = Counting.models
    loaded = State.load(tmp_path / "same.kts", system)
    assert Counting.models == before
    np.testing.assert_array_equal(loaded.get_q(), [1.0, 2.0])
    loaded = State.load(tmp_path / "changed.kts", system)
    assert Counting.models == before + 1
    np.testing.assert_array_equal(sub.get_discrete_variable(loaded, sub.flag), [2.0])


def test_load_restores_model_stage_choices(tmp_path):
    class Flexible(Subsystem):
        def realize_topology(self, state):
            self.flag = self.allocate_discrete_variable(state, Stage.MODEL, 1)

        def realize_model(self, state):
            self.allocate_q(state, np.zeros(self.get_discrete_variable(state, self.flag)))

    system = System()
    sub = Flexible(system)
    state = system.realize_topology()
    sub.set_discrete_variable(state, sub.flag, 3)
    system.realize_model(state)
    state.set_q([1.0, 2.0, 3.0])
    state.save(tmp_path / "s.pkl")
    loaded = State.load(tmp_path / "s.pkl", system)
    np.testing.assert_array_equal(loaded.get_q(), [1.0, 2.0, 3.0])

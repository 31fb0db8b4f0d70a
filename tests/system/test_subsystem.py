"""Subsystem allocation, cache entries (eager and lazy), Model-stage re-layout, constraint
error slots, event triggers, and continuous variables with derivatives (seed 000 §3.5)."""

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from kinetree.errors import (
    CacheEntryOutOfDateError,
    InvalidArgumentError,
    StageOutOfRangeError,
    StageTooLowError,
)
from kinetree.system import Stage, Subsystem, System


class Cached(Subsystem):
    """A position cache entry (earliest POSITION, latest DYNAMICS) and a lazy one."""

    def __init__(self, system):
        self.n_eager = 0
        self.n_lazy = 0
        super().__init__(system)

    def realize_topology(self, state):
        self.allocate_q(state, [3.0, 4.0])
        self.allocate_u(state, [0.0, 0.0])
        self.eager = self.allocate_cache_entry(state, Stage.POSITION, Stage.DYNAMICS, 0.0)
        self.lazy = self.allocate_lazy_cache_entry(state, Stage.POSITION, np.zeros(2))

    def realize_dynamics(self, state):
        self.n_eager += 1
        self.set_cache_entry(state, self.eager, float(np.linalg.norm(self.get_q(state))))

    def get_unit_direction(self, state):
        """The lazy pattern of seed 000 §3.5.3."""
        if not self.is_cache_value_realized(state, self.lazy):
            self.n_lazy += 1
            q = self.get_q(state)
            self.upd_cache_entry(state, self.lazy)[:] = q / np.linalg.norm(q)
            self.mark_cache_value_realized(state, self.lazy)
        return self.get_cache_entry(state, self.lazy)


@pytest.fixture
def cached():
    system = System()
    sub = Cached(system)
    return system, sub, system.realize_topology()


def test_eager_cache_entry_valid_from_latest_stage(cached):
    system, sub, state = cached
    system.realize(state, Stage.POSITION)
    with pytest.raises(CacheEntryOutOfDateError, match="mark_cache_value_realized"):
        sub.get_cache_entry(state, sub.eager)
    system.realize(state, Stage.DYNAMICS)
    assert sub.get_cache_entry(state, sub.eager) == pytest.approx(5.0)
    state.set_q([6.0, 8.0])
    with pytest.raises(StageTooLowError) as err:
        sub.get_cache_entry(state, sub.eager)
    assert err.value.needed == Stage.POSITION and err.value.held == Stage.TIME
    system.realize(state, Stage.DYNAMICS)
    assert sub.get_cache_entry(state, sub.eager) == pytest.approx(10.0)


def test_eager_entry_survives_changes_to_later_variables(cached):
    system, sub, state = cached
    system.realize(state, Stage.DYNAMICS)
    state.set_u([1.0, 1.0])  # back to POSITION: a POSITION..DYNAMICS entry is now stale
    with pytest.raises(CacheEntryOutOfDateError):
        sub.get_cache_entry(state, sub.eager)


def test_lazy_cache_entry_computed_once_then_recomputed_after_change(cached):
    system, sub, state = cached
    system.realize(state, Stage.POSITION)
    np.testing.assert_allclose(sub.get_unit_direction(state), [0.6, 0.8])
    np.testing.assert_allclose(sub.get_unit_direction(state), [0.6, 0.8])
    assert sub.n_lazy == 1
    # Realizing further stages or changing u leaves a POSITION value current.
    system.realize(state, Stage.REPORT)
    state.set_u([2.0, 0.0])
    sub.get_unit_direction(state)
    assert sub.n_lazy == 1
    # Changing q invalidates it; after realizing POSITION again it is recomputed once.
    state.set_q([0.0, 2.0])
    assert not sub.is_cache_value_realized(state, sub.lazy)
    system.realize(state, Stage.POSITION)
    np.testing.assert_allclose(sub.get_unit_direction(state), [0.0, 1.0])
    assert sub.n_lazy == 2


def test_lazy_entry_not_current_when_stage_backs_up_and_returns(cached):
    """Realizing POSITION again after a change must not revive the old lazy value."""
    system, sub, state = cached
    system.realize(state, Stage.POSITION)
    sub.get_unit_direction(state)
    state.set_q([1.0, 0.0])
    system.realize(state, Stage.POSITION)
    assert not sub.is_cache_value_realized(state, sub.lazy)
    with pytest.raises(CacheEntryOutOfDateError):
        sub.get_cache_entry(state, sub.lazy)


def test_cache_array_from_get_is_read_only(cached):
    system, sub, state = cached
    system.realize(state, Stage.POSITION)
    with pytest.raises(ValueError):
        sub.get_unit_direction(state)[0] = 1.0


class Euler(Subsystem):
    """A Model-stage flag decides how many q exist, like set_use_euler_angles."""

    def realize_topology(self, state):
        self.kept = self.allocate_q(state, [0.5])
        self.flag = self.allocate_discrete_variable(state, Stage.MODEL, False)
        self.allocate_u(state, [0.0])

    def realize_model(self, state):
        use_euler = self.get_discrete_variable(state, self.flag)
        self.allocate_q(state, [0.0, 0.0, 0.0] if use_euler else [1.0, 0.0, 0.0, 0.0])
        # Indices made in MODEL differ between States: keep them in the State.
        self.model_cache = self.allocate_cache_entry(state, Stage.MODEL, Stage.MODEL, "x")


def test_model_stage_variable_changes_the_layout():
    system = System()
    sub = Euler(system)
    state = system.realize_topology()
    assert state.get_num_q() == 5
    state.upd_q()[0] = 0.25  # the topology-allocated q keeps a user-set value
    sub.set_discrete_variable(state, sub.flag, True)
    assert state.get_system_stage() == Stage.TOPOLOGY
    with pytest.raises(StageTooLowError, match="MODEL"):
        state.get_q()
    system.realize_model(state)
    assert state.get_num_q() == 4
    np.testing.assert_array_equal(state.get_q(), [0.25, 0.0, 0.0, 0.0])
    assert len(state._parts[0].cache) == 1  # the MODEL-stage entry was dropped, then redone
    sub.set_discrete_variable(state, sub.flag, False)
    system.realize_model(state)
    np.testing.assert_array_equal(state.get_q(), [0.25, 1.0, 0.0, 0.0, 0.0])


class Late(Subsystem):
    def realize_instance(self, state):
        self.allocate_q(state, [0.0])


def test_allocation_after_model_is_refused():
    system = System()
    Late(system)
    state = system.realize_topology()
    with pytest.raises(StageOutOfRangeError, match="realize_topology"):
        system.realize(state, Stage.INSTANCE)


def test_allocation_outside_realization_is_refused():
    system = System()
    sub = Cached(system)
    state = system.realize_topology()
    with pytest.raises(StageOutOfRangeError, match="allocate_q"):
        sub.allocate_q(state, [1.0])


def test_discrete_variable_stage_must_follow_allocation():
    class Bad(Subsystem):
        def realize_model(self, state):
            self.allocate_discrete_variable(state, Stage.MODEL, 1)

    system = System()
    Bad(system)
    with pytest.raises(InvalidArgumentError, match="realize_topology"):
        system.realize_topology()


class Constrained(Subsystem):
    """Constraint-error slots and event triggers allocated at INSTANCE (seed 000 §3.5.4-5),
    their number set by an Instance-stage variable."""

    def realize_topology(self, state):
        self.allocate_q(state, [1.0, 2.0])
        self.allocate_u(state, [0.5, -0.5])
        self.n_rods = self.allocate_discrete_variable(state, Stage.INSTANCE, 1)

    def realize_instance(self, state):
        n = self.get_discrete_variable(state, self.n_rods)
        self.allocate_q_err(state, n)
        self.allocate_u_err(state, n)
        self.allocate_u_dot_err(state, n)
        self.allocate_event_triggers_by_stage(state, Stage.POSITION, 1)

    def realize_position(self, state):
        q = self.get_q(state)
        self.upd_q_err(state)[:] = q[0] - q[1] + 1.0
        self.upd_event_triggers_by_stage(state, Stage.POSITION)[0] = q[0] - 1.5

    def realize_velocity(self, state):
        u = self.get_u(state)
        self.upd_u_err(state)[:] = u[0] - u[1]


def test_error_slots_and_triggers():
    system = System()
    sub = Constrained(system)
    state = system.realize_topology()
    with pytest.raises(StageTooLowError, match="INSTANCE"):
        state.get_num_q_err()
    system.realize(state, Stage.VELOCITY)
    assert state.get_num_q_err() == state.get_num_u_dot_err() == 1
    np.testing.assert_allclose(state.get_q_err(), [0.0])
    np.testing.assert_allclose(sub.get_u_err(state), [1.0])
    np.testing.assert_allclose(state.get_event_triggers_by_stage(Stage.POSITION), [-0.5])
    np.testing.assert_allclose(sub.get_event_triggers_by_stage(state, Stage.POSITION), [-0.5])
    with pytest.raises(StageTooLowError, match="ACCELERATION"):
        state.get_u_dot_err()
    # An Instance-stage change re-lays out the slots.
    sub.set_discrete_variable(state, sub.n_rods, 3)
    assert state.get_system_stage() == Stage.MODEL
    system.realize(state, Stage.ACCELERATION)
    assert state.get_num_q_err() == 3 and state.get_multipliers().shape == (3,)
    assert state.get_num_event_triggers() == 1


class Oscillator(Subsystem):
    """q̈ = -ω² q with a first-order filter ż = (q - z)/τ: a subsystem that owns q, u, z and
    sets their derivatives (seed 000 §3.5.1)."""

    omega = 2.0
    tau = 0.5

    def realize_topology(self, state):
        self.allocate_q(state, [1.0])
        self.allocate_u(state, [0.0])
        self.allocate_z(state, [0.0])

    def realize_velocity(self, state):
        self.upd_q_dot(state)[:] = self.get_u(state)

    def realize_acceleration(self, state):
        q, z = self.get_q(state), self.get_z(state)
        self.upd_u_dot(state)[:] = -self.omega**2 * q
        self.upd_q_dot_dot(state)[:] = -self.omega**2 * q
        self.upd_z_dot(state)[:] = (q - z) / self.tau


def _integrate(system, state, t_final):
    """Drive the State with scipy's integrator through the System/State interface only."""

    def rhs(t, y):
        state.set_time(t)
        state.set_y(y)
        system.realize(state, Stage.ACCELERATION)
        return state.get_y_dot().copy()

    sol = solve_ivp(rhs, (0.0, t_final), state.get_y().copy(), rtol=1e-11, atol=1e-12)
    state.set_time(sol.t[-1])
    state.set_y(sol.y[:, -1])


def test_subsystem_derivatives_integrate_to_the_analytic_solution():
    system = System()
    Oscillator(system)
    state = system.realize_topology()
    _integrate(system, state, 2.0)
    t, w, tau = state.get_time(), Oscillator.omega, Oscillator.tau
    assert t == pytest.approx(2.0)
    assert state.get_q()[0] == pytest.approx(np.cos(w * t), abs=1e-9)
    assert state.get_u()[0] == pytest.approx(-w * np.sin(w * t), abs=1e-9)
    # z solves τż + z = cos(ωt), z(0) = 0.
    a = 1.0 / (1 + (w * tau) ** 2)
    z = a * (np.cos(w * t) + w * tau * np.sin(w * t)) - a * np.exp(-t / tau)
    assert state.get_z()[0] == pytest.approx(z, abs=1e-9)
    system.realize(state, Stage.ACCELERATION)
    np.testing.assert_allclose(state.get_q_dot_dot(), -w**2 * state.get_q())

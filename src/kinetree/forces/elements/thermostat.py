"""Force.Thermostat: a Nosé-Hoover chain holding the temperature of the whole system at a
bath temperature (Simbody's Force::Thermostat).

Temperature is T = 2 KE / (N k_B), with KE the system kinetic energy (J), k_B Boltzmann's
constant in the model's units (J per unit of temperature) and N the thermal degrees of
freedom: the speeds, less the acceleration constraint equations in use, less 0..6 excluded
rigid-body degrees of freedom (at least 1). An m-chain has thermostat variables c (1/s)
and their integrals s, continuous variables z of the State, and applies

    f = -c[0] M u                                     (one generalized force per u)

    ċ[0]   = (T/T_b - 1)/τ² - c[0] c[1]
    ċ[1]   = N c[0]² - 1/τ² - c[1] c[2]
    ċ[i]   = c[i-1]² - 1/τ² - c[i] c[i+1]             (1 < i < m-1)
    ċ[m-1] = c[m-2]² - 1/τ²                           (ċ[0] = (T/T_b - 1)/τ² if m = 1)
    ṡ[i]   = c[i]

with τ the relaxation time (s). The bath energy KE_b + PE_b, KE_b = ½ k_B T_b τ² (N c[0]² +
Σ_{i>0} c[i]²), PE_b = k_B T_b (N s[0] + Σ_{i>0} s[i]), added to the system's energy gives
a conserved quantity (with otherwise conservative forces). A further z integrates the power
the bath delivers, -2 c[0] KE (W), into the external work (J).

The element keeps state of its own (its z and their derivatives), which the compiled
realization of the force table does not carry, so it runs in Python within DYNAMICS, as a
Force.Custom does; M u is the compiled O(n) product of the matter subsystem.
"""

from __future__ import annotations

import numpy as np

from kinetree.errors import InvalidArgumentError
from kinetree.forces.elements._stations import finite, same_system_matter
from kinetree.forces.force import Force
from kinetree.system.stage import Stage

BOLTZMANN_CONSTANT_MD = 8.314472e-3
"""Boltzmann's constant in molecular-dynamics units, kJ/(mol K) (Simbody's
SimTK_BOLTZMANN_CONSTANT_MD, the molar gas constant): with masses in Da, lengths in nm and
times in ps, the energies are in kJ/mol."""

DEFAULT_NUM_CHAINS = 3
MAX_NUM_CHAINS = 1000
"""Simbody's default chain length, and the longest chain taken (each link adds two z; a
handful is the practice)."""


def _positive(value, where: str, what: str) -> float:
    x = finite(value, where, what)
    if not x > 0.0:
        raise InvalidArgumentError(f"{where}: {what} must be > 0, got {value!r}.")
    return x


def _count(value, where: str, what: str, low: int, high: int | None = None) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) \
            or value < low or (high is not None and value > high):
        bound = f">= {low}" if high is None else f"{low}..{high}"
        raise InvalidArgumentError(f"{where}: {what} must be a whole number {bound}, got "
                                   f"{value!r}.")
    return int(value)


class Thermostat(Force):
    """``Thermostat(forces, matter, boltzmanns_constant, bath_temperature,
    relaxation_time, num_excluded_dofs=6)``: a Nosé-Hoover chain thermostat on every
    speed of ``matter`` (see the module docstring). The chain length (3 by default) is a
    Model-stage choice of each State; bath temperature, relaxation time and the number of
    excluded rigid-body degrees of freedom are Instance-stage ones. It has no potential
    energy; ``calc_bath_energy`` gives the bath's. Start with nonzero speeds: with u = 0
    the thermostat has nothing to scale."""

    def __init__(self, forces, matter, boltzmanns_constant, bath_temperature,
                 relaxation_time, num_excluded_dofs: int = 6):
        where = "Force.Thermostat"
        self._matter = same_system_matter(forces, matter, where)
        self._kB = _positive(boltzmanns_constant, where, "boltzmanns_constant")
        self._default_bath_temperature = _positive(bath_temperature, where,
                                                   "bath_temperature")
        self._default_relaxation_time = _positive(relaxation_time, where, "relaxation_time")
        self._default_num_excluded_dofs = _count(num_excluded_dofs, where,
                                                 "num_excluded_dofs", 0, 6)
        self._default_num_chains = DEFAULT_NUM_CHAINS
        super().__init__(forces)

    # ------------------------------------------------------------ defaults
    def _changed_default(self) -> Thermostat:
        self._forces.invalidate_subsystem_topology_cache()
        return self

    def set_default_num_chains(self, num_chains: int) -> Thermostat:
        """The chain length m (>= 1) of a new State; a topology change."""
        self._default_num_chains = _count(num_chains, "Force.Thermostat.set_default_num_chains",
                                          "num_chains", 1)
        return self._changed_default()

    def set_default_bath_temperature(self, bath_temperature) -> Thermostat:
        self._default_bath_temperature = _positive(
            bath_temperature, "Force.Thermostat.set_default_bath_temperature",
            "bath_temperature")
        return self._changed_default()

    def set_default_relaxation_time(self, relaxation_time) -> Thermostat:
        self._default_relaxation_time = _positive(
            relaxation_time, "Force.Thermostat.set_default_relaxation_time", "relaxation_time")
        return self._changed_default()

    def set_default_num_excluded_dofs(self, num_excluded_dofs: int) -> Thermostat:
        self._default_num_excluded_dofs = _count(
            num_excluded_dofs, "Force.Thermostat.set_default_num_excluded_dofs",
            "num_excluded_dofs", 0, 6)
        return self._changed_default()

    def get_default_num_chains(self) -> int:
        return self._default_num_chains

    def get_default_bath_temperature(self) -> float:
        return self._default_bath_temperature

    def get_default_relaxation_time(self) -> float:
        return self._default_relaxation_time

    def get_default_num_excluded_dofs(self) -> int:
        return self._default_num_excluded_dofs

    def get_boltzmanns_constant(self) -> float:
        """k_B (J per unit of temperature), fixed at construction."""
        return self._kB

    # ----------------------------------------------------------- per State
    def set_num_chains(self, state, num_chains: int) -> Thermostat:
        """m in ``state``: it changes the number of z, so the State backs up to TOPOLOGY
        and must be realized to MODEL again (``system.realize_model(state)``), which
        starts the chain at zero."""
        self._forces.set_discrete_variable(state, self._chains_index, _count(
            num_chains, "Force.Thermostat.set_num_chains", "num_chains", 1, MAX_NUM_CHAINS))
        return self

    def set_bath_temperature(self, state, bath_temperature) -> Thermostat:
        """T_b in ``state``; backs it up to MODEL."""
        self._forces.set_discrete_variable(state, self._bath_index, _positive(
            bath_temperature, "Force.Thermostat.set_bath_temperature", "bath_temperature"))
        return self

    def set_relaxation_time(self, state, relaxation_time) -> Thermostat:
        """τ (s) in ``state``; backs it up to MODEL."""
        self._forces.set_discrete_variable(state, self._tau_index, _positive(
            relaxation_time, "Force.Thermostat.set_relaxation_time", "relaxation_time"))
        return self

    def set_num_excluded_dofs(self, state, num_excluded_dofs: int) -> Thermostat:
        """The rigid-body degrees of freedom (0..6) left out of N in ``state``; backs it
        up to MODEL."""
        self._forces.set_discrete_variable(state, self._excluded_index, _count(
            num_excluded_dofs, "Force.Thermostat.set_num_excluded_dofs",
            "num_excluded_dofs", 0, 6))
        return self

    def check_discrete_value(self, index: int, value) -> str | None:
        """The chain length must be 1..MAX_NUM_CHAINS, the bath temperature and the
        relaxation time > 0, the excluded degrees of freedom 0..6, as the setters keep
        them."""
        where = "Force.Thermostat"
        try:
            if index == self._chains_index:
                _count(value, where, "num_chains", 1, MAX_NUM_CHAINS)
            elif index in (self._bath_index, self._tau_index):
                _positive(value, where, "bath_temperature" if index == self._bath_index
                          else "relaxation_time")
            elif index == self._excluded_index:
                _count(value, where, "num_excluded_dofs", 0, 6)
        except InvalidArgumentError as error:
            return str(error).rstrip(".")
        return None

    def get_num_chains(self, state) -> int:
        return int(self._forces.get_discrete_variable(state, self._chains_index))

    def get_bath_temperature(self, state) -> float:
        return float(self._forces.get_discrete_variable(state, self._bath_index))

    def get_relaxation_time(self, state) -> float:
        return float(self._forces.get_discrete_variable(state, self._tau_index))

    def get_num_excluded_dofs(self, state) -> int:
        return int(self._forces.get_discrete_variable(state, self._excluded_index))

    def get_num_thermal_dofs(self, state) -> int:
        """N = nu - (acceleration constraint equations in use) - excluded, at least 1
        (constraint redundancy is not discounted, as in Simbody); needs INSTANCE."""
        self._forces.get_system().require_stage(state, Stage.INSTANCE,
                                                "Force.Thermostat.get_num_thermal_dofs")
        nu = self._matter.get_tree_data(state, Stage.MODEL).mobility_forces.size
        return max(1, nu - state.get_num_u_dot_err() - self.get_num_excluded_dofs(state))

    # ------------------------------------------------------- chain state
    def _z(self, state) -> slice:
        """Where this element's z lie among its subsystem's: [c (m), s (m), work]."""
        start = self._forces.get_cache_entry(state, self._z_index)
        return slice(start, start + 2 * self.get_num_chains(state) + 1)

    def initialize_chain_state(self, state) -> None:
        """c = s = 0 in ``state``; backs it up to VELOCITY."""
        self._forces.upd_z(state)[self._z(state)][:-1] = 0.0

    def set_chain_state(self, state, z) -> None:
        """[c (m, 1/s); s (m)] in ``state``; backs it up to VELOCITY."""
        m = self.get_num_chains(state)
        z = np.asarray(z, dtype=float)
        if z.shape != (2 * m,) or not np.all(np.isfinite(z)):
            raise InvalidArgumentError(
                f"Force.Thermostat.set_chain_state: give 2 x {m} finite values (c then s), "
                f"got shape {z.shape}.")
        self._forces.upd_z(state)[self._z(state)][:-1] = z

    def get_chain_state(self, state) -> np.ndarray:
        """[c (m, 1/s); s (m)] in ``state``."""
        return self._forces.get_z(state)[self._z(state)][:-1].copy()

    def get_external_work(self, state) -> float:
        """The work (J) the bath has done on the system since it was last set."""
        return float(self._forces.get_z(state)[self._z(state)][-1])

    def set_external_work(self, state, work) -> None:
        """Restart the external work at ``work`` (J; usually 0); backs it up to
        VELOCITY."""
        self._forces.upd_z(state)[self._z(state)][-1] = finite(
            work, "Force.Thermostat.set_external_work", "work")

    # ------------------------------------------------------- measurements
    def _momentum(self, state) -> tuple[np.ndarray, float]:
        """(M u, KE): the generalized momentum (one per u) and the kinetic energy (J),
        computed once per change of q or u."""
        forces = self._forces
        if not forces.is_cache_value_realized(state, self._momentum_index):
            u = self._matter.get_u(state)
            Mu = self._matter.multiply_by_m(state, u)
            forces.set_cache_entry(state, self._momentum_index, (Mu, 0.5 * float(u @ Mu)))
            forces.mark_cache_value_realized(state, self._momentum_index)
        return forces.get_cache_entry(state, self._momentum_index)

    def get_current_temperature(self, state) -> float:
        """T = 2 KE / (N k_B) in ``state``; needs VELOCITY."""
        self._forces.get_system().require_stage(state, Stage.VELOCITY,
                                                "Force.Thermostat.get_current_temperature")
        return 2.0 * self._momentum(state)[1] / (self.get_num_thermal_dofs(state) * self._kB)

    def calc_bath_energy(self, state) -> float:
        """KE_b + PE_b (J) in ``state`` (module docstring): added to the system's energy,
        a conserved quantity when the other forces are conservative."""
        m = self.get_num_chains(state)
        N = self.get_num_thermal_dofs(state)
        kT = self._kB * self.get_bath_temperature(state)
        tau = self.get_relaxation_time(state)
        z = self._forces.get_z(state)[self._z(state)]
        c, s = z[:m], z[m:2 * m]
        ke = 0.5 * kT * tau * tau * (N * c[0] ** 2 + float(c[1:] @ c[1:]))
        return ke + kT * (N * s[0] + float(s[1:].sum()))

    def get_external_power(self, state) -> float:
        """The power (W) the bath delivers to the system, -2 c[0] KE (positive heats it);
        needs VELOCITY."""
        self._forces.get_system().require_stage(state, Stage.VELOCITY,
                                                "Force.Thermostat.get_external_power")
        return -2.0 * float(self._forces.get_z(state)[self._z(state)][0]) \
            * self._momentum(state)[1]

    # --------------------------------------------------------- realization
    _HOOKS = (Stage.TOPOLOGY, Stage.MODEL, Stage.DYNAMICS)

    def _has_hook(self, stage) -> bool:
        return stage in self._HOOKS

    def _realize(self, stage, state) -> None:
        forces = self._forces
        if stage == Stage.TOPOLOGY:
            self._chains_index = forces.allocate_discrete_variable(
                state, Stage.MODEL, self._default_num_chains)
            self._bath_index = forces.allocate_discrete_variable(
                state, Stage.INSTANCE, self._default_bath_temperature)
            self._tau_index = forces.allocate_discrete_variable(
                state, Stage.INSTANCE, self._default_relaxation_time)
            self._excluded_index = forces.allocate_discrete_variable(
                state, Stage.INSTANCE, self._default_num_excluded_dofs)
            self._z_index = forces.allocate_cache_entry(state, Stage.MODEL, Stage.MODEL, 0)
            self._momentum_index = forces.allocate_lazy_cache_entry(state, Stage.VELOCITY,
                                                                    None)
        elif stage == Stage.MODEL:
            m = self.get_num_chains(state)
            forces.set_cache_entry(state, self._z_index,
                                   forces.allocate_z(state, np.zeros(2 * m + 1)))
        elif stage == Stage.DYNAMICS:
            self._realize_z_dot(state)

    def _realize_z_dot(self, state) -> None:
        """ż of the chain, its integrals and the external work (module docstring); zero
        while the element is disabled."""
        zdot = self._forces.upd_z_dot(state)[self._z(state)]
        if self.is_disabled(state):
            zdot[:] = 0.0
            return
        m = self.get_num_chains(state)
        z = self._forces.get_z(state)[self._z(state)]
        c = z[:m]
        oot2 = 1.0 / self.get_relaxation_time(state) ** 2
        N = self.get_num_thermal_dofs(state)
        ke = self._momentum(state)[1]
        zdot[0] = (2.0 * ke / (N * self._kB * self.get_bath_temperature(state)) - 1.0) * oot2
        for k in range(1, m):
            zdot[k - 1] -= c[k - 1] * c[k]
            zdot[k] = (N if k == 1 else 1) * c[k - 1] ** 2 - oot2
        zdot[m:2 * m] = c
        zdot[-1] = -2.0 * c[0] * ke

    def calc_force(self, state, body_forces, particle_forces, mobility_forces) -> None:
        """Add f = -c[0] M u to ``mobility_forces``."""
        c0 = float(self._forces.get_z(state)[self._z(state)][0])
        if c0 != 0.0:
            mobility_forces -= c0 * self._momentum(state)[0]

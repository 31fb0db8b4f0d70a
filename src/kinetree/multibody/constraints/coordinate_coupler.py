"""Constraint.CoordinateCoupler: one holonomic equation f(q_sel) = 0 between chosen
generalized coordinates (Simbody's ``Constraint::CoordinateCoupler``).

perr = f(x), x the selected q in the order given; its derivatives come from the Function's
partials: pverr = Σ ∂f/∂xᵢ q̇ᵢ and paerr = Σᵢⱼ ∂²f/∂xᵢ∂xⱼ q̇ᵢ q̇ⱼ + Σ ∂f/∂xᵢ q̈ᵢ. The
multiplier acts as the q-space force λ ∂f/∂xᵢ on each selected coordinate (the solver maps
it to u-space through Nᵀ).

A coupler of OpenSim's form, f(x) = s g(x_i) - x_d with g a built-in Function of one
coordinate (``CouplingFunction``) between coordinates whose q̇ is their u, is compiled:
its equations below read the tree's q and u directly (the ``coordinate_*`` functions of
``multibody/kernels/constraints.py``), with g as a table (``math/function_table.py``).
Any other function runs as Python in the constraint pass.
"""

from __future__ import annotations

import numpy as np

from kinetree.errors import InvalidArgumentError
from kinetree.jit import helper
from kinetree.math import function_table
from kinetree.math.function_table import evaluate
from kinetree.math.functions import Function
from kinetree.multibody.constraint import BuiltinImplementation, ConstraintImplementation
from kinetree.multibody.constraints import _checks
from kinetree.multibody.constraints.custom import Custom
from kinetree.multibody.mobilized_body import MobilizedBody
from kinetree.registry import CONSTRAINTS

_WHERE = "Constraint.CoordinateCoupler"

CODE = CONSTRAINTS["coordinate_coupler"]

_QDOT_IS_U = ("pin", "slider", "universal", "cylinder", "screw", "planar", "translation",
              "function_based")
"""Mobilizer kinds whose every q̇ is its u: a compiled coupler's coordinates belong to
these (and to Python FunctionBased bodies, whose q̇ is u too)."""


class CouplingFunction(Function):
    """OpenSim's coordinate coupling as one function of all its coordinates, zero when
    satisfied: ``scale · f(x_0..x_{n-1}) - x_n``, the dependent coordinate last.
    ``f`` (a Function of n arguments) gives the dependent coordinate's value (rad or m)
    from the independent ones."""

    def __init__(self, f: Function, scale: float, n_independent: int):
        self._f, self._scale, self._n = f, float(scale), int(n_independent)

    def calc_value(self, x) -> float:
        x = np.asarray(x, dtype=float)
        return self._scale * self._f.calc_value(x[:self._n]) - x[self._n]

    def calc_derivative(self, deriv_components, x) -> float:
        x = np.asarray(x, dtype=float)
        components = list(deriv_components)
        if self._n in components:
            return -1.0 if len(components) == 1 else 0.0
        return self._scale * self._f.calc_derivative(components, x[:self._n])

    def get_argument_size(self) -> int:
        return self._n + 1

    def get_max_derivative_order(self) -> int:
        return 2


# Parameters of the compiled coupler: [s, q index of x_i, of x_d, u index of x_i, of x_d,
# then g's record].
_RECORD = 5


@helper(forceinline=False)
def coordinate_position_errors(cf, q, perr):
    """perr = s g(q_i) - q_d."""
    g = evaluate(cf, _RECORD, q)[0]
    perr[0] = cf[0] * g - q[int(cf[2])]


@helper(forceinline=False)
def coordinate_velocity_errors(cf, q, u, uerr):
    """pverr = s g'(q_i) u_i - u_d (q̇ = u for both)."""
    g1 = evaluate(cf, _RECORD, q)[1]
    uerr[0] = cf[0] * g1 * u[int(cf[3])] - u[int(cf[4])]


@helper(forceinline=False)
def coordinate_acceleration_errors(cf, q, u, udot, aerr):
    """paerr = s (g''(q_i) u_i² + g'(q_i) u̇_i) - u̇_d."""
    _, g1, g2, _ = evaluate(cf, _RECORD, q)
    i = int(cf[3])
    aerr[0] = cf[0] * (g2 * u[i] * u[i] + g1 * udot[i]) - udot[int(cf[4])]


@helper(forceinline=False)
def coordinate_forces(cf, q, lam, f):
    """f += Gᵀλ: s g'(q_i) λ on u_i, -λ on u_d."""
    g1 = evaluate(cf, _RECORD, q)[1]
    f[int(cf[3])] += cf[0] * g1 * lam[0]
    f[int(cf[4])] -= lam[0]


class _CoordinateCouplerImplementation(ConstraintImplementation):
    """perr = f(q_sel); no constrained bodies, one constrained mobilizer per distinct body
    whose q is selected."""

    def __init__(self, matter, function, coord_body, coord_index):
        pairs = _checks.coordinates(matter, coord_body, coord_index, _WHERE, "coord_body",
                                    "coord_index", "q")
        if not pairs:
            raise InvalidArgumentError(
                f"{_WHERE}: coord_body is empty; a coordinate coupler needs at least one "
                f"generalized coordinate to constrain.")
        self._function = _checks.function(function, len(pairs), _WHERE,
                                          "one per entry of coord_body / coord_index")
        super().__init__(matter, 1, 0, 0)
        self._pairs = pairs
        registered: dict[int, int] = {}
        self._coords = []      # (ConstrainedMobilizerIndex, MobilizerQIndex) per argument
        for mobod, which in pairs:
            key = mobod.get_mobilized_body_index()
            if key not in registered:
                registered[key] = self.add_constrained_mobilizer(mobod)
            self._coords.append((registered[key], which))

    def get_function(self):
        return self._function

    def realize_instance(self, state) -> None:
        _checks.check_num_q(state, self._pairs, _WHERE, "coord_index")

    def _x_from_state(self, state) -> np.ndarray:
        return np.array([self.get_one_q_from_state(state, m, k) for m, k in self._coords])

    def _gradient(self, x) -> np.ndarray:
        f = self._function
        return np.array([f.calc_derivative([i], x) for i in range(x.size)])

    def calc_position_errors(self, state, X_AB, constrained_q, perr) -> None:
        x = np.array([self.get_one_q(state, constrained_q, m, k) for m, k in self._coords])
        perr[0] = self._function.calc_value(x)

    def calc_position_dot_errors(self, state, V_AB, constrained_qdot, pverr) -> None:
        qdot = np.array([self.get_one_q_dot(state, constrained_qdot, m, k)
                         for m, k in self._coords])
        pverr[0] = float(self._gradient(self._x_from_state(state)) @ qdot)

    def calc_position_dot_dot_errors(self, state, A_AB, constrained_qdotdot, paerr) -> None:
        x = self._x_from_state(state)
        qdot = np.array([self.get_one_q_dot_from_state(state, m, k) for m, k in self._coords])
        qdotdot = np.array([self.get_one_q_dot_dot(state, constrained_qdotdot, m, k)
                            for m, k in self._coords])
        f = self._function
        quadratic = 0.0
        for i in range(x.size):       # the Hessian is symmetric: each pair once
            quadratic += f.calc_derivative([i, i], x) * qdot[i] * qdot[i]
            for j in range(i + 1, x.size):
                quadratic += 2.0 * f.calc_derivative([i, j], x) * qdot[i] * qdot[j]
        paerr[0] = quadratic + float(self._gradient(x) @ qdotdot)

    def add_in_position_constraint_forces(self, state, multipliers, body_forces_in_A,
                                          q_forces) -> None:
        gradient = self._gradient(self._x_from_state(state))
        for (m, k), g in zip(self._coords, gradient):
            self.add_in_one_q_force(state, m, k, multipliers[0] * g, q_forces)


class _CompiledCoordinateCouplerImplementation(_CoordinateCouplerImplementation,
                                               BuiltinImplementation):
    """A coupler of a CouplingFunction of one independent coordinate whose function has
    a table: the Python methods above for a user's calls, the compiled functions in the
    realization."""

    CODE = CODE

    def parameters(self, state) -> np.ndarray:
        (independent, i), (dependent, d) = self._pairs
        q_i = independent.get_first_q_index(state) + i
        u_i = independent.get_first_u_index(state) + i
        q_d = dependent.get_first_q_index(state) + d
        u_d = dependent.get_first_u_index(state) + d
        g = function_table.record(self._function._f, [q_i])
        return np.array([self._function._scale, q_i, q_d, u_i, u_d, *g], dtype=float)


def _compiles(function, pairs) -> bool:
    """Whether a coupler of ``function`` on the coordinates ``pairs`` has compiled
    equations (see the module docstring)."""
    if not (isinstance(function, CouplingFunction) and function._n == 1 and len(pairs) == 2
            and function_table.record(function._f, [0]) is not None):
        return False
    (a, i), (b, k) = pairs
    if a is b and i == k:
        return False
    return all(m._module.__name__.rsplit(".", 1)[-1] in _QDOT_IS_U
               or isinstance(m, MobilizedBody.FunctionBased) for m, _ in pairs)


class CoordinateCoupler(Custom):
    """``Constraint.CoordinateCoupler(matter, function, coord_body, coord_index)``: keeps
    f(q) = 0, where argument i of the Function is q number ``coord_index[i]`` of the
    mobilized body ``coord_body[i]`` (a MobilizedBody or its index); q in the mobilizer's
    own units (rad, m). The Function must take len(coord_body) arguments and provide
    derivatives to order 2. OpenSim's couplers (``CouplingFunction``) are compiled when
    their function is a built-in one of one coordinate."""

    def __init__(self, matter, function, coord_body, coord_index):
        impl = _CoordinateCouplerImplementation(matter, function, coord_body, coord_index)
        if _compiles(impl._function, impl._pairs):
            impl = _CompiledCoordinateCouplerImplementation(matter, function, coord_body,
                                                            coord_index)
        super().__init__(impl)

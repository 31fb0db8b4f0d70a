"""Force.ExponentialSpringForce: Simbody 3.8's exponential spring, contact of one point of
a body (the *body station*) with a plane fixed in Ground, and ExponentialSpringParameters,
its customizable parameters.

Frames (monogram notation): G is Ground, B the body, P the contact plane, given by
X_GP = (R_GP, p_GP); P's z axis is the plane's normal (pointing out of the material),
its x and y axes span the plane. The station s_B is fixed in B (m, in B). Its position
p_G = p_GB + R_GB s_B and velocity v_G (Ground, m and m/s) are re-expressed in P as
p_P = R_GPᵀ (p_G - p_GP) and v_P = R_GPᵀ v_G, and split into the height pz = p_P[2],
the normal speed vz = v_P[2], and their parts in the plane pxy, vxy (z set to 0).

Normal force (along P's z axis, N), Hunt-Crossley-like, always acting:

    fzElas = d1 exp(-d2 (pz - d0))       fzDamp = -cz vz fzElas
    fz = fzElas + fzDamp, kept in [0, maxFz] (fzDamp, then fzElas, adjusted so that
    fz = fzElas + fzDamp still holds)

Friction (in P's x-y plane, N), two models blended by the Sliding state K ∈ [0, 1]:

    model 1 (K = 1, sliding): -cxy vxy, its length capped at the limit μ fz
    model 2 (K = 0, fixed):   the damped spring -kxy (pxy - p0) - cxy vxy toward the
                              anchor point p0 (in the plane), both parts scaled down
                              together to the limit μ fz
    elastic part = model 2's elastic part (1 - K)
    damping part = model 2's damping part + (model 1 - model 2's damping part) K
    μ = μs - K (μs - μk)

The anchor point is then moved to agree with the elastic part, p0 = pxy + elastic/kxy
(z = 0), and the next Sliding is stepUp(clamp(|Δp0| / Δt / vSettle, 0, 1)), Δp0 the
anchor point's move and Δt the time since its last update (1 when that time is unknown or
the limit is below SimTK's SignificantReal). The force f_P = (friction x, y, fz), f_G =
R_GP f_P, acts on B at the station and its opposite on Ground at the same point.
Potential energy fzElas/d2 + ½ kxy |pxy - p0|² (J), with the moved p0, as Simbody's.

State (per State, as Simbody's discrete variables): μs and μk (Dynamics stage), and the
auto-update variables p0 (m, in P) and Sliding: each realization through DYNAMICS
computes their next values, which an integrator installs as its next step begins.
``get_sliding`` and ``get_anchor_point_position`` report those next values, as Simbody's.

Compiled: the element is a row of its subsystem's force table; ``calc`` below computes
everything in the one compiled realization. kinetree keeps the state of every
exponential spring of a force subsystem in one auto-update discrete variable (so that
compiled code reads it at once): the ``get_*_state_index`` methods give that variable's
index and ``get_state_slots`` where this spring's values lie in it.

Units: N, m, s, kg by default; any consistent set if every parameter is given in it.
"""

from __future__ import annotations

import math

import numpy as np

from kinetree.errors import InvalidArgumentError
from kinetree.forces.elements._stations import add_station_force, vector3
from kinetree.forces.elements._table import OUT, STATE, TableForce
from kinetree.jit import helper
from kinetree.math.transform import Transform
from kinetree.multibody.kernels.small import (
    add3,
    cross3,
    rotate3,
    rotate3_transpose,
    sub3,
    vec3,
)
from kinetree.registry import FORCES
from kinetree.system.stage import Stage

CODE = FORCES["exponential_spring_force"]

SIGNIFICANT_REAL = np.finfo(float).eps ** 0.875
"""SimTK's SignificantReal (eps^(7/8), about 1.9e-14): a friction limit below it is no
friction; an interval below it is no time."""

# The element's parameters (ff in ``calc``): R_GP by rows, p_GP, the station s_B, then
# d0, d1, d2, cz, maxFz, kxy, cxy, vSettle.
_R_GP, _P_GP, _STATION, _SHAPE = 0, 9, 12, 15
_CZ, _MAX_FZ, _KXY, _CXY, _V_SETTLE = 18, 19, 20, 21, 22
# Its state: μs, μk, p0 (in P), Sliding, and the time (s) p0 last changed (nan: never).
MU_STATIC, MU_KINETIC, ANCHOR_POINT, SLIDING, ANCHOR_TIME = 0, 1, 2, 5, 6
# Its reports (in P but f_G): fzElas, fzDamp, fz, μ, the friction limit, the friction's
# elastic part, damping part and total (3 each), and the force f_G on the body.
_FZ_ELAS, _FZ_DAMP, _FZ, _MU, _LIMIT, _FRIC_ELAS, _FRIC_DAMP, _FRIC, _F_G = (
    0, 1, 2, 3, 4, 5, 8, 11, 14)


# ----------------------------------------------------------------------- parameters
def _number(value, where: str, what: str) -> float:
    try:
        if isinstance(value, (str, bytes, bool, np.bool_)):
            raise TypeError
        x = float(value)
    except (TypeError, ValueError):
        raise InvalidArgumentError(f"{where}: {what} must be a number, got {value!r}.") \
            from None
    if not math.isfinite(x):
        raise InvalidArgumentError(f"{where}: {what} must be finite, got {value!r}.")
    return x


def _positive(value, where: str, what: str, units: str) -> float:
    x = _number(value, where, what)
    if not x > 0.0:
        raise InvalidArgumentError(f"{where}: expected {what} > 0 ({units}), got {x!r}; "
                                   f"give a positive value.")
    return x


def _nonnegative(value, where: str, what: str, units: str) -> float:
    x = _number(value, where, what)
    if not x >= 0.0:
        raise InvalidArgumentError(f"{where}: expected {what} >= 0 ({units}), got {x!r}; "
                                   f"give 0 for none.")
    return x


class ExponentialSpringParameters:
    """The parameters of an ExponentialSpringForce (Simbody's ExponentialSpringParameters),
    with Simbody's defaults: shape d0 = 0.0065905 m, d1 = 0.5336 N, d2 = 1150 /m (the
    normal force falls below 0.01 N 1 cm above the plane); normal viscosity cz = 0.5 s/m;
    maximum normal force 100000 N; friction spring elasticity kxy = 20000 N/m and
    viscosity cxy = 2 √(kxy · 1 kg) ≈ 282.84 N s/m (critical damping of 1 kg); settle
    velocity 0.01 m/s; initial μs = 0.7 and μk = 0.5.

    Set them here, then give them to ``ExponentialSpringForce.set_parameters`` (or its
    constructor): each spring keeps its own copy. μs and μk here are only the springs'
    initial values; change them in a State with ``ExponentialSpringForce.set_mu_static``
    and ``set_mu_kinetic``. A value out of range is refused, naming it; μs and μk are
    kept 0 <= μk <= μs as Simbody keeps them (a negative one becomes 0, and the other is
    moved to keep the order)."""

    __hash__ = None          # mutable, compared by value

    def __init__(self):
        self._d0, self._d1, self._d2 = 0.0065905, 0.5336, 1150.0
        self._cz = 0.5
        self._max_fz = 100000.0
        self._kxy, self._cxy = 20000.0, 0.0
        self._v_settle = 0.01
        self._mus, self._muk = 0.7, 0.5
        self.set_elasticity_and_viscosity_for_critical_damping(self._kxy)

    def _values(self) -> tuple:
        return (self._d0, self._d1, self._d2, self._cz, self._max_fz, self._kxy, self._cxy,
                self._v_settle, self._mus, self._muk)

    def __eq__(self, other) -> bool:
        if not isinstance(other, ExponentialSpringParameters):
            return NotImplemented
        return self._values() == other._values()

    def __ne__(self, other) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def copy(self) -> ExponentialSpringParameters:
        """An independent copy."""
        new = ExponentialSpringParameters.__new__(ExponentialSpringParameters)
        new.__dict__.update(self.__dict__)
        return new

    __copy__ = copy

    def __deepcopy__(self, memo) -> ExponentialSpringParameters:
        return self.copy()

    def __repr__(self) -> str:
        return ("ExponentialSpringParameters(d0={}, d1={}, d2={}, cz={}, max_fz={}, kxy={}, "
                "cxy={}, v_settle={}, initial_mu_static={}, initial_mu_kinetic={})"
                .format(*self._values()))

    def set_shape_parameters(self, d0, d1=0.5336, d2=1150.0) -> ExponentialSpringParameters:
        """The exponential fzElas = d1 exp(-d2 (pz - d0)): d0 (m, any sign) shifts it
        along the normal, d1 > 0 (N) scales it, d2 > 0 (1/m) sets how fast it rises as the
        station goes down."""
        where = "ExponentialSpringParameters.set_shape_parameters"
        d0 = _number(d0, where, "d0")
        d1 = _positive(d1, where, "d1", "N")
        d2 = _positive(d2, where, "d2", "1/m")
        self._d0, self._d1, self._d2 = d0, d1, d2
        return self

    def get_shape_parameters(self) -> tuple[float, float, float]:
        """(d0 (m), d1 (N), d2 (1/m))."""
        return self._d0, self._d1, self._d2

    def set_normal_viscosity(self, cz) -> ExponentialSpringParameters:
        """cz >= 0 (s/m): fzDamp = -cz vz fzElas; 0 dissipates nothing along the normal."""
        self._cz = _nonnegative(cz, "ExponentialSpringParameters.set_normal_viscosity",
                                "cz", "s/m")
        return self

    def get_normal_viscosity(self) -> float:
        return self._cz

    def set_max_normal_force(self, max_fz) -> ExponentialSpringParameters:
        """The normal force is capped at max_fz > 0 (N), a crude model of yielding that
        keeps hard impacts integrable."""
        self._max_fz = _positive(max_fz, "ExponentialSpringParameters.set_max_normal_force",
                                 "max_fz", "N")
        return self

    def get_max_normal_force(self) -> float:
        return self._max_fz

    def set_elasticity_and_viscosity_for_critical_damping(
            self, kxy, mass=1.0) -> ExponentialSpringParameters:
        """kxy > 0 (N/m), and cxy = 2 √(kxy mass) (N s/m), the damping critical for
        ``mass`` > 0 (kg) on the friction spring."""
        where = "ExponentialSpringParameters.set_elasticity_and_viscosity_for_critical_damping"
        kxy = _positive(kxy, where, "kxy", "N/m")
        mass = _positive(mass, where, "mass", "kg")
        self._kxy = kxy
        self._cxy = 2.0 * math.sqrt(self._kxy * mass)
        return self

    def set_friction_elasticity(self, kxy) -> ExponentialSpringParameters:
        """The friction spring's elasticity kxy > 0 (N/m)."""
        self._kxy = _positive(kxy, "ExponentialSpringParameters.set_friction_elasticity",
                              "kxy", "N/m")
        return self

    def get_friction_elasticity(self) -> float:
        return self._kxy

    def set_friction_viscosity(self, cxy) -> ExponentialSpringParameters:
        """The friction spring's viscosity cxy >= 0 (N s/m); with 0 a fixed station
        vibrates about its anchor point without end."""
        self._cxy = _nonnegative(cxy, "ExponentialSpringParameters.set_friction_viscosity",
                                 "cxy", "N s/m")
        return self

    def get_friction_viscosity(self) -> float:
        return self._cxy

    def set_settle_velocity(self, v_settle) -> ExponentialSpringParameters:
        """The anchor point speed v_settle > 0 (m/s) below which the station settles into
        the static state (Sliding toward 0, μ toward μs)."""
        self._v_settle = _positive(v_settle,
                                   "ExponentialSpringParameters.set_settle_velocity",
                                   "v_settle", "m/s")
        return self

    def get_settle_velocity(self) -> float:
        return self._v_settle

    def set_initial_mu_static(self, mus) -> ExponentialSpringParameters:
        """The initial μs (kept >= 0; μk lowered to it if above)."""
        mus = _number(mus, "ExponentialSpringParameters.set_initial_mu_static", "mus")
        self._mus = max(mus, 0.0)
        if self._muk > self._mus:
            self._muk = self._mus
        return self

    def get_initial_mu_static(self) -> float:
        return self._mus

    def set_initial_mu_kinetic(self, muk) -> ExponentialSpringParameters:
        """The initial μk (kept >= 0; μs raised to it if below)."""
        muk = _number(muk, "ExponentialSpringParameters.set_initial_mu_kinetic", "muk")
        self._muk = max(muk, 0.0)
        if self._mus < self._muk:
            self._mus = self._muk
        return self

    def get_initial_mu_kinetic(self) -> float:
        return self._muk


# ----------------------------------------------------------------------- the element
def _plane(X_GP, where: str) -> Transform:
    if not isinstance(X_GP, Transform):
        raise InvalidArgumentError(
            f"{where}: X_GP must be a Transform (the contact plane P in Ground, its z axis "
            f"the normal), got {X_GP!r}.")
    return X_GP


def _parameters(params, where: str) -> ExponentialSpringParameters:
    if params is None:
        return ExponentialSpringParameters()
    if not isinstance(params, ExponentialSpringParameters):
        raise InvalidArgumentError(
            f"{where}: params must be an ExponentialSpringParameters, got "
            f"{type(params).__name__}.")
    return params.copy()


class ExponentialSpringForce(TableForce):
    """``ExponentialSpringForce(forces, X_GP, body_B, station_B, params=None)``: contact
    of the station ``station_B`` (m, in B) of MobilizedBody ``body_B`` with the plane P
    fixed in Ground at ``X_GP`` (P's z axis the normal, pointing away from the material),
    with ``params`` (an ExponentialSpringParameters; Simbody's defaults if None). See the
    module docstring for the model. The force always acts (it is tiny, below 0.01 N,
    1 cm above the plane with the default shape), so no contact search is needed: give a
    body one spring per station that may touch (a block's eight corners).

    Getters report in P (``in_ground=False``) or Ground (the default), in N, m, m/s; those
    of forces and the anchor point need DYNAMICS, ``get_station_velocity`` VELOCITY and
    ``get_station_position`` POSITION. Before a simulation call ``reset_anchor_point`` so
    it does not start with a stretched friction spring.
    """

    CODE = CODE
    STAGE = Stage.VELOCITY
    STATE_SIZE = 7
    OUT_SIZE = 17

    def __init__(self, forces, X_GP, body_B, station_B, params=None):
        where = "ExponentialSpringForce"
        if not hasattr(body_B, "get_mobilized_body_index"):
            raise InvalidArgumentError(
                f"{where}: body_B must be a MobilizedBody, got {type(body_B).__name__}.")
        self._X_GP = _plane(X_GP, where)
        self._station = np.array(vector3(station_B, where, "station_B"))
        self._station.flags.writeable = False
        self._params = _parameters(params, where)
        self._mobods = (body_B,)
        self._body = body_B
        self._body1 = body_B.get_mobilized_body_index()
        super().__init__(forces, self._layout())

    def _layout(self) -> list[float]:
        p = self._params
        return [*self._X_GP.R.as_matrix().ravel(), *self._X_GP.p, *self._station,
                p._d0, p._d1, p._d2, p._cz, p._max_fz, p._kxy, p._cxy, p._v_settle]

    def _default_state(self) -> np.ndarray:
        p = self._params
        return np.array([p._mus, p._muk, 0.0, 0.0, 0.0, 1.0, np.nan])

    def check_state(self, values: np.ndarray) -> str | None:
        mus, muk, sliding = values[MU_STATIC], values[MU_KINETIC], values[SLIDING]
        if not np.all(np.isfinite(values[:ANCHOR_TIME])):
            return f"its state {values.tolist()} holds a value that is not finite"
        if not 0.0 <= muk <= mus:
            return f"μk = {muk!r} and μs = {mus!r}; its setters keep 0 <= μk <= μs"
        if not 0.0 <= sliding <= 1.0:
            return f"Sliding = {sliding!r}; it lies in [0, 1]"
        return None

    # ------------------------------------------------------------ construction choices
    def get_contact_plane_transform(self) -> Transform:
        """X_GP, the contact plane P in Ground."""
        return self._X_GP

    def get_body(self):
        """The MobilizedBody whose station touches the plane."""
        return self._body

    def get_station(self) -> np.ndarray:
        """s_B, the body station (m, in B; read-only)."""
        return self._station

    def set_parameters(self, params) -> None:
        """Give this spring a copy of ``params`` (an ExponentialSpringParameters); a
        topology change, as in Simbody: call ``system.realize_topology()`` again (the
        initial μs and μk are those of new States)."""
        self._params = _parameters(params, "ExponentialSpringForce.set_parameters")
        self._defaults = np.asarray(self._layout(), dtype=float)
        self._forces.invalidate_subsystem_topology_cache()

    def get_parameters(self) -> ExponentialSpringParameters:
        """A copy of this spring's parameters."""
        return self._params.copy()

    # ------------------------------------------------------------ μs and μk (per State)
    def set_mu_static(self, state, mus) -> None:
        """μs in ``state`` (kept >= 0; μk lowered to it if above); a Dynamics-stage
        change."""
        mus = max(_number(mus, "ExponentialSpringForce.set_mu_static", "mus"), 0.0)
        muk = min(self.get_mu_kinetic(state), mus)
        self._set_state(state, MU_STATIC, [mus, muk])

    def get_mu_static(self, state) -> float:
        return float(self._state(state)[MU_STATIC])

    def set_mu_kinetic(self, state, muk) -> None:
        """μk in ``state`` (kept >= 0; μs raised to it if below); a Dynamics-stage
        change."""
        muk = max(_number(muk, "ExponentialSpringForce.set_mu_kinetic", "muk"), 0.0)
        mus = max(self.get_mu_static(state), muk)
        self._set_state(state, MU_STATIC, [mus, muk])

    def get_mu_kinetic(self, state) -> float:
        return float(self._state(state)[MU_KINETIC])

    # ------------------------------------------------------------ auto-update state
    def get_sliding(self, state) -> float:
        """The Sliding state after the realization of ``state`` through DYNAMICS (the value
        it takes at the next auto-update): 0 fixed, 1 sliding."""
        return float(self._results(state, "ExponentialSpringForce.get_sliding")[0][SLIDING])

    def get_anchor_point_position(self, state, in_ground: bool = True) -> np.ndarray:
        """The elastic anchor point p0 after the realization of ``state`` through DYNAMICS
        (m): in Ground (a point of the plane from G's origin), or in P (z = 0)."""
        p0 = np.array(self._results(state, "ExponentialSpringForce."
                                           "get_anchor_point_position")[0][ANCHOR_POINT:
                                                                           ANCHOR_POINT + 3])
        return self._X_GP.shift_frame_station_to_base(p0) if in_ground else p0

    def reset_anchor_point(self, state) -> None:
        """Put the anchor point at the station's projection onto the plane, so the friction
        spring is unstretched (do this before a simulation); a Dynamics-stage change."""
        system = self._forces.get_system()
        system.realize(state, Stage.POSITION)
        p_P = self._station_location(state)[1]
        self._set_state(state, ANCHOR_POINT, [p_P[0], p_P[1], 0.0])
        self._set_state(state, ANCHOR_TIME, [state.get_time()])

    def _station_location(self, state) -> tuple[np.ndarray, np.ndarray]:
        """(p_G, p_P) of the station (m), in the compiled ``calc``'s order of operations,
        so that they are its numbers to the last bit (an anchor point reset to the
        station's projection leaves no stretch)."""
        X_GB = self._body.get_body_transform(state)
        R, p, s = X_GB.R.as_matrix(), X_GB.p, self._station
        p_G = [float(p[i] + (R[i, 0] * s[0] + R[i, 1] * s[1] + R[i, 2] * s[2]))
               for i in range(3)]
        R_GP, p_GP = self._X_GP.R.as_matrix(), self._X_GP.p
        d = [p_G[i] - float(p_GP[i]) for i in range(3)]
        p_P = [float(R_GP[0, i] * d[0] + R_GP[1, i] * d[1] + R_GP[2, i] * d[2])
               for i in range(3)]
        return np.array(p_G), np.array(p_P)

    # ------------------------------------------------------------ reports (DYNAMICS)
    def _out(self, state, method: str) -> np.ndarray:
        return self._results(state, f"ExponentialSpringForce.{method}")[1]

    def _normal(self, value: float, in_ground: bool) -> np.ndarray:
        v = np.array([0.0, 0.0, value])
        return self._X_GP.xform_frame_vec_to_base(v) if in_ground else v

    def _tangent(self, out: np.ndarray, at: int, in_ground: bool) -> np.ndarray:
        v = np.array(out[at:at + 3])
        return self._X_GP.xform_frame_vec_to_base(v) if in_ground else v

    def get_normal_force_elastic_part(self, state, in_ground: bool = True) -> np.ndarray:
        """(0, 0, fzElas) in P, or that vector in Ground (N)."""
        return self._normal(self._out(state, "get_normal_force_elastic_part")[_FZ_ELAS],
                            in_ground)

    def get_normal_force_damping_part(self, state, in_ground: bool = True) -> np.ndarray:
        """(0, 0, fzDamp) in P, or that vector in Ground (N)."""
        return self._normal(self._out(state, "get_normal_force_damping_part")[_FZ_DAMP],
                            in_ground)

    def get_normal_force(self, state, in_ground: bool = True) -> np.ndarray:
        """(0, 0, fz) in P, or that vector in Ground (N); fz in [0, maxFz]."""
        return self._normal(self._out(state, "get_normal_force")[_FZ], in_ground)

    def get_mu(self, state) -> float:
        """The instantaneous coefficient of friction μ = μs - Sliding (μs - μk)."""
        return float(self._out(state, "get_mu")[_MU])

    def get_friction_force_limit(self, state) -> float:
        """μ fz (N), the most friction there can be."""
        return float(self._out(state, "get_friction_force_limit")[_LIMIT])

    def get_friction_force_elastic_part(self, state, in_ground: bool = True) -> np.ndarray:
        """The friction spring's elastic part (N; z = 0 in P)."""
        return self._tangent(self._out(state, "get_friction_force_elastic_part"),
                             _FRIC_ELAS, in_ground)

    def get_friction_force_damping_part(self, state, in_ground: bool = True) -> np.ndarray:
        """The friction's damping part (N; z = 0 in P)."""
        return self._tangent(self._out(state, "get_friction_force_damping_part"),
                             _FRIC_DAMP, in_ground)

    def get_friction_force(self, state, in_ground: bool = True) -> np.ndarray:
        """The friction force, elastic plus damping part (N; z = 0 in P)."""
        return self._tangent(self._out(state, "get_friction_force"), _FRIC, in_ground)

    def get_force(self, state, in_ground: bool = True) -> np.ndarray:
        """The whole force on the body at the station (N): friction plus normal force."""
        out = self._out(state, "get_force")
        if in_ground:
            return np.array(out[_F_G:_F_G + 3])
        return np.array([out[_FRIC], out[_FRIC + 1], out[_FZ]])

    def get_station_position(self, state, in_ground: bool = True) -> np.ndarray:
        """The station's position (m): p_G from G's origin in Ground, or p_P from P's
        origin in P; needs POSITION."""
        p_G, p_P = self._station_location(state)
        return p_G if in_ground else p_P

    def get_station_velocity(self, state, in_ground: bool = True) -> np.ndarray:
        """The station's velocity in Ground (m/s), expressed in Ground or in P; needs
        VELOCITY."""
        v_G = self._body.find_station_velocity_in_ground(state, self._station)
        return np.array(v_G) if in_ground else self._X_GP.xform_base_vec_to_frame(v_G)

    def calc_potential_energy(self, state) -> float:
        """fzElas/d2 + ½ kxy |pxy - p0|² (J) in ``state`` (realized to VELOCITY)."""
        return self._forces._evaluate(state, self, Stage.VELOCITY)[2]

    # ------------------------------------------------------------ state indices
    def get_mu_static_state_index(self) -> int:
        """The index of the force subsystem's discrete variable holding μs (with the
        other state of its exponential springs; ``get_state_slots``)."""
        return self._state_variable()

    get_mu_kinetic_state_index = get_mu_static_state_index
    get_sliding_state_index = get_mu_static_state_index
    get_anchor_point_state_index = get_mu_static_state_index

    def get_state_slots(self) -> dict:
        """Where this spring's μs, μk, anchor point p0 (in P) and Sliding are in the
        discrete variable of ``get_mu_static_state_index()``: {"mu_static": i,
        "mu_kinetic": i + 1, "anchor_point": slice(i + 2, i + 5), "sliding": i + 5}."""
        self._state_variable()
        i = int(self._forces._force_i[self._index, STATE])
        return {"mu_static": i + MU_STATIC, "mu_kinetic": i + MU_KINETIC,
                "anchor_point": slice(i + ANCHOR_POINT, i + ANCHOR_POINT + 3),
                "sliding": i + SLIDING}

    def _state_variable(self) -> int:
        index = getattr(self._forces, "_state_index", None)
        if index is None or self._forces._force_i.shape[0] <= self._index \
                or self._forces._force_i[self._index, STATE] < 0:
            raise InvalidArgumentError(
                "ExponentialSpringForce: its state variables are allocated at TOPOLOGY; "
                "call system.realize_topology() first.")
        return index


# ----------------------------------------------------------------------- compiled
@helper
def _norm3(v):
    return math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])


@helper
def _scale3(v, s):
    return (v[0] * s, v[1] * s, v[2] * s)


@helper(forceinline=False)
def calc(fi, ff, tree, cache, q, u, body_forces, mobility_forces):
    """ff = [R_GP (9, by rows), p_GP (3), s_B (3), d0, d1, d2, cz, maxFz, kxy, cxy,
    vSettle]; the state at fi[STATE] (μs, μk, p0 (3), Sliding, the time p0 last changed),
    the reports at fi[OUT]."""
    b = fi[1]
    R_GP = ff[_R_GP:_R_GP + 9].reshape((3, 3))
    d0, d1, d2 = ff[_SHAPE], ff[_SHAPE + 1], ff[_SHAPE + 2]
    cz, max_fz, kxy, cxy, v_settle = ff[_CZ], ff[_MAX_FZ], ff[_KXY], ff[_CXY], ff[_V_SETTLE]
    s = cache.force_state[fi[STATE]:]
    nxt = cache.force_next[fi[STATE]:]
    out = cache.force_out[fi[OUT]:]
    t = cache.time[0]

    # The station in Ground and in P (POSITION), and its velocity (VELOCITY).
    r = rotate3(cache.R_GB[b], vec3(ff[_STATION:_STATION + 3]))
    p_G = add3(vec3(cache.p_GB[b]), r)
    p_P = rotate3_transpose(R_GP, sub3(p_G, vec3(ff[_P_GP:_P_GP + 3])))
    V = cache.V_GB[b]
    v_G = add3(vec3(V[3:]), cross3(vec3(V[:3]), r))
    v_P = rotate3_transpose(R_GP, v_G)
    pz, vz = p_P[2], v_P[2]
    pxy = (p_P[0], p_P[1], 0.0)
    vxy = (v_P[0], v_P[1], 0.0)

    # The normal force, kept in [0, maxFz] with fz = fzElas + fzDamp.
    fz_elas = d1 * math.exp(-d2 * (pz - d0))
    fz_damp = -cz * vz * fz_elas
    fz = fz_elas + fz_damp
    if fz < 0.0:
        fz = 0.0
        fz_damp = -fz_elas
    if fz > max_fz:
        fz = max_fz
        fz_elas = fz - fz_damp

    # The friction force.
    mus, muk = s[MU_STATIC], s[MU_KINETIC]
    p0 = (s[ANCHOR_POINT], s[ANCHOR_POINT + 1], s[ANCHOR_POINT + 2])
    sliding = s[SLIDING]
    mu = mus - sliding * (mus - muk)
    limit = mu * fz
    if limit < SIGNIFICANT_REAL:
        elas = damp = fric = (0.0, 0.0, 0.0)
        p0_new = pxy
    else:
        limit_sqr = limit * limit
        # model 1, pure damping, capped at the limit
        damp2 = (-cxy * vxy[0], -cxy * vxy[1], -cxy * vxy[2])
        damp1 = damp2
        n1 = damp1[0] * damp1[0] + damp1[1] * damp1[1] + damp1[2] * damp1[2]
        if n1 > limit_sqr:
            norm = math.sqrt(n1)
            damp1 = _scale3((damp1[0] / norm, damp1[1] / norm, damp1[2] / norm), limit)
        # model 2, the damped spring toward p0, scaled down as a whole to the limit
        elas2 = (-kxy * (pxy[0] - p0[0]), -kxy * (pxy[1] - p0[1]), -kxy * (pxy[2] - p0[2]))
        fric2 = add3(elas2, damp2)
        n2 = fric2[0] * fric2[0] + fric2[1] * fric2[1] + fric2[2] * fric2[2]
        if n2 > limit_sqr:
            scale = limit / math.sqrt(n2)
            elas2 = _scale3(elas2, scale)
            damp2 = _scale3(damp2, scale)
        # the blend by Sliding
        elas = _scale3(elas2, 1.0 - sliding)
        damp = add3(damp2, _scale3(sub3(damp1, damp2), sliding))
        fric = add3(elas, damp)
        p0_new = (pxy[0] + elas[0] / kxy, pxy[1] + elas[1] / kxy, 0.0)

    # The next Sliding, from the anchor point's speed since its last update.
    sliding_new = 1.0
    dt = t - s[ANCHOR_TIME]
    if dt > SIGNIFICANT_REAL and limit > SIGNIFICANT_REAL:
        speed = _norm3(sub3(p0_new, p0)) / dt
        x = min(max(speed / v_settle, 0.0), 1.0)
        sliding_new = x * x * x * (10.0 + x * (6.0 * x - 15.0))

    f_P = (fric[0], fric[1], fz)
    f_G = rotate3(R_GP, f_P)
    add_station_force(body_forces, b, r, f_G)
    add_station_force(body_forces, 0, p_G, (-f_G[0], -f_G[1], -f_G[2]))

    nxt[MU_STATIC] = mus
    nxt[MU_KINETIC] = muk
    for i in range(3):
        nxt[ANCHOR_POINT + i] = p0_new[i]
        out[_FRIC_ELAS + i] = elas[i]
        out[_FRIC_DAMP + i] = damp[i]
        out[_FRIC + i] = fric[i]
        out[_F_G + i] = f_G[i]
    nxt[SLIDING] = sliding_new
    nxt[ANCHOR_TIME] = t
    out[_FZ_ELAS] = fz_elas
    out[_FZ_DAMP] = fz_damp
    out[_FZ] = fz
    out[_MU] = mu
    out[_LIMIT] = limit

    stretch = sub3(pxy, p0_new)
    return fz_elas / d2 + 0.5 * kxy * (stretch[0] * stretch[0] + stretch[1] * stretch[1]
                                       + stretch[2] * stretch[2])

"""Force.Gravity: a uniform gravitational field of a magnitude g along a "down" direction d
(Ground), applied to every body that is not excluded; direction, magnitude, zero height
and the exclusions may differ per State."""

from __future__ import annotations

import numpy as np

from kinetree.errors import InvalidArgumentError
from kinetree.forces.elements._stations import finite, same_system_matter, vector3
from kinetree.forces.elements._table import TableForce
from kinetree.jit import helper
from kinetree.multibody.kernels.gravity import add_gravity_force
from kinetree.registry import FORCES
from kinetree.system.stage import Stage

CODE = FORCES["gravity"]

DEFAULT_DOWN = (0.0, -1.0, 0.0)
"""The down direction when none can be had from a vector: the opposite of Simbody's
default "up" direction of a System, Ground's +y."""

_BASE = 5
"""Parameters before the exclusion flags: d (3), g, zero height."""


def _direction(value, where: str, what: str) -> np.ndarray:
    """``value`` as a unit vector (3 finite numbers, not all zero; the length dropped)."""
    v = vector3(value, where, what)
    n = float(np.linalg.norm(v))
    if n == 0.0:
        raise InvalidArgumentError(
            f"{where}: {what} must not be the zero vector; to turn gravity off, give a "
            f"magnitude of 0 instead.")
    return v / n


def _magnitude(value, where: str) -> float:
    return finite(value, where, "magnitude g (m/s², >= 0)", 0.0)


def _split(gravity, where: str, down) -> tuple[np.ndarray, float]:
    """(d, g) of a gravity vector g d (m/s², in Ground); ``down`` is kept when it is
    exactly zero."""
    v = vector3(gravity, where, "gravity (m/s² in Ground)")
    g = float(np.linalg.norm(v))
    return (np.array(down, dtype=float) if g == 0.0 else v / g), g


class Gravity(TableForce):
    """Gravity g d on every body B not excluded: the force m_B g d at its mass center, i.e.
    the spatial force [c × m_B g d; m_B g d] about the body origin (N m; N, in Ground; c
    the mass center from the origin, in Ground). d is the unit "down" direction, in
    Ground; g >= 0 (m/s²).

    Potential energy Σ m_B g h_B over the bodies not excluded, where h_B = p_GC·(-d) - h_z
    is the height of B's mass center C above the zero height h_z (m), measured up along
    -d; it is signed.

    ``Gravity(forces, matter, down_direction, magnitude, zero_height=0)`` as given;
    ``Gravity(forces, matter, gravity)`` from a gravity vector g d (m/s², in Ground), whose
    direction is -y if it is exactly zero; ``Gravity(forces, matter, magnitude)`` along -y
    (the opposite of Simbody's default up direction, +y). Ground is always excluded; any
    other body can be, by default (``set_default_body_is_excluded``) or per State
    (``set_body_is_excluded``). Every per-State change backs the State up to VELOCITY.
    """

    CODE = CODE
    NONNEGATIVE = (3,)

    def __init__(self, forces, matter, down_direction, magnitude=None,
                 zero_height: float = 0.0):
        where = "Force.Gravity"
        self._matter = same_system_matter(forces, matter, where)
        if magnitude is not None:
            d = _direction(down_direction, where, "down_direction")
            g = _magnitude(magnitude, where)
        elif np.ndim(down_direction) == 0:
            d, g = np.array(DEFAULT_DOWN), _magnitude(down_direction, where)
        else:
            d, g = _split(down_direction, where, DEFAULT_DOWN)
        self._excluded_by_default: set[int] = set()
        super().__init__(forces, [*d, g, finite(zero_height, where, "zero_height (m)")])

    def check_parameters(self, params) -> str | None:
        """As the setters keep them: g >= 0, a unit down direction, exclusion flags of
        0 or 1 with Ground's set."""
        if not abs(float(np.linalg.norm(params[:3])) - 1.0) <= 1e-12:
            return f"the down direction {params[:3].tolist()} is not a unit vector"
        flags = params[_BASE:]
        if flags.size and (flags[0] != 1.0 or not np.all((flags == 0.0) | (flags == 1.0))):
            return f"the body exclusion flags {flags.tolist()} must be 0 or 1, Ground's 1"
        return super().check_parameters(params)

    # ------------------------------------------------------------ layout
    def _lay_out(self, matter) -> None:
        """[d, g, h_z, then one exclusion flag per body, Ground's set]."""
        flags = np.zeros(matter.get_num_bodies())
        flags[0] = 1.0
        for b in self._excluded_by_default:
            if b < flags.size:
                flags[b] = 1.0
        self._defaults = np.concatenate([self._defaults[:_BASE], flags])

    def _body_index(self, mobod, where: str) -> int:
        """The index of ``mobod`` (a MobilizedBody of this element's matter subsystem, or
        its index)."""
        if hasattr(mobod, "get_mobilized_body_index"):
            if mobod.get_matter_subsystem() is not self._matter:
                raise InvalidArgumentError(
                    f"{where}: the MobilizedBody belongs to another matter subsystem than "
                    f"this Gravity's.")
            return int(mobod.get_mobilized_body_index())
        if isinstance(mobod, (bool, np.bool_)) or not isinstance(mobod, (int, np.integer)):
            raise InvalidArgumentError(
                f"{where}: give a MobilizedBody or its index, got {mobod!r}.")
        b = int(mobod)
        if not 0 <= b < self._matter.get_num_bodies():
            raise InvalidArgumentError(
                f"{where}: no body {b}; the matter subsystem has "
                f"{self._matter.get_num_bodies()} (Ground is 0).")
        return b

    def _changed_default(self) -> Gravity:
        self._forces.invalidate_subsystem_topology_cache()
        return self

    # ---------------------------------------------------------- defaults
    def set_default_body_is_excluded(self, mobod, is_excluded: bool) -> Gravity:
        """Whether ``mobod`` (a MobilizedBody or its index) escapes this gravity in a new
        State; a topology change. Ground is always excluded: asking for it is ignored."""
        b = self._body_index(mobod, "Force.Gravity.set_default_body_is_excluded")
        if b != 0:
            (self._excluded_by_default.add if is_excluded
             else self._excluded_by_default.discard)(b)
        return self._changed_default()

    def get_default_body_is_excluded(self, mobod) -> bool:
        b = self._body_index(mobod, "Force.Gravity.get_default_body_is_excluded")
        return b == 0 or b in self._excluded_by_default

    def set_default_gravity_vector(self, gravity) -> Gravity:
        """Default g d (m/s², in Ground); exactly zero changes only the magnitude."""
        d, g = _split(gravity, "Force.Gravity.set_default_gravity_vector", self._defaults[:3])
        self._defaults[:4] = [*d, g]
        return self._changed_default()

    def set_default_down_direction(self, down) -> Gravity:
        """Default d (in Ground; normalized, must not be zero)."""
        self._defaults[:3] = _direction(down, "Force.Gravity.set_default_down_direction",
                                        "down")
        return self._changed_default()

    def set_default_magnitude(self, g) -> Gravity:
        """Default g (m/s², >= 0)."""
        self._defaults[3] = _magnitude(g, "Force.Gravity.set_default_magnitude")
        return self._changed_default()

    def set_default_zero_height(self, zero_height) -> Gravity:
        """Default h_z (m), the height of zero potential energy along -d."""
        self._defaults[4] = finite(zero_height, "Force.Gravity.set_default_zero_height",
                                   "zero_height (m)")
        return self._changed_default()

    def get_default_gravity_vector(self) -> np.ndarray:
        """g d (m/s², in Ground)."""
        return self._defaults[3] * self._defaults[:3]

    def get_default_down_direction(self) -> np.ndarray:
        return self._defaults[:3].copy()

    def get_default_magnitude(self) -> float:
        return float(self._defaults[3])

    def get_default_zero_height(self) -> float:
        return float(self._defaults[4])

    # --------------------------------------------------------- per State
    def set_body_is_excluded(self, state, mobod, is_excluded: bool) -> Gravity:
        """Whether ``mobod`` (a MobilizedBody or its index) escapes this gravity in
        ``state``; backs the State up to VELOCITY. Ground's flag cannot change (ignored)."""
        b = self._body_index(mobod, "Force.Gravity.set_body_is_excluded")
        if b != 0:
            self._set_params(state, _BASE + b, [1.0 if is_excluded else 0.0])
        return self

    def get_body_is_excluded(self, state, mobod) -> bool:
        b = self._body_index(mobod, "Force.Gravity.get_body_is_excluded")
        return bool(self._params(state)[_BASE + b] != 0.0)

    def set_gravity_vector(self, state, gravity) -> Gravity:
        """g d (m/s², in Ground) in ``state``; exactly zero changes only the magnitude.
        Backs the State up to VELOCITY."""
        d, g = _split(gravity, "Force.Gravity.set_gravity_vector", self._params(state)[:3])
        self._set_params(state, 0, [*d, g])
        return self

    def set_down_direction(self, state, down) -> Gravity:
        """d (in Ground; normalized, must not be zero) in ``state``; backs the State up
        to VELOCITY."""
        self._set_params(state, 0, _direction(down, "Force.Gravity.set_down_direction",
                                              "down"))
        return self

    def set_magnitude(self, state, g) -> Gravity:
        """g (m/s², >= 0) in ``state``; backs the State up to VELOCITY."""
        self._set_params(state, 3, [_magnitude(g, "Force.Gravity.set_magnitude")])
        return self

    def set_zero_height(self, state, zero_height) -> Gravity:
        """h_z (m) in ``state``; backs the State up to VELOCITY."""
        self._set_params(state, 4, [finite(zero_height, "Force.Gravity.set_zero_height",
                                           "zero_height (m)")])
        return self

    def get_gravity_vector(self, state) -> np.ndarray:
        """g d (m/s², in Ground) in ``state``."""
        p = self._params(state)
        return p[3] * p[:3]

    def get_down_direction(self, state) -> np.ndarray:
        return self._params(state)[:3].copy()

    def get_magnitude(self, state) -> float:
        return float(self._params(state)[3])

    def get_zero_height(self, state) -> float:
        return float(self._params(state)[4])

    # --------------------------------------------------- forces and energy
    def get_potential_energy(self, state) -> float:
        """Σ m_B g h_B (J) in ``state``, enabled or not; needs POSITION."""
        return self.calc_potential_energy(state)

    def get_body_forces(self, state) -> np.ndarray:
        """(bodies x 6): the spatial force [moment about the body origin; force] (N m; N,
        in Ground) this element applies to each body in ``state``, zero on Ground and the
        excluded bodies; for gravity compensation, map it to generalized forces with the
        system Jacobian's transpose. Needs POSITION."""
        return self._forces._evaluate(state, self, Stage.POSITION)[0]

    def get_body_force(self, state, mobod) -> np.ndarray:
        """One body's row of ``get_body_forces``."""
        return self.get_body_forces(state)[self._body_index(mobod,
                                                            "Force.Gravity.get_body_force")]


@helper(forceinline=False)
def calc(fi, ff, tree, cache, q, u, body_forces, mobility_forces):
    """ff = [d (3), g, h_z, excluded (one flag per body)]."""
    g = ff[3]
    gd = (g * ff[0], g * ff[1], g * ff[2])
    pe = 0.0
    for b in range(1, tree.mass.shape[0]):
        if ff[5 + b] != 0.0:
            continue
        add_gravity_force(tree.mass, cache.com_G, gd, body_forces, b)
        p, c = cache.p_GB[b], cache.com_G[b]
        up = -((p[0] + c[0]) * ff[0] + (p[1] + c[1]) * ff[1] + (p[2] + c[2]) * ff[2])
        pe += tree.mass[b] * g * (up - ff[4])
    return pe

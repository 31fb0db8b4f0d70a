"""Force.SmoothSphereHalfSpaceForce: Simbody's smooth (twice differentiable) Hunt-Crossley
contact between one sphere and one half space, needing no contact subsystem.

Simbody 3.8's ``SmoothSphereHalfSpaceForce`` (Falisse and Serrancolí), which OpenSim's
element of the same name builds; made for gradient-based optimal control, where every
``if`` of the plain Hunt-Crossley model is replaced by a tanh blend.

Notation (monogram): S is the sphere's body, its centre the station c_S (m, in S); H is
the half space's body and F the half-space frame fixed on it, X_HF = (R_HF, p_HF). The
half space fills x_F > 0 (the points with positive x in F are inside the material), so
its normal n = R_GH R_HF x̂ (in Ground) points *into* the material, the direction in
which the sphere penetrates. With the sphere's centre p_GC and radius r:

- depth x = (p_HC - p_HF) · x̂_F + r (m), p_HC the centre in H;
- the contact point P = p_GC + r n - x/2 n (midway between the two surfaces, both taken
  equally stiff) and the slip velocity v = v_GP(on S) - v_GP(on H), split into its normal
  part v_n = v · n (m/s, > 0 while penetrating) and tangential part v_t;
- Hertz: k = ½ E^(2/3), f_h = (4/3) k √(r k) (x² + c_f)^(3/4) (½ + ½ tanh(b_d x));
- Hunt-Crossley: f_hc = f_h (1 + (3/2) c v_n) (½ + ½ tanh(b_v (v_n + 2/(3c))));
- friction: v_s = √(|v_t|² + c_f), v_r = v_s / v_trans,
  f_f = f_hc (min(v_r, 1) (μd + 2 (μs - μd) / (1 + v_r²)) + μv v_s);
- the force f = f_hc n + f_f v_t / v_s (N, in Ground) acts at P on H, and -f at P on S;
- potential energy (2/5) f_h x (J), Simbody's approximation (not the integral of f_h).

The constants c_f (``constant_contact_force``: m² under the depth's square root, m²/s²
under the slip speed's, as Simbody uses the one number for both; OpenSim's documentation
calls it a force), b_d (1/m) and b_v (s/m) are the smoothing parameters.
"""

from __future__ import annotations

import math

import numpy as np

from kinetree.errors import InvalidArgumentError
from kinetree.forces.elements._stations import add_station_force, finite, vector3
from kinetree.forces.elements._table import TableForce
from kinetree.jit import helper
from kinetree.math.rotation import Rotation
from kinetree.math.transform import Transform
from kinetree.multibody.kernels.small import add3, cross3, rotate3, rotate3_transpose, sub3, vec3
from kinetree.registry import FORCES
from kinetree.system.stage import Stage
from kinetree.system.state import State

CODE = FORCES["smooth_sphere_half_space_force"]

# The element's parameters, in order (ff in ``calc``).
_LOCATION, _RADIUS, _FRAME, _MATERIAL = 0, 3, 4, 16
_NAMES = ("stiffness", "dissipation", "static_friction", "dynamic_friction",
          "viscous_friction", "transition_velocity", "constant_contact_force",
          "hertz_smoothing", "hunt_crossley_smoothing")
_DEFAULTS = (1.0, 0.0, 0.0, 0.0, 0.0, 0.01, 1e-5, 300.0, 50.0)
"""Simbody's defaults (and OpenSim's)."""
_POSITIVE = frozenset(("transition_velocity", "constant_contact_force", "hertz_smoothing",
                       "hunt_crossley_smoothing"))
"""The material numbers that must be > 0; the others >= 0. c_f > 0 keeps the slip speed
v_s > 0, which the friction direction v_t / v_s divides by."""
_UNITS = {"stiffness": "Pa", "dissipation": "s/m", "viscous_friction": "s/m",
          "transition_velocity": "m/s", "hertz_smoothing": "1/m",
          "hunt_crossley_smoothing": "s/m"}


def _material(value, name: str, where: str) -> float:
    v = finite(value, where, name, 0.0)
    if name in _POSITIVE and not v > 0.0:
        unit = f" ({_UNITS[name]})" if name in _UNITS else ""
        raise InvalidArgumentError(f"{where}: {name} must be > 0{unit}, got {value!r}.")
    return v


def _radius(value, where: str) -> float:
    r = finite(value, where, "radius (m)", 0.0)
    if not r > 0.0:
        raise InvalidArgumentError(f"{where}: the sphere's radius must be > 0 (m), got "
                                   f"{value!r}.")
    return r


def _frame(X, where: str) -> list[float]:
    if not isinstance(X, Transform):
        raise InvalidArgumentError(
            f"{where}: the half-space frame must be a Transform X_HF (the frame F on the "
            f"half space's body H; the material fills x > 0 of F), got {X!r}.")
    return [*X.R.as_matrix().ravel(), *X.p]


def _per_state(args: tuple, where: str, count: int = 1):
    """(state or None, the values) of a setter called as Simbody's ``set_x(value)`` (the
    default, a topology change) or as ``set_x(state, value)`` (that State only)."""
    if len(args) == count + 1 and isinstance(args[0], State):
        return args[0], args[1:]
    if len(args) == count and not isinstance(args[0], State):
        return None, args
    raise InvalidArgumentError(
        f"{where}: give the value ({where.rsplit('.', 1)[-1]}(value)) to change the default, "
        f"or a State and the value ({where.rsplit('.', 1)[-1]}(state, value)) to change "
        f"that State only; got {len(args)} arguments.")


class SmoothSphereHalfSpaceForce(TableForce):
    """A sphere (radius r, m; centre c_S, m, in the sphere body's frame S) in smooth
    Hunt-Crossley contact with a half space (frame F fixed on body H by X_HF; the material
    fills x > 0 of F, so with F turned -90° about z a floor fills y < 0). Simbody's law
    (module docstring): Hertz stiffness from the plane-strain modulus E (``stiffness``,
    Pa), dissipation c (s/m), friction μs, μd, μv (s/m) below and above the transition
    velocity (m/s), and the smoothing constants c_f, b_d (1/m), b_v (s/m).

    Built as in Simbody: ``SmoothSphereHalfSpaceForce(forces)``, then
    ``set_contact_sphere_body``, ``set_contact_sphere_location_in_body``,
    ``set_contact_sphere_radius``, ``set_contact_half_space_body``,
    ``set_contact_half_space_frame`` and ``set_parameters`` (or the single setters). Each
    setter called with the value alone changes the default (a topology change: States
    made before are refused); called as ``set_x(state, value)`` (all but the bodies) it
    changes that State only and backs it up to VELOCITY, so parameters can differ per
    State (an ensemble's columns, an optimizer's trial values). Getters likewise: with no
    State the default, with one that State's value.
    """

    CODE = CODE
    STAGE = Stage.VELOCITY

    def __init__(self, forces):
        self._sphere = self._half_space = None
        defaults = np.zeros(_MATERIAL + len(_NAMES))
        defaults[_RADIUS] = 1.0
        defaults[_FRAME:_FRAME + 9] = np.eye(3).ravel()
        defaults[_MATERIAL:] = _DEFAULTS
        self._radius_set = False    # Simbody has no default radius: one must be given
        super().__init__(forces, defaults)

    # ------------------------------------------------------------ checks
    def check_parameters(self, params) -> str | None:
        """As the setters keep them: a radius > 0, a proper rotation R_HF, the material
        numbers >= 0 (those of ``_POSITIVE`` > 0), all finite."""
        if not np.all(np.isfinite(params)):
            return "a parameter is not finite"
        if not params[_RADIUS] > 0:
            return f"the radius {params[_RADIUS]!r} is not > 0"
        R = np.asarray(params[_FRAME:_FRAME + 9]).reshape(3, 3)
        if not np.allclose(R @ R.T, np.eye(3), atol=1e-12) or not np.linalg.det(R) > 0:
            return "the half-space frame's rotation is not a proper rotation"
        for name, value in zip(_NAMES, params[_MATERIAL:], strict=True):
            if not (value > 0 if name in _POSITIVE else value >= 0):
                return f"{name} is {value!r}; it must be {'>' if name in _POSITIVE else '>='} 0"
        return None

    def _lay_out(self, matter) -> None:
        missing = [what for what, given in (("set_contact_sphere_body", self._sphere),
                                            ("set_contact_sphere_radius", self._radius_set),
                                            ("set_contact_half_space_body", self._half_space))
                   if given is None or given is False]
        if missing:
            raise InvalidArgumentError(
                f"Force.SmoothSphereHalfSpaceForce {self._index}: its "
                f"{' and '.join(m[4:] for m in missing)} "
                f"{'is' if len(missing) == 1 else 'are'} not set (Simbody has no default); "
                f"call {' and '.join(missing)} before realize_topology.")

    def _changed_default(self) -> SmoothSphereHalfSpaceForce:
        self._forces.invalidate_subsystem_topology_cache()
        return self

    def _write(self, state, first: int, values) -> SmoothSphereHalfSpaceForce:
        """Write parameters from ``first`` on: the defaults (state None) or ``state``'s."""
        if state is None:
            self._defaults[first:first + len(values)] = values
            return self._changed_default()
        self._set_params(state, first, values)
        return self

    def _read(self, state) -> np.ndarray:
        return self._defaults if state is None else self._params(state)

    def _body(self, mobod, where: str):
        if not hasattr(mobod, "get_mobilized_body_index"):
            raise InvalidArgumentError(f"{where}: give a MobilizedBody, got {mobod!r}.")
        if mobod.get_matter_subsystem().get_system() is not self._forces.get_system():
            raise InvalidArgumentError(
                f"{where}: the MobilizedBody belongs to another System than this force's; "
                f"use a body of the force's own System.")
        return mobod

    # ------------------------------------------------------------ material
    def set_parameters(self, *args) -> SmoothSphereHalfSpaceForce:
        """``set_parameters([state,] stiffness, dissipation, static_friction,
        dynamic_friction, viscous_friction, transition_velocity, cf, bd, bv)``: E (Pa),
        c (s/m), μs, μd, μv (s/m), v_trans (m/s), c_f, b_d (1/m), b_v (s/m), as Simbody's
        setParameters (all nine are needed, as there)."""
        where = "Force.SmoothSphereHalfSpaceForce.set_parameters"
        state, values = _per_state(args, where, len(_NAMES))
        return self._write(state, _MATERIAL,
                           [_material(v, n, where) for v, n in zip(values, _NAMES, strict=True)])

    def _set_one(self, name: str, args) -> SmoothSphereHalfSpaceForce:
        where = f"Force.SmoothSphereHalfSpaceForce.set_{name}"
        state, (value,) = _per_state(args, where)
        return self._write(state, _MATERIAL + _NAMES.index(name),
                           [_material(value, name, where)])

    def _get_one(self, name: str, state) -> float:
        return float(self._read(state)[_MATERIAL + _NAMES.index(name)])

    def set_stiffness(self, *args) -> SmoothSphereHalfSpaceForce:
        """The plane-strain modulus E (Pa, default 1), the same for both materials."""
        return self._set_one("stiffness", args)

    def set_dissipation(self, *args) -> SmoothSphereHalfSpaceForce:
        """The Hunt-Crossley dissipation c (s/m, default 0)."""
        return self._set_one("dissipation", args)

    def set_static_friction(self, *args) -> SmoothSphereHalfSpaceForce:
        """μs (default 0), the friction coefficient's peak near the transition velocity."""
        return self._set_one("static_friction", args)

    def set_dynamic_friction(self, *args) -> SmoothSphereHalfSpaceForce:
        """μd (default 0), the coefficient at slip speeds well above the transition."""
        return self._set_one("dynamic_friction", args)

    def set_viscous_friction(self, *args) -> SmoothSphereHalfSpaceForce:
        """μv (s/m, default 0), the coefficient's growth per unit slip speed."""
        return self._set_one("viscous_friction", args)

    def set_transition_velocity(self, *args) -> SmoothSphereHalfSpaceForce:
        """v_trans (m/s, default 0.01, > 0): the slip speed where friction peaks at μs."""
        return self._set_one("transition_velocity", args)

    def set_constant_contact_force(self, *args) -> SmoothSphereHalfSpaceForce:
        """c_f (default 1e-5, > 0), added under both square roots (depth² + c_f and
        |v_t|² + c_f) so that their derivatives never vanish: a force of about
        (4/3) k √(r k) c_f^(3/4) remains at zero depth (halved by the Hertz tanh)."""
        return self._set_one("constant_contact_force", args)

    def set_hertz_smoothing(self, *args) -> SmoothSphereHalfSpaceForce:
        """b_d (1/m, default 300, > 0): the steepness of the tanh switching the Hertz
        force on as the depth crosses 0; larger is closer to a switch but stiffer."""
        return self._set_one("hertz_smoothing", args)

    def set_hunt_crossley_smoothing(self, *args) -> SmoothSphereHalfSpaceForce:
        """b_v (s/m, default 50, > 0): the steepness of the tanh switching the
        dissipative force off where it would pull (v_n < -2/(3c))."""
        return self._set_one("hunt_crossley_smoothing", args)

    def get_stiffness(self, state=None) -> float:
        return self._get_one("stiffness", state)

    def get_dissipation(self, state=None) -> float:
        return self._get_one("dissipation", state)

    def get_static_friction(self, state=None) -> float:
        return self._get_one("static_friction", state)

    def get_dynamic_friction(self, state=None) -> float:
        return self._get_one("dynamic_friction", state)

    def get_viscous_friction(self, state=None) -> float:
        return self._get_one("viscous_friction", state)

    def get_transition_velocity(self, state=None) -> float:
        return self._get_one("transition_velocity", state)

    def get_constant_contact_force(self, state=None) -> float:
        return self._get_one("constant_contact_force", state)

    def get_hertz_smoothing(self, state=None) -> float:
        return self._get_one("hertz_smoothing", state)

    def get_hunt_crossley_smoothing(self, state=None) -> float:
        return self._get_one("hunt_crossley_smoothing", state)

    # ------------------------------------------------------------ geometry
    def set_contact_sphere_body(self, mobod) -> SmoothSphereHalfSpaceForce:
        """The MobilizedBody S carrying the sphere (a topology change)."""
        self._sphere = self._body(mobod, "Force.SmoothSphereHalfSpaceForce."
                                         "set_contact_sphere_body")
        self._mobods = tuple(b for b in (self._sphere, self._half_space) if b is not None)
        self._body1 = self._sphere.get_mobilized_body_index()
        return self._changed_default()

    def set_contact_half_space_body(self, mobod) -> SmoothSphereHalfSpaceForce:
        """The MobilizedBody H carrying the half space (a topology change)."""
        self._half_space = self._body(mobod, "Force.SmoothSphereHalfSpaceForce."
                                             "set_contact_half_space_body")
        self._mobods = tuple(b for b in (self._sphere, self._half_space) if b is not None)
        self._body2 = self._half_space.get_mobilized_body_index()
        return self._changed_default()

    def set_contact_sphere_location_in_body(self, *args) -> SmoothSphereHalfSpaceForce:
        """The sphere's centre c_S (m, in S; default 0)."""
        where = "Force.SmoothSphereHalfSpaceForce.set_contact_sphere_location_in_body"
        state, (location,) = _per_state(args, where)
        return self._write(state, _LOCATION, vector3(location, where, "location (m)"))

    def set_contact_sphere_radius(self, *args) -> SmoothSphereHalfSpaceForce:
        """The sphere's radius r (m, > 0). Simbody has no default: the default must be
        set before ``realize_topology``."""
        where = "Force.SmoothSphereHalfSpaceForce.set_contact_sphere_radius"
        state, (radius,) = _per_state(args, where)
        self._write(state, _RADIUS, [_radius(radius, where)])
        self._radius_set = self._radius_set or state is None
        return self

    def set_contact_half_space_frame(self, *args) -> SmoothSphereHalfSpaceForce:
        """X_HF, the half-space frame F in the body H (default identity: the material
        fills x > 0 of H). ``Transform(Rotation.about_z(-pi/2), [0, 0, 0])`` on Ground
        makes a floor filling y < 0, for gravity along -y."""
        where = "Force.SmoothSphereHalfSpaceForce.set_contact_half_space_frame"
        state, (X_HF,) = _per_state(args, where)
        return self._write(state, _FRAME, _frame(X_HF, where))

    def get_body_sphere(self):
        """The MobilizedBody S of the sphere (None until set)."""
        return self._sphere

    def get_body_half_space(self):
        """The MobilizedBody H of the half space (None until set)."""
        return self._half_space

    def get_contact_sphere_location_in_body(self, state=None) -> np.ndarray:
        """c_S (m, in S): the default, or ``state``'s."""
        return self._read(state)[_LOCATION:_LOCATION + 3].copy()

    def get_contact_sphere_radius(self, state=None) -> float:
        """r (m): the default, or ``state``'s."""
        return float(self._read(state)[_RADIUS])

    def get_contact_half_space_transform(self, state=None) -> Transform:
        """X_HF: the default, or ``state``'s."""
        prm = self._read(state)
        return Transform(Rotation(np.array(prm[_FRAME:_FRAME + 9]).reshape(3, 3)),
                         np.array(prm[_FRAME + 9:_FRAME + 12]))


@helper(forceinline=False)
def calc(fi, ff, tree, cache, q, u, body_forces, mobility_forces):
    """ff = [c_S (3), r, R_HF (9, by rows), p_HF (3), E, c, μs, μd, μv, v_trans, c_f, b_d,
    b_v]; fi[1] = S, fi[2] = H."""
    bs, bh = fi[1], fi[2]
    R_GS, R_GH = cache.R_GB[bs], cache.R_GB[bh]
    o_S, o_H = vec3(cache.p_GB[bs]), vec3(cache.p_GB[bh])
    r = ff[3]
    R_HF = ff[4:13]
    x_F = (R_HF[0], R_HF[3], R_HF[6])            # F's x axis in H: column 0 of R_HF
    # The centre in Ground and in H, and the depth along x_F.
    p_GC = add3(o_S, rotate3(R_GS, vec3(ff[0:3])))
    p_HC = rotate3_transpose(R_GH, sub3(p_GC, o_H))
    d = sub3(p_HC, vec3(ff[13:16]))
    depth = d[0] * x_F[0] + d[1] * x_F[1] + d[2] * x_F[2] + r
    n = rotate3(R_GH, x_F)                         # into the material, in Ground
    # The contact point, midway between the surfaces, and its slip velocity.
    h = 0.5 * depth
    P = ((p_GC[0] + r * n[0]) - h * n[0], (p_GC[1] + r * n[1]) - h * n[1],
         (p_GC[2] + r * n[2]) - h * n[2])
    r_S, r_H = sub3(P, o_S), sub3(P, o_H)
    V_S, V_H = cache.V_GB[bs], cache.V_GB[bh]
    v = sub3(add3(vec3(V_S[3:]), cross3(vec3(V_S[:3]), r_S)),
             add3(vec3(V_H[3:]), cross3(vec3(V_H[:3]), r_H)))
    vn = v[0] * n[0] + v[1] * n[1] + v[2] * n[2]
    vt = (v[0] - vn * n[0], v[1] - vn * n[1], v[2] - vn * n[2])

    E, c, us, ud, uv, v_trans, cf, bd, bv = (ff[16], ff[17], ff[18], ff[19], ff[20],
                                              ff[21], ff[22], ff[23], ff[24])
    k = 0.5 * E ** (2.0 / 3.0)
    fh_pos = (4.0 / 3.0) * k * math.sqrt(r * k) * math.sqrt(depth * depth + cf) ** 1.5
    fh = fh_pos * (0.5 + 0.5 * math.tanh(bd * depth))
    pe = 0.4 * fh * depth
    fhc = fh * (1.0 + 1.5 * c * vn)
    if c > 0.0:      # at c = 0 the tanh's argument is +inf: the factor is 1
        fhc *= 0.5 + 0.5 * math.tanh(bv * (vn + 2.0 / (3.0 * c)))
    v_slip = math.sqrt(vt[0] * vt[0] + vt[1] * vt[1] + vt[2] * vt[2] + cf)
    v_rel = v_slip / v_trans
    ff_slip = fhc * (min(v_rel, 1.0) * (ud + 2.0 * (us - ud) / (1.0 + v_rel * v_rel))
                     + uv * v_slip)
    a = ff_slip / v_slip
    f = (fhc * n[0] + a * vt[0], fhc * n[1] + a * vt[1], fhc * n[2] + a * vt[2])
    add_station_force(body_forces, bs, r_S, (-f[0], -f[1], -f[2]))
    add_station_force(body_forces, bh, r_H, f)
    return pe

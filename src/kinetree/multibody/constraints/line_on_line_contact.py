"""Constraint.LineOnLineContact: an edge on one body kept touching a crossing edge on another,
optionally without slip (Simbody's ``Constraint::LineOnLineContact``): edge-edge contact of
polyhedra, two crossed cylinders touching along their rims.

Each edge E is given by a frame fixed on its body: its origin P is the edge's center, its x axis
the edge direction d, its z axis the "space" direction s pointing out of the solid whose two
faces meet at the edge; y is unused. Body F carries edge Ef (X_FEf, half length hf), body B edge
Eb (X_BEb, hb). The constraint acts on the lines containing the edges (the half lengths are for
drawing only). Signs treat F as fixed: the normal n is along w = df × db, turned (by ``sense`` =
±1, chosen with whichever of sf and sb gives the clearer signal) to point out of F and into B,
so that moving B along +n increases the separation. The closest points of the lines are
Qf = Pf + tf df and Qb = Pb + tb db, with Qb - Qf = r n, and the contact point Co is their
midpoint; the contact frame C has Cx = df, Cy = n × df, Cz = n. In the ancestor frame A, with
p = Pb - Pf and s = |w|:

    perr  = r = p·n
    pverr = ṗ·n + p·ṅ                    ṅ = (ẇ - (n·ẇ) n)/s
    paerr = p̈·n + 2 ṗ·ṅ + p·n̈
    verr  = v·[Cx, Cy]                   vaerr = v̇·[Cx, Cy] + v·[Ċx, Ċy]

v being the velocity of B's material point at Co less that of F's and v̇ its time derivative in A
(Co moves over both bodies). Each level is the exact time derivative of the one before. The
multipliers' force Gᵀλ is f = λz n + λx Cx + λy Cy (N, in A) at B's material point at Co and -f
at F's; the constraint applies its negative (Simbody's sign), so λ is the negative of the force
on B, in C. While the edges are parallel (s below Simbody's SignificantReal) the equations are
all zero and no force acts, as in Simbody. The edge frames and half lengths are Position-stage
variables of each State, initialized from the defaults.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from kinetree.jit import helper
from kinetree.math.rotation import Rotation
from kinetree.math.transform import Transform
from kinetree.multibody.constraint import BuiltinImplementation, Constraint
from kinetree.multibody.constraints import _checks, _contact
from kinetree.multibody.constraints._stations import acceleration, location, offset, velocity
from kinetree.multibody.constraints.ball import add_coincident_force, slip_velocity
from kinetree.multibody.kernels.small import add3, cross3, dot3, scale3, sub3, vec3
from kinetree.registry import CONSTRAINTS
from kinetree.system.stage import Stage

CODE = CONSTRAINTS["line_on_line_contact"]
_WHERE = "Constraint.LineOnLineContact"
_F, _B = 0, 1
"""The constrained bodies: F (edge Ef, treated as fixed) and B (edge Eb)."""

_PARALLEL = np.finfo(float).eps ** 0.875
"""|df × db| below this means parallel edges (Simbody's SignificantReal)."""

_EB = 13
"""Where edge Eb's frame starts in the parameters."""


# ------------------------------------------------------------------ physics
# cf = [R_FEf (9, row by row), p_FPf (3, m, in F), hf (m),
#       R_BEb (9, row by row), p_BPb (3, m, in B), hb (m), rolling (1 or 0)].

@helper
def _lines(cf, R_AB, p_AB):
    """The pose-dependent quantities, in A: (parallel, sense, s, df, db, n, r_Pf, r_Pb, p,
    tf, tb, r_FCo, r_BCo): whether the edges are parallel, the sign turning w = df × db
    into the outward normal, s = |w|, the edge directions, the unit normal n, the edge
    centers' offsets from their body origins, p = Pb - Pf (m), the closest points' edge
    parameters (m) and the contact point Co's offsets from F's and B's origins (m).
    Parallel edges have no unique normal or closest points: n is then the direction from
    Ef's line to Eb's (any normal to df if the lines coincide), and each closest point lies
    midway between its edge center and the projection of the other's."""
    df = _contact.frame_axis(R_AB, _F, cf, 0, 0)
    db = _contact.frame_axis(R_AB, _B, cf, _EB, 0)
    r_Pf = offset(R_AB, _F, vec3(cf[9:12]))
    r_Pb = offset(R_AB, _B, vec3(cf[22:25]))
    p_APf, p_APb = location(p_AB, _F, r_Pf), location(p_AB, _B, r_Pb)
    p = sub3(p_APb, p_APf)
    w = cross3(df, db)
    wsf = dot3(w, _contact.frame_axis(R_AB, _F, cf, 0, 2))
    wsb = dot3(w, _contact.frame_axis(R_AB, _B, cf, _EB, 2))
    if abs(wsf) > abs(wsb):
        sense = 1.0 if wsf >= 0.0 else -1.0
    else:
        sense = -1.0 if wsb >= 0.0 else 1.0
    s = math.sqrt(dot3(w, w))
    parallel = s < _PARALLEL
    if parallel:
        across = sub3(p, scale3(dot3(p, df), df))
        size = math.sqrt(dot3(across, across))
        n = scale3(1.0 / size, across) if size > 0.0 else _contact.tangents(df)[0]
        tf, tb = 0.5 * dot3(p, df), -0.5 * dot3(p, db)
    else:
        n = scale3(sense / s, w)
        pXn = cross3(p, n)
        tf, tb = -sense / s * dot3(db, pXn), -sense / s * dot3(df, pXn)
    Co = scale3(0.5, add3(add3(p_APf, scale3(tf, df)), add3(p_APb, scale3(tb, db))))
    return (parallel, sense, s, df, db, n, r_Pf, r_Pb, p, tf, tb, sub3(Co, vec3(p_AB[_F])),
            sub3(Co, vec3(p_AB[_B])))


@helper
def _normal_rates(sense, s, df, db, n, V_AB):
    """(ḋf, ḋb, ẇ, ṡ, ṅ): the time derivatives in A of the edge directions, of w =
    sense (df × db), of s = |w| and of n = w/s."""
    ddf = cross3(vec3(V_AB[_F, :3]), df)
    ddb = cross3(vec3(V_AB[_B, :3]), db)
    dw = scale3(sense, add3(cross3(ddf, db), cross3(df, ddb)))
    ds = dot3(n, dw)
    return ddf, ddb, dw, ds, scale3(1.0 / s, sub3(dw, scale3(ds, n)))


@helper(forceinline=False)
def position_errors(cf, R_AB, p_AB, perr):
    """perr = p·n (0 for parallel edges)."""
    g = _lines(cf, R_AB, p_AB)
    perr[0] = 0.0 if g[0] else dot3(g[8], g[5])


@helper(forceinline=False)
def velocity_errors(cf, R_AB, p_AB, V_AB, u, uerr):
    """pverr = ṗ·n + p·ṅ; verr = v·[df, n × df] when rolling (0 for parallel edges)."""
    rolling = cf[26] != 0.0
    (parallel, sense, s, df, db, n, r_Pf, r_Pb, p, _, _, r_FCo,
     r_BCo) = _lines(cf, R_AB, p_AB)
    if parallel:
        uerr[0] = 0.0
        if rolling:
            uerr[1], uerr[2] = 0.0, 0.0
        return
    _, _, _, _, dn = _normal_rates(sense, s, df, db, n, V_AB)
    pd = sub3(velocity(V_AB, _B, r_Pb), velocity(V_AB, _F, r_Pf))
    uerr[0] = dot3(pd, n) + dot3(p, dn)
    if rolling:
        v = slip_velocity(V_AB, _F, _B, r_BCo, r_FCo)
        uerr[1], uerr[2] = dot3(v, df), dot3(v, cross3(n, df))


@helper(forceinline=False)
def acceleration_errors(cf, R_AB, p_AB, V_AB, A_AB, udot, aerr):
    """paerr = p̈·n + 2 ṗ·ṅ + p·n̈; vaerr = v̇·[Cx, Cy] + v·[Ċx, Ċy] when rolling (0 for
    parallel edges)."""
    rolling = cf[26] != 0.0
    (parallel, sense, s, df, db, n, r_Pf, r_Pb, p, tf, tb, r_FCo,
     r_BCo) = _lines(cf, R_AB, p_AB)
    if parallel:
        aerr[0] = 0.0
        if rolling:
            aerr[1], aerr[2] = 0.0, 0.0
        return
    w_F, w_B = vec3(V_AB[_F, :3]), vec3(V_AB[_B, :3])
    ddf, ddb, dw, ds, dn = _normal_rates(sense, s, df, db, n, V_AB)
    v_APf, v_APb = velocity(V_AB, _F, r_Pf), velocity(V_AB, _B, r_Pb)
    pd = sub3(v_APb, v_APf)
    pdd = sub3(acceleration(V_AB, A_AB, _B, r_Pb), acceleration(V_AB, A_AB, _F, r_Pf))
    d2df = add3(cross3(vec3(A_AB[_F, :3]), df), cross3(w_F, ddf))
    d2db = add3(cross3(vec3(A_AB[_B, :3]), db), cross3(w_B, ddb))
    d2w = scale3(sense, add3(add3(cross3(d2df, db), scale3(2.0, cross3(ddf, ddb))),
                             cross3(df, d2db)))
    dds = dot3(dn, dw) + dot3(n, d2w)
    d2n = scale3(1.0 / s, sub3(sub3(d2w, scale3(dds, n)), scale3(2.0 * ds, dn)))
    aerr[0] = dot3(pdd, n) + 2.0 * dot3(pd, dn) + dot3(p, d2n)
    if rolling:
        # the contact point's velocity in A, from those of the closest points
        nXdb, nXdf = cross3(n, db), cross3(n, df)
        d_nXdb = add3(cross3(dn, db), cross3(n, ddb))
        d_nXdf = add3(cross3(dn, df), cross3(n, ddf))
        dtf = -sense * ((dot3(pd, nXdb) + dot3(p, d_nXdb)) / s - dot3(p, nXdb) * ds / (s * s))
        dtb = -sense * ((dot3(pd, nXdf) + dot3(p, d_nXdf)) / s - dot3(p, nXdf) * ds / (s * s))
        dQf = add3(add3(v_APf, scale3(dtf, df)), scale3(tf, ddf))
        dQb = add3(add3(v_APb, scale3(dtb, db)), scale3(tb, ddb))
        Co_dot = scale3(0.5, add3(dQf, dQb))
        vd_FCo = add3(add3(vec3(A_AB[_F, 3:]), cross3(vec3(A_AB[_F, :3]), r_FCo)),
                      cross3(w_F, sub3(Co_dot, vec3(V_AB[_F, 3:]))))
        vd_BCo = add3(add3(vec3(A_AB[_B, 3:]), cross3(vec3(A_AB[_B, :3]), r_BCo)),
                      cross3(w_B, sub3(Co_dot, vec3(V_AB[_B, 3:]))))
        vd = sub3(vd_BCo, vd_FCo)
        v = slip_velocity(V_AB, _F, _B, r_BCo, r_FCo)
        aerr[1] = dot3(vd, df) + dot3(v, ddf)
        aerr[2] = dot3(vd, nXdf) + dot3(v, d_nXdf)


@helper(forceinline=False)
def forces(cf, R_AB, p_AB, lam, F_A, f):
    """f = λz n (+ λx df + λy n × df when rolling) at B's point at Co, -f at F's (none for
    parallel edges)."""
    parallel, _, _, df, _, n, _, _, _, _, _, r_FCo, r_BCo = _lines(cf, R_AB, p_AB)
    if parallel:
        return
    force = scale3(lam[0], n)
    if cf[26] != 0.0:
        force = add3(force, add3(scale3(lam[1], df), scale3(lam[2], cross3(n, df))))
    add_coincident_force(F_A, _F, _B, r_BCo, r_FCo, force)


@helper(forceinline=False)
def contact_geometry(cf, R_AB, p_AB):
    """(parallel, r, df, n, p_AQf, p_AQb): for the accessors, in A: whether the edges are
    parallel, the signed distance r = p·n (m), the contact frame's x and z axes, and the
    closest points (m)."""
    parallel, _, _, df, db, n, r_Pf, r_Pb, p, tf, tb, _, _ = _lines(cf, R_AB, p_AB)
    Qf = add3(location(p_AB, _F, r_Pf), scale3(tf, df))
    Qb = add3(location(p_AB, _B, r_Pb), scale3(tb, db))
    return parallel, dot3(p, n), df, n, Qf, Qb


# ------------------------------------------------------------------ the class
class _Parameters(NamedTuple):
    """One State's edges: frames X_FEf and X_BEb (each kept as its rotation and origin, m,
    in its body's frame) and half lengths (m)."""

    R_FEf: np.ndarray
    p_FPf: np.ndarray
    hf: float
    R_BEb: np.ndarray
    p_BPb: np.ndarray
    hb: float

    @property
    def X_FEf(self) -> Transform:  # noqa: N802
        return _contact.frame(self.R_FEf, self.p_FPf)

    @property
    def X_BEb(self) -> Transform:  # noqa: N802
        return _contact.frame(self.R_BEb, self.p_BPb)

    def with_edge_frame_f(self, X_FEf) -> _Parameters:  # noqa: N803
        R, p = _contact.frame_arrays(X_FEf)
        return self._replace(R_FEf=R, p_FPf=p)

    def with_edge_frame_b(self, X_BEb) -> _Parameters:  # noqa: N803
        R, p = _contact.frame_arrays(X_BEb)
        return self._replace(R_BEb=R, p_BPb=p)


class _LineOnLineContactImplementation(_contact.StateParameters, BuiltinImplementation):
    """perr = (Pb - Pf)·n, verr = v·[Cx, Cy] when rolling; constrained bodies 0 (F) and
    1 (B)."""

    CODE = CODE

    def __init__(self, mobod_F, edge_frame_F, half_length_F, mobod_B,  # noqa: N803
                 edge_frame_B, half_length_B, rolling):  # noqa: N803
        matter = _checks.two_bodies(mobod_F, mobod_B, _WHERE, "mobod_F", "mobod_B")
        self.rolling = _contact.flag(rolling, _WHERE, "enforce_rolling")
        self._defaults = _Parameters(
            *_contact.frame_arrays(_checks.transform(edge_frame_F, _WHERE,
                                                     "the edge frame on F")),
            _contact.positive(half_length_F, _WHERE, "the half length of the edge on F"),
            *_contact.frame_arrays(_checks.transform(edge_frame_B, _WHERE,
                                                     "the edge frame on B")),
            _contact.positive(half_length_B, _WHERE, "the half length of the edge on B"))
        super().__init__(matter, 1, 2 if self.rolling else 0, 0)
        self._F = self.add_constrained_body(mobod_F)
        self._B = self.add_constrained_body(mobod_B)
        self._parameters_index = None

    # ------------------------------------------------- per-State parameters
    _WHERE = _WHERE
    _PARAMETERS = "the edge frames and half lengths"

    def _initial_parameters(self) -> _Parameters:
        d = self._defaults
        return _Parameters(d.R_FEf.copy(), d.p_FPf.copy(), d.hf,
                           d.R_BEb.copy(), d.p_BPb.copy(), d.hb)

    def parameters(self, state) -> np.ndarray:
        p = self.get_parameters(state)
        return np.concatenate([np.ravel(p.R_FEf), p.p_FPf, [p.hf], np.ravel(p.R_BEb),
                               p.p_BPb, [p.hb, 1.0 if self.rolling else 0.0]])

    def calc_decorative_geometry_and_append(self, state, stage, geometry: list) -> None:
        """At POSITION, as Simbody draws it: each edge as a line segment of its length
        centered on its closest point (F's green, B's orange), each closest point, and the
        contact frame in red, in Ground."""
        if stage != Stage.POSITION:
            return
        from kinetree.viz.decorations import DecorativeFrame, DecorativeLine, DecorativePoint

        p = self.get_parameters(state)
        c = self._constraint
        Qf, Qb, _ = c.find_closest_points_in_g(state)
        X_GC = c.find_contact_frame_in_g(state)
        db_G = (self._bodies[self._B].get_body_rotation(state).as_matrix()
                @ np.asarray(p.R_BEb)[:, 0])
        half_f, half_b = p.hf * X_GC.R.as_matrix()[:, 0], p.hb * db_G
        geometry.append(DecorativeLine(Qf - half_f, Qf + half_f).set_color("green"))
        geometry.append(DecorativePoint(Qf).set_color("orange").set_line_thickness(2))
        geometry.append(DecorativeLine(Qb - half_b, Qb + half_b).set_color("orange"))
        geometry.append(DecorativePoint(Qb).set_color("green").set_line_thickness(2))
        geometry.append(DecorativeFrame(0.5).set_transform(X_GC).set_color("red"))


class LineOnLineContact(Constraint):
    """``Constraint.LineOnLineContact(mobod_F, default_edge_frame_F, default_half_length_F,
    mobod_B, default_edge_frame_B, default_half_length_B, enforce_rolling)``: the line of
    edge Ef (frame X_FEf, a kt.Transform in F: origin the edge center, x along the edge, z
    out of the solid; half length in m, > 0) touches the line of edge Eb (X_BEb in B); with
    ``enforce_rolling`` the edges also do not slip on each other. One holonomic equation,
    and two nonholonomic ones when rolling."""

    def __init__(self, mobod_F, default_edge_frame_F, default_half_length_F,  # noqa: N803
                 mobod_B, default_edge_frame_B, default_half_length_B,  # noqa: N803
                 enforce_rolling):
        super().__init__(_LineOnLineContactImplementation(
            mobod_F, default_edge_frame_F, default_half_length_F, mobod_B,
            default_edge_frame_B, default_half_length_B, enforce_rolling))

    # ------------------------------------------------------------ topology
    def get_mobilized_body_f(self):
        """The body F of edge Ef."""
        return self.get_mobilized_body_from_constrained_body(self._impl._F)

    def get_mobilized_body_b(self):
        """The body B of edge Eb."""
        return self.get_mobilized_body_from_constrained_body(self._impl._B)

    def is_enforcing_rolling(self) -> bool:
        """Whether the no-slip equations are enforced (fixed at construction)."""
        return self._impl.rolling

    def get_default_edge_frame_f(self) -> Transform:
        """The default X_FEf (in F)."""
        return self._impl._defaults.X_FEf

    def get_default_half_length_f(self) -> float:
        """The default hf (m)."""
        return self._impl._defaults.hf

    def get_default_edge_frame_b(self) -> Transform:
        """The default X_BEb (in B)."""
        return self._impl._defaults.X_BEb

    def get_default_half_length_b(self) -> float:
        """The default hb (m)."""
        return self._impl._defaults.hb

    def _set_default(self, **change) -> LineOnLineContact:
        self._impl._defaults = self._impl._defaults._replace(**change)
        self._impl.invalidate_topology_cache()
        return self

    def set_default_edge_frame_f(self, default_edge_frame_F) -> LineOnLineContact:  # noqa: N803
        """The X_FEf new States start with (a topological change)."""
        X = _checks.transform(default_edge_frame_F,
                              f"{self._name()}.set_default_edge_frame_f", "the frame")
        self._impl._defaults = self._impl._defaults.with_edge_frame_f(X)
        self._impl.invalidate_topology_cache()
        return self

    def set_default_half_length_f(self, default_half_length_F) -> LineOnLineContact:  # noqa: N803
        """The hf (m, > 0) new States start with (a topological change)."""
        return self._set_default(hf=_contact.positive(
            default_half_length_F, f"{self._name()}.set_default_half_length_f",
            "the half length"))

    def set_default_edge_frame_b(self, default_edge_frame_B) -> LineOnLineContact:  # noqa: N803
        """The X_BEb new States start with (a topological change)."""
        X = _checks.transform(default_edge_frame_B,
                              f"{self._name()}.set_default_edge_frame_b", "the frame")
        self._impl._defaults = self._impl._defaults.with_edge_frame_b(X)
        self._impl.invalidate_topology_cache()
        return self

    def set_default_half_length_b(self, default_half_length_B) -> LineOnLineContact:  # noqa: N803
        """The hb (m, > 0) new States start with (a topological change)."""
        return self._set_default(hb=_contact.positive(
            default_half_length_B, f"{self._name()}.set_default_half_length_b",
            "the half length"))

    # -------------------------------------------------- Position variables
    def _set(self, state, **change) -> LineOnLineContact:
        self._impl.set_parameters(state, self._impl.get_parameters(state)._replace(**change))
        return self

    def set_edge_frame_f(self, state, edge_frame_F) -> LineOnLineContact:  # noqa: N803
        """This State's X_FEf (in F); a Position-stage change."""
        X = _checks.transform(edge_frame_F, f"{self._name()}.set_edge_frame_f", "the frame")
        self._impl.set_parameters(state,
                                  self._impl.get_parameters(state).with_edge_frame_f(X))
        return self

    def set_half_length_f(self, state, half_length_F) -> LineOnLineContact:  # noqa: N803
        """This State's hf (m, > 0); a Position-stage change."""
        return self._set(state, hf=_contact.positive(
            half_length_F, f"{self._name()}.set_half_length_f", "the half length"))

    def set_edge_frame_b(self, state, edge_frame_B) -> LineOnLineContact:  # noqa: N803
        """This State's X_BEb (in B); a Position-stage change."""
        X = _checks.transform(edge_frame_B, f"{self._name()}.set_edge_frame_b", "the frame")
        self._impl.set_parameters(state,
                                  self._impl.get_parameters(state).with_edge_frame_b(X))
        return self

    def set_half_length_b(self, state, half_length_B) -> LineOnLineContact:  # noqa: N803
        """This State's hb (m, > 0); a Position-stage change."""
        return self._set(state, hb=_contact.positive(
            half_length_B, f"{self._name()}.set_half_length_b", "the half length"))

    def get_edge_frame_f(self, state) -> Transform:
        """This State's X_FEf (in F)."""
        return self._impl.get_parameters(state).X_FEf

    def get_half_length_f(self, state) -> float:
        """This State's hf (m)."""
        return float(self._impl.get_parameters(state).hf)

    def get_edge_frame_b(self, state) -> Transform:
        """This State's X_BEb (in B)."""
        return self._impl.get_parameters(state).X_BEb

    def get_half_length_b(self, state) -> float:
        """This State's hb (m)."""
        return float(self._impl.get_parameters(state).hb)

    # ---------------------------------------------------------- results
    def get_position_error(self, state) -> float:
        """The signed distance (m) between the lines: positive when apart, negative when
        Eb is inside F's solid (POSITION)."""
        return _checks.one(self, self.get_position_errors_as_vector(state),
                           "get_position_error")

    def get_velocity_errors(self, state) -> np.ndarray:
        """[v·Cx, v·Cy, d/dt perr] (m/s, in C): the slip velocity of B's material point at
        Co relative to F's (zeros when rolling is not enforced) and the normal rate
        (VELOCITY)."""
        return _contact.enabled_values(self, self.get_velocity_errors_as_vector(state),
                                       "get_velocity_errors")

    def get_acceleration_errors(self, state) -> np.ndarray:
        """The time derivative of get_velocity_errors (m/s², in C) (ACCELERATION)."""
        return _contact.enabled_values(self, self.get_acceleration_errors_as_vector(state),
                                       "get_acceleration_errors")

    def get_multipliers(self, state) -> np.ndarray:
        """[λx, λy, λz] (N, in C): the negative of the force on B at the contact point
        (x, y zero when rolling is not enforced) (ACCELERATION)."""
        return _contact.enabled_values(self, self.get_multipliers_as_vector(state),
                                       "get_multipliers")

    def find_force_on_body_b_in_g(self, state) -> np.ndarray:
        """The force (N, in Ground) the constraint applies to B's material point at Co; F
        gets its opposite. Zero while disabled (ACCELERATION)."""
        if self.is_disabled(state):
            return np.zeros(3)
        return self.find_contact_frame_in_g(state).R.as_matrix() @ -self.get_multipliers(
            state)

    def _geometry_in_g(self, state):
        R_AB, p_AB, R_GA, p_GA = _contact.poses_in_ancestor(self, state)
        parallel, r, df, n, Qf, Qb = contact_geometry(self._impl.parameters(state), R_AB,
                                                      p_AB)
        return (bool(parallel), float(r), R_GA @ np.array(df), R_GA @ np.array(n),
                p_GA + R_GA @ np.array(Qf), p_GA + R_GA @ np.array(Qb))

    def find_contact_frame_in_g(self, state) -> Transform:
        """X_GC: the contact frame in Ground, origin Co midway between the closest points
        (m), x along Ef, z the normal, y = z × x; whether or not the constraint is enabled
        or satisfied (POSITION)."""
        _, _, df, n, Qf, Qb = self._geometry_in_g(state)
        R = np.column_stack([df, np.cross(n, df), n])
        return Transform(Rotation(R, reorthonormalize=True), 0.5 * (Qf + Qb))

    def find_closest_points_in_g(self, state) -> tuple[np.ndarray, np.ndarray, bool]:
        """(Qf, Qb, lines_are_parallel): the closest points (m, in Ground) of the lines
        of Ef and Eb, and whether the lines are parallel, in which case each point is
        midway between its edge center and the projection of the other edge's center
        (POSITION)."""
        parallel, _, _, _, Qf, Qb = self._geometry_in_g(state)
        return Qf, Qb, parallel

    def find_separation(self, state) -> float:
        """The signed distance (m) between the lines (Pb - Pf)·n, positive when apart;
        whether or not the constraint is enabled. For parallel lines, their distance
        (POSITION)."""
        return self._geometry_in_g(state)[1]

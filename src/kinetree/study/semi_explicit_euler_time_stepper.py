"""SemiExplicitEulerTimeStepper: a fixed-step, velocity-level time stepper for models with
unilateral contacts (Simbody's SemiExplicitEulerTimeStepper): impacts with restitution and
Coulomb friction with true stiction, solved as impulses.

A step of h from (t, q, u):

1. The *proximal* contacts, those whose separation is within the constraint tolerance,
   give the rows G of the step (a normal row each, two tangent rows with friction), each
   contact's over the mobilities of the trees it touches, and M⁻¹ Gᵀ
   (``contact_rows.py``). Each one's coefficient of friction is fixed by its slip speed now.
2. *Impact*: where a proximal contact approaches faster than the tolerance, the impulses
   that stop the approach are found at once for all (Simultaneous, the default), or in
   rounds, each stopping the contacts approaching then while the last round's push
   apart (Sequential, Mixed: Newton's cradle); with Newton's restitution they instead
   reverse it times the coefficient of restitution e, with Poisson's (the default) an
   expansion impulse e times the compression impulse follows, and a reaction round keeps
   the other contacts from closing. e falls to 0 at the capture speed, ending a ball's
   bounces.
3. *Dynamics*: u̇ of the applied forces, then the impulses that keep every proximal
   contact from closing and, within the friction cone, from slipping: u1 = u + h u̇ +
   M⁻¹ Gᵀ λ. A contact slipping faster than the transition speed at the step's start
   slides: its friction is μd times its normal impulse, against that slip.
4. *Positions*: q1 = q + h N(q) (u1 + δu), δu the velocity that would remove any
   penetration in one step (not kept in u), then the State is projected (quaternions,
   bilateral constraints).

The impulses come from the projected Gauss-Seidel solver, compiled (``pgs.py``), or from
PLUS's direct solves on an active set (``plus.py``).
"""

from __future__ import annotations

import enum

import numpy as np

from kinetree.errors import InvalidArgumentError
from kinetree.multibody.unilateral import pgs, plus
from kinetree.multibody.unilateral.contact_rows import (
    TreeLayout,
    apply_impulses,
    build_rows,
    pair_terms,
    row_velocities,
)
from kinetree.multibody.unilateral.unilateral_contact import (
    body_poses,
    calc_effective_cor,
)
from kinetree.system.stage import Stage


class RestitutionModel(enum.IntEnum):
    POISSON = 0
    NEWTON = 1
    NO_RESTITUTION = 2


class InducedImpactModel(enum.IntEnum):
    SIMULTANEOUS = 0
    SEQUENTIAL = 1
    MIXED = 2


class PositionProjectionMethod(enum.IntEnum):
    BILATERAL = 0
    UNILATERAL = 1
    NO_POSITION_PROJECTION = 2


class ImpulseSolverType(enum.IntEnum):
    PLUS = 0
    PGS = 1


def _choice(kind, value, where: str):
    """``value`` as a member of the enum ``kind``, or refused naming the members."""
    try:
        return kind(value)
    except ValueError:
        names = ", ".join(member.name for member in kind)
        raise InvalidArgumentError(f"SemiExplicitEulerTimeStepper.{where}: {value!r} is not "
                                   f"a {kind.__name__} member; use one of {names}.") from None


def _speed(value, what: str) -> float:
    value = float(value)
    if not (np.isfinite(value) and value >= 0.0):
        raise InvalidArgumentError(f"SemiExplicitEulerTimeStepper: the {what} must be a "
                                   f"finite speed >= 0 (m/s), got {value!r}.")
    return value


class SemiExplicitEulerTimeStepper:
    """``SemiExplicitEulerTimeStepper(system)``; ``initialize(state)``, then each
    ``step_to(t)`` takes one step to t. The State it advances is ``get_state()``."""

    RestitutionModel = RestitutionModel
    InducedImpactModel = InducedImpactModel
    PositionProjectionMethod = PositionProjectionMethod
    ImpulseSolverType = ImpulseSolverType

    def __init__(self, system):
        matter = getattr(system, "get_matter_subsystem", lambda: None)()
        if matter is None:
            raise InvalidArgumentError(
                "SemiExplicitEulerTimeStepper: expected a MultibodySystem with a matter "
                "subsystem.")
        self._system, self._matter = system, matter
        self._accuracy = 1e-2
        self._constraint_tolerance = 1e-3
        self._restitution = RestitutionModel.POISSON
        self._induced = InducedImpactModel.SIMULTANEOUS
        self._solver = ImpulseSolverType.PGS
        self._max_induced_impacts = 5
        self._projection = PositionProjectionMethod.BILATERAL
        self._capture = 0.0
        self._min_cor_speed = 0.0
        self._transition = 0.0
        self._state = None
        self._layout = None
        self._last = None      # (the contacts' keys, their impulses) of the last step
        self._order = None     # the last step's sweep order

    # ------------------------------------------------------------ settings
    def set_accuracy(self, accuracy) -> None:
        """Kept for Simbody's interface: steps are fixed, so it changes nothing yet."""
        self._accuracy = float(accuracy)

    def set_constraint_tolerance(self, tolerance) -> None:
        """The separation (m) within which a contact is proximal, and the smallest
        approach speed (m/s) that is an impact."""
        tolerance = float(tolerance)
        if not tolerance > 0.0:
            raise InvalidArgumentError("SemiExplicitEulerTimeStepper."
                                       "set_constraint_tolerance: it must be > 0.")
        self._constraint_tolerance = tolerance

    def get_constraint_tolerance_in_use(self) -> float:
        return self._constraint_tolerance

    def _solve(self, rows, order, mode, mu, direction, v0, target, start=None,
               known=None):
        """One phase's impulses and change of u, by the chosen solver; PGS stops once a
        sweep changes no contact's velocities by more than a thousandth of the
        constraint tolerance (m/s)."""
        solver = plus if self._solver == ImpulseSolverType.PLUS else pgs
        return solver.solve(rows, order, mode, mu, direction, v0, target, start, known,
                            tolerance=1e-3 * self._constraint_tolerance)

    def set_restitution_model(self, model) -> None:
        self._restitution = _choice(RestitutionModel, model, "set_restitution_model")

    def get_restitution_model(self) -> RestitutionModel:
        return self._restitution

    def set_induced_impact_model(self, model) -> None:
        """SIMULTANEOUS (the default): every impact of a step resolved at once;
        SEQUENTIAL: in rounds, each stopping the contacts approaching then, so that an
        impact travels through a row of balls (Newton's cradle); MIXED: rounds, then a
        last one where every contact takes part."""
        self._induced = _choice(InducedImpactModel, model, "set_induced_impact_model")

    def get_induced_impact_model(self) -> InducedImpactModel:
        return self._induced

    def set_max_induced_impacts_per_step(self, rounds) -> None:
        """The rounds of a SEQUENTIAL or MIXED impact in one step (Simbody's default 5);
        what is left after them is met at the next step (SEQUENTIAL) or at once with no
        restitution (MIXED)."""
        if int(rounds) != rounds or rounds < 1:
            raise InvalidArgumentError(
                f"SemiExplicitEulerTimeStepper.set_max_induced_impacts_per_step: it must be "
                f"a whole number >= 1, got {rounds!r}.")
        self._max_induced_impacts = int(rounds)

    def get_max_induced_impacts_per_step(self) -> int:
        return self._max_induced_impacts

    def set_position_projection_method(self, method) -> None:
        """BILATERAL (the default) and UNILATERAL both move q so that a penetrating
        proximal contact is out of penetration after the step (by a velocity used for q
        only); NO_POSITION_PROJECTION leaves penetration to the next steps' impulses."""
        self._projection = _choice(PositionProjectionMethod, method,
                                   "set_position_projection_method")

    def set_impulse_solver_type(self, solver) -> None:
        """PGS (the default): projected Gauss-Seidel, sweeps over the contacts, for any
        number of them; PLUS: direct solves on an active set, exact to round-off, for a
        few contacts (its cost grows as the cube of their rows)."""
        self._solver = _choice(ImpulseSolverType, solver, "set_impulse_solver_type")

    def get_impulse_solver_type(self) -> ImpulseSolverType:
        return self._solver

    def set_default_impact_capture_velocity(self, speed) -> None:
        """Below this impact speed (m/s) a contact's restitution is 0 (at least twice
        the constraint tolerance is used)."""
        self._capture = _speed(speed, "impact capture velocity")

    def set_default_impact_min_cor_velocity(self, speed) -> None:
        """The impact speed (m/s) from which a contact's restitution is its min_cor."""
        self._min_cor_speed = _speed(speed, "minimum-COR velocity")

    def set_default_friction_transition_velocity(self, speed) -> None:
        """The slip speed (m/s) below which a contact may stick (μs), above which it
        slides (μd); at least twice the constraint tolerance is used."""
        self._transition = _speed(speed, "friction transition velocity")

    def get_default_impact_capture_velocity_in_use(self) -> float:
        return max(self._capture, 2.0 * self._constraint_tolerance)

    def get_default_impact_min_cor_velocity_in_use(self) -> float:
        return max(self._min_cor_speed, self.get_default_impact_capture_velocity_in_use())

    def get_default_friction_transition_velocity_in_use(self) -> float:
        return max(self._transition, 2.0 * self._constraint_tolerance)

    # ------------------------------------------------------------ stepping
    def initialize(self, state) -> None:
        """Start from a copy of ``state``."""
        self._system._check_state(state, "SemiExplicitEulerTimeStepper.initialize")
        self._state = state.copy()
        self._system.realize(self._state, Stage.VELOCITY)
        self._layout = TreeLayout(self._matter, self._state)
        self._last = None

    def get_state(self):
        return self._state

    def get_time(self) -> float:
        return self._state.get_time()

    def step_to(self, time) -> None:
        """One step from the current time to ``time`` (s)."""
        if self._state is None:
            raise InvalidArgumentError("SemiExplicitEulerTimeStepper.step_to: call "
                                       "initialize(state) first.")
        h = float(time) - self._state.get_time()
        if not h > 0.0:
            raise InvalidArgumentError(
                f"SemiExplicitEulerTimeStepper.step_to: {time!r} s is not after the current "
                f"time {self._state.get_time()!r} s.")
        self._step(h)

    def _gather(self, state):
        """The proximal contacts' terms (``contact_rows``) and properties: a dict, or
        None without any. Generated contacts come from the compiled contact pass;
        adopted ones, if any, are asked one by one."""
        matter, tolerance = self._matter, self._constraint_tolerance
        R_GB, p_GB = poses = body_poses(matter, state, "SemiExplicitEulerTimeStepper.step_to")
        parts = []          # per source: (count, its fields as in the returned dict)
        if matter._unilateral_contacts:
            count, fields = self._adopted(state, poses)
            if count:
                parts.append((count, fields))
        for g, generator in enumerate(matter._unilateral_generators):
            found = generator._find(R_GB, p_GB, tolerance)
            n = len(found.key)
            if not n:
                continue
            term_contact, term_body, term_point, term_coef, nrows = pair_terms(
                found.body_a, found.body_b, found.point, found.frame,
                found.friction[:, 0] > 0.0)
            parts.append((n, dict(
                term_contact=term_contact, term_body=term_body, term_point=term_point,
                term_coef=term_coef, nrows=nrows, separation=found.separation,
                friction=found.friction, cor=np.full(n, generator.min_cor),
                key=found.key + (g << 50), frame=found.frame)))
        if not parts:
            return None
        # generated contacts have no mobility rows
        empty = dict(mob_contact=np.zeros(0, np.int64), mob_u=np.zeros(0, np.int64),
                     mob_coef=np.zeros((0, 3)))
        if len(parts) == 1:
            n, found = parts[0]
            found = {**empty, **found}
        else:
            offsets = np.cumsum([0] + [count for count, _ in parts[:-1]])
            n = sum(count for count, _ in parts)
            found = {}
            for name in set(empty).union(*(fields for _, fields in parts)):
                pieces = [fields.get(name, empty.get(name)) for _, fields in parts]
                if name in ("term_contact", "mob_contact"):     # each source counts from 0
                    pieces = [piece + offset for piece, offset in zip(pieces, offsets,
                                                                      strict=True)]
                found[name] = np.concatenate(pieces)
        found["n"] = n
        return found

    def _adopted(self, state, poses):
        """(count, fields) of the adopted contacts within the constraint tolerance: each
        one's station terms, or its rows over the mobilities where it has none."""
        matter, tolerance = self._matter, self._constraint_tolerance
        R_GB, p_GB = poses
        t_contact, t_body, t_point, t_coef = [], [], [], []
        m_contact, m_u, m_coef = [], [], []
        nrows, gaps, friction, cor, keys, frames = [], [], [], [], [], []
        c = 0
        for index, contact in enumerate(matter._unilateral_contacts):
            gap = contact._separation(state, poses)
            if gap > tolerance:
                continue
            rows = 1 + (contact.FRICTION_ROWS if contact.has_friction() else 0)
            terms = contact._terms(state, poses)
            for body, station, coefficients in terms:
                t_contact.append(c)
                t_body.append(body)
                t_point.append(R_GB[body] @ station + p_GB[body])
                coef = np.zeros((3, 3))
                coef[:rows] = coefficients[:rows]
                t_coef.append(coef)
            if not terms:
                for r, row in enumerate(contact._rows(state, matter, poses)[:rows]):
                    for u in np.flatnonzero(row):
                        m_contact.append(c)
                        m_u.append(u)
                        coef = np.zeros(3)
                        coef[r] = row[u]
                        m_coef.append(coef)
            nrows.append(rows)
            gaps.append(gap)
            friction.append((contact.mu_s, contact.mu_d, contact.mu_v))
            cor.append(contact.min_cor)
            keys.append(-1 - index)
            frames.append(np.eye(3))     # its rows are its own: impulses carry over as are
            c += 1
        return c, dict(
            term_contact=np.array(t_contact, np.int64), term_body=np.array(t_body, np.int64),
            term_point=np.array(t_point, dtype=float).reshape(-1, 3),
            term_coef=np.array(t_coef, dtype=float).reshape(-1, 3, 3),
            nrows=np.array(nrows, np.int64), separation=np.array(gaps, dtype=float),
            friction=np.array(friction, dtype=float).reshape(-1, 3),
            cor=np.array(cor, dtype=float), key=np.array(keys, np.int64),
            frame=np.array(frames, dtype=float).reshape(-1, 3, 3),
            mob_contact=np.array(m_contact, np.int64), mob_u=np.array(m_u, np.int64),
            mob_coef=np.array(m_coef, dtype=float).reshape(-1, 3))

    def _build(self, state, found):
        """(start, dofs, G, W, D) of the proximal contacts (``contact_rows``)."""
        d = self._matter.get_tree_data(state, Stage.POSITION, "SemiExplicitEulerTimeStepper")
        layout = self._layout
        Minv = layout.calc_m_inv_blocks(self._matter, state)
        rows = build_rows(d.tree_i, d.tree_f, d.kinds, d.buf, d.status, layout.tree_of_u,
                          layout.tree_start, layout.tree_dofs, layout.column, Minv,
                          found["n"], found["term_contact"], found["term_body"],
                          found["term_point"], found["term_coef"], found["mob_contact"],
                          found["mob_u"], found["mob_coef"])
        if rows[0][0] < 0:
            raise InvalidArgumentError(
                f"SemiExplicitEulerTimeStepper: a unilateral contact touches more than two "
                f"trees of bodies (contact {-1 - int(rows[0][0])} of the step); a contact "
                f"joins two bodies.")
        return rows

    def _step(self, h: float) -> None:
        system, matter, s = self._system, self._matter, self._state
        system.realize(s, Stage.VELOCITY)
        found = self._gather(s)
        u = matter.get_u(s).copy()
        if found is None:
            system.realize(s, Stage.ACCELERATION)
            self._last = None
            self._advance(h, u + h * matter.get_u_dot(s), np.zeros_like(u),
                          s.get_z_dot().copy())
            return
        rows = self._build(s, found)
        n = found["n"]
        # Warm start: each contact's impulses of the last step, where it was there too;
        # resting contacts change little from step to step. The friction impulse is kept
        # in G, so that it carries over when the tangents turn.
        start = np.zeros((n, 3))
        keys, frame = found["key"], found["frame"]
        same = self._last is not None and pgs.warm_start(keys, frame, *self._last, start)
        order = self._order if same else pgs.ground_first(
            n, found["term_contact"], found["term_body"], matter.get_num_bodies())
        self._order = order
        v = row_velocities(rows[0], rows[1], rows[2], u)
        # the coefficient of friction and the mode of each contact, by its slip now
        mu, mode, direction = np.empty(n), np.empty(n, np.int64), np.empty((n, 2))
        pgs.contact_modes(v, found["friction"], found["nrows"],
                          self.get_default_friction_transition_velocity_in_use(), mu, mode,
                          direction)
        # impact
        if (v[:, 0] < -self._constraint_tolerance).any():
            u = u + self._impact(rows, order, u, v, mode, mu, direction, found["cor"])
        # dynamics
        matter.upd_u(s)[:] = u
        system.realize(s, Stage.ACCELERATION)
        free = u + h * matter.get_u_dot(s)
        zdot = s.get_z_dot().copy()
        lam, du = self._solve(rows, order, mode, mu, direction, free, np.zeros((n, 3)),
                              start)
        self._last = pgs.carried_impulses(keys, frame, lam)
        u1 = free + du
        # the velocity that would remove the penetration in one step, for q only
        correction = np.zeros_like(u)
        if self._projection != PositionProjectionMethod.NO_POSITION_PROJECTION:
            deep = np.maximum(0.0, -found["separation"]) / h
            if deep.any():
                target = np.zeros((n, 3))
                target[:, 0] = deep
                _, correction = self._solve(rows, order, np.full(n, pgs.NORMAL),
                                            np.zeros(n), direction, np.zeros_like(u),
                                            target)
        self._advance(h, u1, correction, zdot)

    def _restitution_of(self, speed, min_cor) -> np.ndarray:
        """Each contact's coefficient of restitution at its impact speed (m/s, > 0 when
        approaching); 0 for those not impacting, and for all without restitution."""
        e = np.zeros(len(speed))
        if self._restitution != RestitutionModel.NO_RESTITUTION:
            capture = self.get_default_impact_capture_velocity_in_use()
            min_cor_speed = self.get_default_impact_min_cor_velocity_in_use()
            hit = speed > self._constraint_tolerance
            e[hit] = calc_effective_cor(min_cor[hit], capture, min_cor_speed, speed[hit])
        return e

    def _impact(self, rows, order, u, v, mode, mu, direction, min_cor) -> np.ndarray:
        """The change of u of the impact (module docstring, 2)."""
        if self._induced != InducedImpactModel.SIMULTANEOUS:
            return self._sequential_impact(rows, order, u, mode, mu, direction, min_cor)
        n = len(v)
        e = self._restitution_of(-v[:, 0], min_cor)
        target = np.zeros((n, 3))
        if self._restitution == RestitutionModel.NEWTON:
            target[:, 0] = e * np.maximum(-v[:, 0], 0.0)
        lam, du = self._solve(rows, order, mode, mu, direction, u, target)
        if self._restitution == RestitutionModel.POISSON and e.any():
            expansion = np.zeros((n, 3))
            expansion[:, 0] = e * lam[:, 0]
            apply_impulses(rows[0], rows[1], rows[3], expansion, du)
            _, reaction = self._solve(rows, order, mode, mu, direction, u + du,
                                      np.zeros((n, 3)))
            du += reaction
        return du

    def _sequential_impact(self, rows, order, u, mode, mu, direction, min_cor):
        """The change of u of an impact resolved in rounds (SEQUENTIAL, MIXED): each
        round stops the contacts approaching then (the impacters), the others looking on,
        while the last round's impacters push apart by their expansion impulses (Poisson)
        with their friction taking part; the impacts so induced are the next round's.
        After the last round a leftover expansion is applied alone (SEQUENTIAL) or with
        every contact taking part at no restitution (MIXED)."""
        n = len(min_cor)
        first, dofs, G = rows[:3]
        total = np.zeros_like(u)
        expansion = np.zeros(n)
        poisson = self._restitution == RestitutionModel.POISSON
        for round_ in range(self._max_induced_impacts):
            vn = row_velocities(first, dofs, G, u + total)[:, 0]
            expanders = expansion != 0.0
            impacters = ~expanders & (vn < -0.1 * self._constraint_tolerance)
            if not (impacters.any() or expanders.any()):
                break
            last = round_ == self._max_induced_impacts - 1
            taking = impacters | expanders
            if last and self._induced == InducedImpactModel.MIXED:
                taking[:] = True
            e = np.where(impacters, self._restitution_of(-vn, min_cor), 0.0)
            target = np.zeros((n, 3))
            if self._restitution == RestitutionModel.NEWTON:
                target[impacters, 0] = -e[impacters] * vn[impacters]
            start = np.zeros((n, 3))
            start[:, 0] = expansion
            lam, du = self._solve(rows, order[taking[order]], mode, mu, direction,
                                  u + total, target, start, known=expanders)
            total += du
            expansion = e * lam[:, 0] if poisson else np.zeros(n)
            if last and expansion.any():
                expanders = expansion != 0.0
                taking = expanders.copy() \
                    if self._induced == InducedImpactModel.SEQUENTIAL else np.ones(n, bool)
                start = np.zeros((n, 3))
                start[:, 0] = expansion
                _, du = self._solve(rows, order[taking[order]], mode, mu, direction,
                                    u + total, np.zeros((n, 3)), start, known=expanders)
                total += du
        return total

    def _advance(self, h: float, u1: np.ndarray, correction: np.ndarray,
                 zdot: np.ndarray) -> None:
        """q1 = q + h N(q)(u1 + correction), u = u1, z += h ż, t += h; then the
        projection."""
        matter, s = self._matter, self._state
        qdot = matter.multiply_by_n(s, False, u1 + correction)
        q = matter.get_q(s) + h * qdot
        matter.upd_u(s)[:] = u1
        matter.upd_q(s)[:] = q
        if zdot.size:
            s.upd_z()[:] += h * zdot
        s.set_time(s.get_time() + h)
        self._system.project(s, self._constraint_tolerance * 1e-3)
        self._system.realize(s, Stage.VELOCITY)

"""SemiExplicitEulerTimeStepper: a fixed-step, velocity-level time stepper for models with
unilateral contacts (Simbody's SemiExplicitEulerTimeStepper): impacts with restitution and
Coulomb friction with true stiction, solved as impulses.

A step of h from (t, q, u):

1. The *proximal* contacts, those whose separation is within the constraint tolerance,
   give the rows G of the step (a normal row each, two tangent rows with friction) and
   A = G M⁻¹ Gᵀ. Each one's coefficient of friction is fixed by its slip speed now.
2. *Impact*: where a proximal contact approaches faster than the tolerance, the impulses
   that stop the approach are found at once for all (Simultaneous); with Newton's
   restitution they instead reverse it times the coefficient of restitution e, with
   Poisson's (the default) an expansion impulse e times the compression impulse follows,
   and a reaction round keeps the other contacts from closing. e falls to 0 at the
   capture speed, ending a ball's bounces.
3. *Dynamics*: u̇ of the applied forces, then the impulses that keep every proximal
   contact from closing and, within the friction cone, from slipping: u1 = u + h u̇ +
   M⁻¹ Gᵀ λ. A contact slipping faster than the transition speed at the step's start
   slides: its friction is μd times its normal impulse, against that slip.
4. *Positions*: q1 = q + h N(q) (u1 + δu), δu the velocity that would remove any
   penetration in one step (not kept in u), then the State is projected (quaternions,
   bilateral constraints).

The impulses come from the projected Gauss-Seidel solver, compiled (``pgs.py``).
"""

from __future__ import annotations

import enum

import numpy as np

from kinetree.errors import InvalidArgumentError
from kinetree.multibody.unilateral import pgs
from kinetree.multibody.unilateral.unilateral_contact import (
    body_poses,
    calc_effective_cof,
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
        self._projection = PositionProjectionMethod.BILATERAL
        self._capture = 0.0
        self._min_cor_speed = 0.0
        self._transition = 0.0
        self._state = None
        self._last_impulses: dict = {}   # contact's key -> its rows' impulses last step

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

    def set_restitution_model(self, model) -> None:
        self._restitution = RestitutionModel(model)

    def get_restitution_model(self) -> RestitutionModel:
        return self._restitution

    def set_induced_impact_model(self, model) -> None:
        """Only SIMULTANEOUS, Simbody's default, is available: every impact of a step is
        resolved at once."""
        if InducedImpactModel(model) != InducedImpactModel.SIMULTANEOUS:
            raise InvalidArgumentError(
                "SemiExplicitEulerTimeStepper.set_induced_impact_model: only SIMULTANEOUS "
                "is available yet (every impact of a step resolved at once).")

    def set_position_projection_method(self, method) -> None:
        """BILATERAL (the default) and UNILATERAL both move q so that a penetrating
        proximal contact is out of penetration after the step (by a velocity used for q
        only); NO_POSITION_PROJECTION leaves penetration to the next steps' impulses."""
        self._projection = PositionProjectionMethod(method)

    def set_impulse_solver_type(self, solver) -> None:
        """Only PGS, projected Gauss-Seidel, is available yet."""
        if ImpulseSolverType(solver) != ImpulseSolverType.PGS:
            raise InvalidArgumentError(
                "SemiExplicitEulerTimeStepper.set_impulse_solver_type: only PGS (projected "
                "Gauss-Seidel) is available yet.")

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

    def _rows(self, state):
        """(G, kind, normal_of, contacts, first rows, separations) of the proximal
        contacts."""
        contacts, blocks, separations = [], [], []
        matter = self._matter
        poses = body_poses(matter, state, "SemiExplicitEulerTimeStepper.step_to")
        made = [c for generator in matter._unilateral_generators
                for c in generator.contacts(state, matter, poses, self._constraint_tolerance)]
        terms = []          # (block, body, station, coefficients) of every proximal contact
        for contact in matter._unilateral_contacts + made:
            gap = contact._separation(state, poses)
            if gap <= self._constraint_tolerance:
                contact_terms = contact._terms(state, poses)
                rows = 1 + (contact.FRICTION_ROWS if contact.has_friction() else 0)
                block = contact._rows(state, matter, poses)[:rows] if not contact_terms \
                    else np.zeros((rows, matter.get_u(state).size))
                terms += [(len(blocks), body, station, coefficients[:rows])
                          for body, station, coefficients in contact_terms]
                contacts.append(contact)
                blocks.append(block)
                separations.append(gap)
        if not contacts:
            return None
        if terms:
            # every station's Jacobian in one call, then each term into its block
            J = matter.calc_station_jacobian(
                state, [t[1] for t in terms], np.array([t[2] for t in terms]))
            J = J.reshape(len(terms), 3, -1)
            for (block, _, _, coefficients), J_t in zip(terms, J):
                blocks[block] += coefficients @ J_t
        G = np.vstack(blocks)
        kind = np.zeros(len(G), np.int64)
        normal_of = np.zeros(len(G), np.int64)
        first = []
        row = 0
        for rows in blocks:
            first.append(row)
            if len(rows) > 1:
                kind[row + 1] = pgs.FRICTION
                normal_of[row + 1] = row
            row += len(rows)
        return G, kind, normal_of, contacts, first, np.array(separations)

    def _step(self, h: float) -> None:
        system, matter, s = self._system, self._matter, self._state
        system.realize(s, Stage.VELOCITY)
        found = self._rows(s)
        u = matter.get_u(s).copy()
        if found is None:
            system.realize(s, Stage.ACCELERATION)
            self._advance(h, u + h * matter.get_u_dot(s), np.zeros_like(u),
                          s.get_z_dot().copy())
            return
        G, kind, normal_of, contacts, first, separations = found
        Minv = matter.calc_m_inv(s)
        MinvGt = Minv @ G.T
        A = G @ MinvGt
        v = G @ u
        normal = kind == pgs.NORMAL
        mu = np.zeros(len(G))
        direction = np.zeros(len(G))
        transition = self.get_default_friction_transition_velocity_in_use()
        for contact, row in zip(contacts, first):
            if contact.has_friction():
                slip = float(np.hypot(v[row + 1], v[row + 2]))
                mu[row + 1] = calc_effective_cof(contact.mu_s, contact.mu_d, contact.mu_v,
                                                 transition, slip)
                if slip > transition:
                    # sliding: the friction opposes the slip at the step's start
                    kind[row + 1] = pgs.SLIDING
                    direction[row + 1:row + 3] = -v[row + 1:row + 3] / slip
        # impact
        approaching = normal & (v < -self._constraint_tolerance)
        if approaching.any():
            u = u + MinvGt @ self._impact(A, v, kind, normal_of, mu, direction, contacts,
                                          first)
        # dynamics
        matter.upd_u(s)[:] = u
        system.realize(s, Stage.ACCELERATION)
        free = u + h * matter.get_u_dot(s)
        zdot = s.get_z_dot().copy()
        # Warm start: each contact's impulses of the last step, where it was there too;
        # resting contacts change little from step to step.
        start = np.zeros(len(G))
        keys = [getattr(c, "_key", id(c)) for c in contacts]
        spans = [slice(row, end) for row, end in zip(first, first[1:] + [len(G)])]
        for key, span in zip(keys, spans):
            last = self._last_impulses.get(key)
            if last is not None and len(last) == span.stop - span.start:
                start[span] = last
        lam = pgs.solve(A, G @ free, np.zeros(len(G)), kind, normal_of, mu, direction,
                        start)
        self._last_impulses = {key: lam[span].copy() for key, span in zip(keys, spans)}
        u1 = free + MinvGt @ lam
        # the velocity that would remove the penetration in one step, for q only
        correction = np.zeros_like(u)
        if self._projection != PositionProjectionMethod.NO_POSITION_PROJECTION:
            deep = np.zeros(len(G))
            for gap, row in zip(separations, first):
                deep[row] = max(0.0, -gap) / h
            if deep.any():
                rows = np.flatnonzero(normal)
                sub = np.ix_(rows, rows)
                none = np.zeros(len(rows))
                corr = pgs.solve(A[sub], none, deep[rows], np.zeros(len(rows), np.int64),
                                 np.zeros(len(rows), np.int64), none, none)
                correction = MinvGt[:, rows] @ corr
        self._advance(h, u1, correction, zdot)

    def _impact(self, A, v, kind, normal_of, mu, direction, contacts, first) -> np.ndarray:
        """The impulses of a simultaneous impact (module docstring, 2)."""
        capture = self.get_default_impact_capture_velocity_in_use()
        min_cor_speed = self.get_default_impact_min_cor_velocity_in_use()
        e = np.zeros(len(v))
        if self._restitution != RestitutionModel.NO_RESTITUTION:
            for contact, row in zip(contacts, first):
                if v[row] < -self._constraint_tolerance:
                    e[row] = calc_effective_cor(contact.min_cor, capture, min_cor_speed,
                                                -v[row])
        target = np.zeros(len(v))
        if self._restitution == RestitutionModel.NEWTON:
            target = -e * np.minimum(v, 0.0)
        lam = pgs.solve(A, v, target, kind, normal_of, mu, direction)
        if self._restitution == RestitutionModel.POISSON and e.any():
            expansion = np.where(kind == pgs.NORMAL, e * lam, 0.0)
            v2 = v + A @ (lam + expansion)
            lam = lam + expansion + pgs.solve(A, v2, np.zeros(len(v)), kind, normal_of, mu,
                                              direction)
        return lam

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

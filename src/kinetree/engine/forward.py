"""The forward pipeline: every built-in element of a multibody model realized in one
compiled call, over any range of stages from POSITION to ACCELERATION (MuJoCo's
``mj_forward``, with Simbody's stages). Read top to bottom, it is the model's whole data
flow:

  POSITION      the prescribed bodies' q                              prescribe_positions
                X_FM, X_GB, hinge matrices H, mass properties in G   position_sweep
                each quaternion's normalization error                 quaternion_errors
                each constraint's position errors                     constraint_position
                the contact surfaces' overlapping pairs                contact_search
                each muscle path's points and length                  path_positions
  VELOCITY      the prescribed bodies' u                              prescribe_velocities
                V_GB, the bias terms, q̇ = N u                        velocity_sweep
                each constraint's velocity errors                     constraint_velocity
                each muscle path's lengthening speed                  path_speeds
  DYNAMICS      articulated-body inertias P, U, D⁻¹                   inertia_sweep
                body and mobility forces zeroed, then every enabled
                built-in force element added, with its potential
                energy                                                force_sweep
                the compliant force of every point contact and
                elastic foundation spring, or the Hunt-Crossley and
                elastic foundation forces of OpenSim's elements       contact_forces
                the actuators' controls: defaults, Python controllers'
                and prescribed Functions of time                      control_sweep
                every actuator's force, its states' derivatives ż
                and outputs (muscles: activation and fiber dynamics)  actuator_sweep
                the forces of the muscles' tensions along their paths path_forces
  ACCELERATION  the prescribed bodies' u̇                             prescribe_accelerations
                u̇ from the applied forces by the articulated-body
                method                                                acceleration_sweep
                the prescribed mobilities' forces τ                   motion_forces
                u̇ corrected by the constraint multipliers λ, and
                the acceleration errors left                          constraint_acceleration
                τ again, with the constraint forces                   constrained_motion_forces
                q̈ = N u̇ + Ṅ u (left to the end of a run of steps)    qdotdot_sweep

The staged realization (``System.realize`` to one stage at a time) and the fused one
(several stages at once) are this same function with a different ``first`` and ``last``,
so they give bit-identical results. User code (custom forces and subsystems, custom
mobilizers, Custom constraints and those calling user Functions) runs in Python between
calls, filling the same arrays; ``plan.py`` decides where the calls split. The function
is compiled once for every model: its switches on type codes call the commonest kinds
inline and every other kind through the address of its functions, compiled by themselves
(``kinds.py``).

Fusing the sweeps of several stages into fewer passes was measured slower on long chains
(a loop streaming many arrays loses more to memory than the extra passes cost), so each
stage keeps its own pass.
"""

import numba
import numpy as np
from numba.core import types
from numba.experimental import structref
from numba.extending import overload

from kinetree.actuators.controllers import control_sweep
from kinetree.actuators.dispatch import actuator_sweep
from kinetree.actuators.path_table import path_forces, path_positions, path_speeds
from kinetree.contact.collision import _HEADER, unpack_contacts
from kinetree.engine.entry import (
    call_native,
    entry_point,
    fingerprints,
    native_address,
    unowned,
)
from kinetree.engine.kinds import each
from kinetree.forces.elements.dispatch import force_sweep
from kinetree.jit import helper
from kinetree.multibody.constraint_table import unpack_constraints
from kinetree.multibody.kernels.aba import acceleration_sweep, inertia_sweep
from kinetree.multibody.kernels.constraints import (
    constraint_acceleration,
    constraint_position,
    constraint_velocity,
)
from kinetree.multibody.kernels.n_matrix import qdotdot_sweep, quaternion_errors
from kinetree.multibody.kernels.position import position_sweep
from kinetree.multibody.kernels.prescribed import (
    constrained_motion_forces,
    motion_forces,
    prescribe_accelerations,
    prescribe_positions,
    prescribe_velocities,
)
from kinetree.multibody.kernels.velocity import velocity_sweep
from kinetree.multibody.tree_model import (
    INCONSISTENT_SEEN,
    QDOTDOT_DEFERRED,
    RAISE_INCONSISTENT,
    kernel,
    unpack_cache,
    unpack_tree,
)
from kinetree.system.stage import Stage

POSITION, VELOCITY = int(Stage.POSITION), int(Stage.VELOCITY)
DYNAMICS, ACCELERATION = int(Stage.DYNAMICS), int(Stage.ACCELERATION)
SINGULAR, OVERFLOW, INCONSISTENT, NONFINITE, ZERO_QUATERNION = 1, 2, 4, 7, 8
"""What realize_stages returns when it stops early, when the constraint equations had no
solution (INCONSISTENT, after the whole realization), when a stage's results are not
finite numbers (NONFINITE: q̇, the applied forces or u̇), or when a quaternion in q is
all zeros (ZERO_QUATERNION: it stands for no orientation)."""


@helper
def _finite(values):
    """Whether every entry of ``values`` (1-d) is a finite number: x - x is 0 for those
    and NaN for NaN and ±inf, so one sum with no branch tells."""
    total = 0.0
    for x in values:
        total += x - x
    return total == 0.0


@helper
def _zero_quaternion(q, quaternion_q):
    """Whether a quaternion of q (its indices a row of ``quaternion_q``) is all zeros, or
    so small that its squared length is: the rotation it gives would divide by zero."""
    for k in range(quaternion_q.shape[0]):
        s = 0.0
        for i in range(4):
            s += q[quaternion_q[k, i]] ** 2
        if s == 0.0:
            return True
    return False


@helper
def _finite_rows(values):
    """Whether every entry of ``values`` (2-d) is a finite number (``_finite``)."""
    total = 0.0
    for i in range(values.shape[0]):
        for j in range(values.shape[1]):
            total += values[i, j] - values[i, j]
    return total == 0.0


def _contact_data_type():
    """numba's type of the ContactData compiled code unpacks (every field a C array): of
    buffers for no surfaces, which hold the header, one face start and one hull start."""
    return numba.typeof(unpack_contacts.py_func(np.zeros(_HEADER + 3, dtype=np.int64),
                                                np.zeros(0)))


_MATRICES = types.Array(types.float64, 2, "C", readonly=True)

contact_search = each("contact", "search_contacts", lambda: types.none(
    _contact_data_type(), types.Array(types.float64, 3, "C", readonly=True), _MATRICES))
"""contact_search(contact_kinds, contacts, R_GB, p_GB): the compiled contact search, if
``contact_kinds`` has one (``contact/collision.py``)."""

contact_forces = each("contact", "contact_forces", lambda: types.none(
    _contact_data_type(), types.float64, _MATRICES, _MATRICES,
    types.Array(types.float64, 2, "C")))
"""contact_forces(contact_kinds, contacts, transition_velocity, p_GB, V_GB, body_forces):
the forces of each contact model in ``contact_kinds`` (``contact/compliant.py``,
``hunt_crossley_force.py``, ``elastic_foundation_force.py``)."""


@helper
def _constraints(model, data):
    """The constraints' views (``constraint_table.ConstraintWork``) of ``model`` and
    ``data``."""
    return unpack_constraints(model.con_i, data.con_index, data.con_f, data.con_buf, data.q,
                              data.u)


@kernel
def realize_stages(first, last, model, data):
    """Realize stages ``first`` through ``last`` (stage numbers) of ``data`` (an
    EngineData, ``engine/data.py``) of the model ``model`` (an EngineModel) from its q, u
    and time: the tree, the built-in force elements of ``data.force_rows``, the contact
    parts of ``model.contact_kinds`` (the search and the force models on what it finds),
    the quaternions' normalization errors and the enabled constraints' errors and
    multipliers. Each ``*_kinds`` is the Kinds of a family the model uses
    (``engine/kinds.py``), its table of the addresses of the kinds compiled apart.
    Returns 0 when done, ZERO_QUATERNION before anything if a quaternion in q is all
    zeros, SINGULAR after the inertias if a body's articulated inertia is
    singular along its mobilities (data.status[0] = 1 + the body), OVERFLOW after the
    contact search if its buffers were too small, NONFINITE when q̇, the applied forces
    or u̇ are not all finite, INCONSISTENT at the end if the constraints' acceleration
    errors are left beyond tolerance (``kernels/constraints.py``) and the matter
    subsystem raises on that; otherwise the least-squares u̇ and multipliers stand, and
    cache.status[INCONSISTENT_SEEN] says so."""
    q, u, udot = data.q, data.u, data.udot
    body_forces, mobility_forces = data.body_forces, data.mobility_forces
    tree = unpack_tree(model.tree_i, model.tree_f, model.mobilizer_kinds)
    cache = unpack_cache(data.buf, data.status)
    # The constraints' and the contacts' views are made only where they are used: a model
    # without them then computes none of them.
    constrained = model.con_i.shape[0] > 0
    in_contact = data.contact_i[0] > 0          # the search has surfaces
    actuated = model.act_i.shape[0] > 0
    constraint_kinds, contact_kinds = model.constraint_kinds, model.contact_kinds
    if first <= POSITION <= last:
        if _zero_quaternion(q, model.quaternion_q):
            return ZERO_QUATERNION
        prescribe_positions(tree, cache, q)
        position_sweep(tree, cache, q)
        quaternion_errors(q, model.quaternion_q, data.quaternion_err)
        if constrained:
            constraint_position(constraint_kinds, tree, cache, _constraints(model, data),
                                data.qerr)
        if in_contact:
            contacts = unpack_contacts(data.contact_i, data.contact_f)
            contact_search(contact_kinds, contacts, cache.R_GB, cache.p_GB)
            if contacts.header[7] != 0:
                return OVERFLOW
        if actuated:
            path_positions(model, data, tree, cache)
    if first <= VELOCITY <= last:
        prescribe_velocities(tree, cache, u)
        velocity_sweep(tree, cache, q, u, data.qdot)
        if constrained:
            constraint_velocity(constraint_kinds, tree, cache, _constraints(model, data), u,
                                data.uerr)
        if actuated:
            path_speeds(model, data, tree, cache)
        if not _finite(data.qdot):
            return NONFINITE
    if first <= DYNAMICS <= last:
        inertia_sweep(tree, cache)
        if cache.status[0] != 0:
            return SINGULAR
        for b in range(body_forces.shape[0]):
            for i in range(6):
                body_forces[b, i] = 0.0
        for i in range(mobility_forces.shape[0]):
            mobility_forces[i] = 0.0
        force_sweep(model.force_kinds, data.force_rows, model.force_i, data.force_f, tree,
                    cache, q, u, body_forces, mobility_forces, data.force_pe, data.time,
                    data.force_state, data.force_next, data.force_out, data.force_zdot)
        if in_contact:
            contact_forces(contact_kinds, unpack_contacts(data.contact_i, data.contact_f),
                           model.transition_velocity, cache.p_GB, cache.V_GB, body_forces)
        if actuated:
            control_sweep(model.controller_i, model.controller_f, data.time,
                          data.control_defaults, data.python_controls, data.controls)
            actuator_sweep(model.actuator_kinds, model.act_i, data.act_f, data.z, data.zdot,
                           data.controls, data.path_length, data.path_speed,
                           data.path_tension, tree, cache, body_forces, mobility_forces,
                           data.act_out)
            path_forces(model, data, tree, cache, body_forces, mobility_forces)
            if not _finite(data.zdot):
                return NONFINITE
        if not (_finite_rows(body_forces) and _finite(mobility_forces)):
            return NONFINITE
    if first <= ACCELERATION <= last:
        prescribe_accelerations(tree, cache, udot)
        acceleration_sweep(tree, cache, cache.c, cache.b, cache.A_GB, mobility_forces,
                           body_forces, udot)
        motion_forces(tree, cache, mobility_forces)
        inconsistent = 0
        if constrained:
            con = _constraints(model, data)
            if con.m > 0:
                inconsistent = constraint_acceleration(constraint_kinds, tree, cache, con,
                                                       udot, data.udoterr, data.multipliers)
                constrained_motion_forces(tree, cache, udot, mobility_forces, body_forces,
                                          con.G, data.multipliers)
        if cache.status[QDOTDOT_DEFERRED] == 0:
            qdotdot_sweep(tree, q, u, udot, data.qdotdot_work, data.qdotdot)
        if not _finite(udot):
            return NONFINITE
        if inconsistent:
            cache.status[INCONSISTENT_SEEN] = 1
            if cache.status[RAISE_INCONSISTENT] != 0:
                return INCONSISTENT
    return 0


@structref.register
class RealizationType(types.StructRef):
    """The numba type of a Realization: its fields' types."""

    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(t)) for name, t in fields)


class Realization(structref.StructRefProxy):
    """One State's realization as compiled code sees it: its ``model`` and ``data`` and
    the ``address`` of the compiled ``realize_stages`` (``entry.native_address``), in one
    object that Python hands to compiled code as a single pointer (``realize``): handing
    the forty arrays of the model and data one by one costs some 3 µs a call. Its arrays
    do not keep their memory alive (``entry.unowned``): whoever holds a Realization holds
    the model and data too."""


structref.define_boxing(RealizationType, Realization)


def _new_realization(model, data, address):
    """A Realization of these, in compiled code."""


@overload(_new_realization)
def _new_realization_overload(model, data, address):
    realization_type = RealizationType([("model", model), ("data", data),
                                        ("address", address)])

    def new(model, data, address):
        r = structref.new(realization_type)
        r.model, r.data = unowned((model, data))
        r.address = address
        return r

    return new


@numba.njit(cache=True)
def new_realization(model, data, address):
    """A Realization (made by compiled code: its own constructor would be compiled again
    in every process)."""
    return _new_realization(model, data, address)


@numba.njit(cache=True)
def realize(first, last, t, realization):
    """realize_stages(first, last, model, data) of ``realization`` at time ``t`` (s),
    through its address."""
    data = realization.data
    data.time[0] = t
    return call_native(realization.address, first, last, realization.model, data)


def realization_of(model, data) -> tuple[Realization, int]:
    """(the Realization of ``model`` and ``data``, the address of realize_stages)."""
    types = fingerprints((model, data))         # the forty arrays' types, looked at once
    address = native_address(realize_stages, (0, 0, model, data),
                             fingerprints((0, 0)) + types)
    made = entry_point(new_realization, (model, data, address), types + fingerprints((0,)))
    return made(model, data, address), address



"""The one place compiled code meets the actuators: switches on the actuator type code
forwarding to the ``calc`` and ``equilibrate`` of that kind's module (actuators/<kind>.py),
each compiled by itself and called through its address (``engine/kinds.py``)."""

import numpy as np
from numba.core import types

from kinetree.actuators.actuator import CODE, PATH
from kinetree.engine.kinds import switch
from kinetree.jit import helper
from kinetree.multibody.tree_model import kernel, numba_types

_ROW = types.Array(types.int64, 1, "C", readonly=True)
_READ = types.Array(types.float64, 1, "C", readonly=True)
_WRITE = types.Array(types.float64, 1, "C")


def _calc_signature():
    _, cache = numba_types()
    frames = [cache.types[cache.fields.index(name)] for name in ("R_GB", "p_GB")]
    return types.float64(_ROW, _READ, _READ, _WRITE, _READ, types.float64, types.float64,
                         *frames, types.Array(types.float64, 2, "C"), _WRITE, _WRITE)


def _equilibrate_signature():
    return types.int64(_ROW, _READ, _WRITE, _READ, types.float64, types.float64, _WRITE)


calc = switch("actuators", "calc", _calc_signature, default=np.nan)
"""calc(kinds, code, ai, af, z, zdot, controls, length, speed, R_GB, p_GB, body_forces,
mobility_forces, out) -> tension: the actuator of row ``ai`` (its parameters ``af``,
from its first), of type ``code``: writes its z derivatives into ``zdot`` (the whole
State's, at its row's Z on), its outputs into ``out`` (its row, ``actuator.OUT_*``), adds
any force it applies itself (a coordinate, point or torque actuator) into the body or
mobility forces, and returns the tension (N) its path carries, 0 for one without a path.
``z`` and ``controls`` are the State's whole arrays; ``length`` (m) and ``speed`` (m/s)
are its path's; R_GB and p_GB are the bodies' orientations and origins in Ground (the
tree's cache itself is not passed: a call through an address copies every argument).
NaN for a code not in ``kinds``."""

equilibrate = switch("actuators", "equilibrate", _equilibrate_signature, default=0)
"""equilibrate(kinds, code, ai, af, z, controls, length, speed, out) -> status: set the
muscle's fiber state in ``z`` so that its fiber and tendon forces balance at its path's
``length`` and ``speed`` and its current activation (OpenSim's
computeInitialFiberEquilibrium); 0 when done, otherwise a code its Python class
explains (``Actuator.failure``). 0 for a kind with nothing to equilibrate."""


@helper
def actuator_sweep(kinds, act_i, act_f, z, zdot, controls, lengths, speeds, tensions, tree,
                   cache, body_forces, mobility_forces, out):
    """Every actuator of the table ``act_i`` in order: its states' derivatives, outputs
    (row k of ``out``) and the forces it applies itself; a muscle's tension (N) into
    ``tensions`` at its path's index, for the path to apply."""
    for k in range(act_i.shape[0]):
        ai = act_i[k]
        p = ai[PATH]
        length = lengths[p] if p >= 0 else 0.0
        speed = speeds[p] if p >= 0 else 0.0
        tension = calc(kinds, ai[CODE], ai, act_f, z, zdot, controls, length, speed,
                       cache.R_GB, cache.p_GB, body_forces, mobility_forces, out[k])
        if p >= 0:
            tensions[p] = tension


@kernel
def equilibrate_sweep(kinds, act_i, act_f, z, controls, lengths, speeds, out):
    """``equilibrate`` each muscle of the table (the fiber states in ``z``) at its path's
    length and speed; (-1, 0) when all are done, else (the first that failed, its code)."""
    for k in range(act_i.shape[0]):
        ai = act_i[k]
        p = ai[PATH]
        if p < 0:
            continue
        status = equilibrate(kinds, ai[CODE], ai, act_f, z, controls, lengths[p], speeds[p],
                             out[k])
        if status != 0:
            return k, status
    return -1, 0

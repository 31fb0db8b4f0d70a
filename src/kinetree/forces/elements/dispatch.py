"""The one place compiled code meets the force elements: a switch on the force element
type code forwarding to the ``calc`` of that type's module (forces/elements/<type>.py),
which adds the element's forces into the body and mobility force arrays and returns its
potential energy (J). The inline kinds have branches of their own, any other is called
through the address of its ``calc`` compiled alone (``engine/kinds.py``)."""

from collections import namedtuple

import numpy as np
from numba.core import types

from kinetree.engine.kinds import switch
from kinetree.jit import helper
from kinetree.multibody.tree_model import kernel, numba_types, unpack_cache, unpack_tree

ForceTree = namedtuple("ForceTree", ["mass", "nq", "nu", "q_start", "u_start"])
"""What a force element reads of the tree: the bodies' masses (kg), and each mobilizer's
number of q and u and where they begin in q and u."""
ForceCache = namedtuple("ForceCache", ["R_GB", "p_GB", "V_GB", "com_G", "T", "time",
                                       "force_state", "force_next", "force_out",
                                       "force_zdot"])
"""What a force element reads of the realized State: each body's orientation R_GB, origin
p_GB (m) and spatial velocity V_GB in Ground, its mass center com_G (m, in Ground), a
(6, 6) scratch T, the time ``time[0]`` (s), and the force elements' own state (for an
element with a row of ``force_i`` whose column STATE is >= 0): ``force_state`` their
current values (read), ``force_next`` the values they take at the next auto-update
(written, Simbody's auto-update discrete variables), ``force_out`` their reports (written
at column OUT), ``force_zdot`` the derivatives of their continuous variables (written at
column Z). A kind called through its address receives every field of its arguments,
so it is handed these, not the whole tree and cache (90 ns a call)."""

_VECTOR = types.Array(types.float64, 1, "C")
_STATE_FIELDS = ("time", "force_state", "force_next", "force_out", "force_zdot")
"""ForceCache's fields not from the tree cache: writable float64 vectors."""


def _view_types():
    tree, cache = numba_types()

    def view(full, cls):
        return types.NamedTuple([_VECTOR if f in _STATE_FIELDS else
                                 full.types[full.fields.index(f)] for f in cls._fields], cls)

    return view(tree, ForceTree), view(cache, ForceCache)


def _calc_signature():
    tree, cache = _view_types()
    vector = types.Array(types.float64, 1, "C", readonly=True)
    return types.float64(types.Array(types.int64, 1, "C", readonly=True), vector, tree,
                         cache, vector, vector, types.Array(types.float64, 2, "C"),
                         types.Array(types.float64, 1, "C"))


calc = switch("forces", "calc", _calc_signature, default=np.nan)
"""calc(kinds, code, fi, ff, tree, cache, q, u, body_forces, mobility_forces): the forces
of one element of type ``code``, row ``fi`` of the table with parameters ``ff``; its
potential energy, or NaN for a code not in ``kinds``. ``tree`` is a ForceTree, ``cache``
a ForceCache."""


@helper
def force_sweep(kinds, rows, force_i, force_f, tree, cache, q, u, body_forces,
                mobility_forces, pe, time, force_state, force_next, force_out, force_zdot):
    """Add the forces of the table rows ``rows`` (the enabled elements, of the Kinds
    ``kinds``) and store each one's potential energy in ``pe``; the elements with state
    read it from ``force_state`` at time ``time[0]`` (s) and write its next values to
    ``force_next``, their reports to ``force_out`` and the derivatives of their
    continuous variables to ``force_zdot``, zero for the disabled ones (ForceCache)."""
    viewed = ForceTree(tree.mass, tree.nq, tree.nu, tree.q_start, tree.u_start)
    realized = ForceCache(cache.R_GB, cache.p_GB, cache.V_GB, cache.com_G, cache.T, time,
                          force_state, force_next, force_out, force_zdot)
    for i in range(force_zdot.shape[0]):
        force_zdot[i] = 0.0
    for r in rows:
        fi = force_i[r]
        pe[r] = calc(kinds, fi[0], fi, force_f[fi[4]:], viewed, realized, q, u,
                     body_forces, mobility_forces)


@kernel
def calc_force_elements(force_kinds, rows, force_i, force_f, tree_i, tree_f, kinds, buf,
                        status, q, u, body_forces, mobility_forces, pe, time, force_state,
                        force_next, force_out, force_zdot):
    """``force_sweep`` on the flat model and cache buffers."""
    force_sweep(force_kinds, rows, force_i, force_f, unpack_tree(tree_i, tree_f, kinds),
                unpack_cache(buf, status), q, u, body_forces, mobility_forces, pe, time,
                force_state, force_next, force_out, force_zdot)

"""The one place compiled code meets the force elements: a switch on the force element
type code forwarding to the ``calc`` of that type's module (forces/elements/<type>.py),
which adds the element's forces into the body and mobility force arrays and returns its
potential energy (J). The inline kinds have branches of their own, any other is called
through the address of its ``calc`` compiled alone (``engine/kinds.py``)."""

import numpy as np
from numba.core import types

from kinetree.engine.kinds import switch
from kinetree.jit import helper
from kinetree.multibody.tree_model import kernel, numba_types, unpack_cache, unpack_tree


def _calc_signature():
    tree, cache = numba_types()
    vector = types.Array(types.float64, 1, "C", readonly=True)
    return types.float64(types.Array(types.int64, 1, "C", readonly=True), vector, tree,
                         cache, vector, vector, types.Array(types.float64, 2, "C"),
                         types.Array(types.float64, 1, "C"))


calc = switch("forces", "calc", _calc_signature, default=np.nan)
"""calc(kinds, code, fi, ff, tree, cache, q, u, body_forces, mobility_forces): the forces
of one element of type ``code``, row ``fi`` of the table with parameters ``ff``; its
potential energy, or NaN for a code not in ``kinds``."""


@helper
def force_sweep(kinds, rows, force_i, force_f, tree, cache, q, u, body_forces,
                mobility_forces, pe):
    """Add the forces of the table rows ``rows`` (the enabled elements, of the Kinds
    ``kinds``) and store each one's potential energy in ``pe``."""
    for r in rows:
        fi = force_i[r]
        pe[r] = calc(kinds, fi[0], fi, force_f[fi[4]:], tree, cache, q, u, body_forces,
                     mobility_forces)


@kernel
def calc_force_elements(force_kinds, rows, force_i, force_f, tree_i, tree_f, kinds, buf,
                        status, q, u, body_forces, mobility_forces, pe):
    """``force_sweep`` on the flat model and cache buffers."""
    force_sweep(force_kinds, rows, force_i, force_f, unpack_tree(tree_i, tree_f, kinds),
                unpack_cache(buf, status), q, u, body_forces, mobility_forces, pe)

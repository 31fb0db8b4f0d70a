"""Dispatch on the force element type code: the one place compiled code meets the force
elements. Each branch forwards to the ``calc`` of that type's module (forces/elements/
<type>.py), which adds the element's forces into the body and mobility force arrays and
returns its potential energy (J)."""

import numba
import numpy as np

from kinetree.forces.elements import (
    constant_force,
    constant_torque,
    global_damper,
    linear_bushing,
    mobility_constant_force,
    mobility_linear_damper,
    mobility_linear_spring,
    mobility_linear_stop,
    two_point_constant_force,
    two_point_linear_damper,
    two_point_linear_spring,
    uniform_gravity,
)
from kinetree.multibody.tree_model import kernel, unpack_cache, unpack_tree


@numba.njit(cache=True, forceinline=True)
def force_element(fi, ff, tree, cache, q, u, body_forces, mobility_forces):
    """The forces of one element, row ``fi`` of the table with parameters ``ff``; its
    potential energy, or NaN for a code no branch knows."""
    code = fi[0]
    if code == mobility_linear_damper.CODE:
        return mobility_linear_damper.calc(fi, ff, tree, cache, q, u, body_forces,
                                            mobility_forces)
    if code == mobility_linear_spring.CODE:
        return mobility_linear_spring.calc(fi, ff, tree, cache, q, u, body_forces,
                                            mobility_forces)
    if code == uniform_gravity.CODE:
        return uniform_gravity.calc(fi, ff, tree, cache, q, u, body_forces,
                                     mobility_forces)
    if code == two_point_linear_spring.CODE:
        return two_point_linear_spring.calc(fi, ff, tree, cache, q, u, body_forces,
                                             mobility_forces)
    if code == two_point_linear_damper.CODE:
        return two_point_linear_damper.calc(fi, ff, tree, cache, q, u, body_forces,
                                             mobility_forces)
    if code == two_point_constant_force.CODE:
        return two_point_constant_force.calc(fi, ff, tree, cache, q, u, body_forces,
                                              mobility_forces)
    if code == mobility_constant_force.CODE:
        return mobility_constant_force.calc(fi, ff, tree, cache, q, u, body_forces,
                                             mobility_forces)
    if code == mobility_linear_stop.CODE:
        return mobility_linear_stop.calc(fi, ff, tree, cache, q, u, body_forces,
                                          mobility_forces)
    if code == constant_force.CODE:
        return constant_force.calc(fi, ff, tree, cache, q, u, body_forces,
                                    mobility_forces)
    if code == constant_torque.CODE:
        return constant_torque.calc(fi, ff, tree, cache, q, u, body_forces,
                                     mobility_forces)
    if code == global_damper.CODE:
        return global_damper.calc(fi, ff, tree, cache, q, u, body_forces,
                                   mobility_forces)
    if code == linear_bushing.CODE:
        return linear_bushing.calc(fi, ff, tree, cache, q, u, body_forces,
                                    mobility_forces)
    return np.nan


@numba.njit(cache=True, forceinline=True)
def force_sweep(rows, force_i, force_f, tree, cache, q, u, body_forces, mobility_forces, pe):
    """Add the forces of the table rows ``rows`` (the enabled elements) and store each
    one's potential energy in ``pe``."""
    for r in rows:
        fi = force_i[r]
        pe[r] = force_element(fi, force_f[fi[4]:], tree, cache, q, u, body_forces,
                              mobility_forces)


@kernel
def calc_force_elements(rows, force_i, force_f, tree_i, tree_f, buf, status, q, u,
                        body_forces, mobility_forces, pe):
    """``force_sweep`` on the flat model and cache buffers."""
    force_sweep(rows, force_i, force_f, unpack_tree(tree_i, tree_f),
                unpack_cache(buf, status), q, u, body_forces, mobility_forces, pe)

"""The forward pipeline: every built-in element of a multibody model realized in one
compiled call, over any range of stages from POSITION to ACCELERATION (MuJoCo's
``mj_forward``, with Simbody's stages). Read top to bottom, it is the model's whole data
flow:

  POSITION      X_FM, X_GB, hinge matrices H, mass properties in G   position_sweep
                the contact surfaces' overlapping pairs                search_contacts
  VELOCITY      V_GB, the bias terms, q̇ = N u                        velocity_sweep
  DYNAMICS      articulated-body inertias P, U, D⁻¹                   inertia_sweep
                body and mobility forces zeroed, then every enabled
                built-in force element added, with its potential
                energy                                                force_sweep
                the compliant force of every point contact            compliant_forces
                or the Hunt-Crossley force of OpenSim's elements      hunt_crossley_...
                and their elastic foundations                         elastic_found...
  ACCELERATION  u̇ from the applied forces by the articulated-body
                method; q̈ = N u̇ + Ṅ u                               acceleration_sweep,
                                                                      qdotdot_sweep

The staged realization (``System.realize`` to one stage at a time) and the fused one
(several stages at once) are this same function with a different ``first`` and ``last``,
so they give bit-identical results. User code (custom forces and subsystems, custom
mobilizers, constraints until they are compiled) runs in Python between calls, filling
the same arrays; ``plan.py`` decides where the calls split.

Fusing the sweeps of several stages into fewer passes was measured slower on long chains
(a loop streaming many arrays loses more to memory than the extra passes cost), so each
stage keeps its own pass.
"""

import numpy as np

from kinetree.contact.collision import search_contacts, unpack_contacts
from kinetree.contact.compliant import compliant_forces
from kinetree.contact.elastic_foundation_force import elastic_foundation_contact_forces
from kinetree.contact.hunt_crossley_force import hunt_crossley_contact_forces
from kinetree.forces.elements._table import FORCE_I_COLUMNS
from kinetree.forces.elements.dispatch import force_sweep
from kinetree.multibody.kernels.aba import acceleration_sweep, inertia_sweep
from kinetree.multibody.kernels.n_matrix import qdotdot_sweep
from kinetree.multibody.kernels.position import position_sweep
from kinetree.multibody.kernels.velocity import velocity_sweep
from kinetree.multibody.tree_model import kernel, unpack_cache, unpack_tree
from kinetree.system.stage import Stage

POSITION, VELOCITY = int(Stage.POSITION), int(Stage.VELOCITY)
DYNAMICS, ACCELERATION = int(Stage.DYNAMICS), int(Stage.ACCELERATION)
SINGULAR, OVERFLOW = 1, 2
"""What realize_stages returns when it stops early."""


@kernel
def realize_stages(first, last, tree_i, tree_f, buf, status, q, u, qdot, udot, qdotdot,
                   qdotdot_work, body_forces, mobility_forces, force_rows, force_i, force_f,
                   force_pe, contact_i, contact_f, transition_velocity, contact_set_forces):
    """Realize stages ``first`` through ``last`` (stage numbers) of the tree in the flat
    buffers (``tree_model``) from q and u, applying the force table rows ``force_rows``
    (``forces/elements/dispatch.py``; parameters ``force_f``, potential energies into
    ``force_pe``), searching the contact surfaces in ``contact_i``, ``contact_f``
    (``contact/collision.py``; none if empty) and, with a ``transition_velocity`` ≥ 0,
    applying the compliant contact forces (``contact/compliant.py``), with
    ``contact_set_forces`` those of HuntCrossleyForce and ElasticFoundationForce
    elements (``contact/hunt_crossley_force.py``, ``elastic_foundation_force.py``).
    Returns 0 when done, SINGULAR after the inertias if a body's articulated inertia is
    singular along its mobilities (status[0] = 1 + the body), OVERFLOW after the contact
    search if its buffers were too small."""
    tree = unpack_tree(tree_i, tree_f)
    cache = unpack_cache(buf, status)
    contacts = unpack_contacts(contact_i, contact_f)
    if first <= POSITION <= last:
        position_sweep(tree, cache, q)
        search_contacts(contacts, cache.R_GB, cache.p_GB)
        if contacts.header[7] != 0:
            return OVERFLOW
    if first <= VELOCITY <= last:
        velocity_sweep(tree, cache, q, u, qdot)
    if first <= DYNAMICS <= last:
        inertia_sweep(tree, cache)
        if status[0] != 0:
            return SINGULAR
        for b in range(body_forces.shape[0]):
            for i in range(6):
                body_forces[b, i] = 0.0
        for i in range(mobility_forces.shape[0]):
            mobility_forces[i] = 0.0
        force_sweep(force_rows, force_i, force_f, tree, cache, q, u, body_forces,
                    mobility_forces, force_pe)
        if transition_velocity >= 0.0:
            compliant_forces(contacts, transition_velocity, cache.p_GB, cache.V_GB,
                             body_forces)
        if contact_set_forces:
            hunt_crossley_contact_forces(contacts, cache.p_GB, cache.V_GB, body_forces)
            elastic_foundation_contact_forces(contacts, cache.p_GB, cache.V_GB, body_forces)
    if first <= ACCELERATION <= last:
        acceleration_sweep(tree, cache, True, mobility_forces, body_forces, udot)
        qdotdot_sweep(tree, q, u, udot, qdotdot_work, qdotdot)
    return 0


NO_FORCES = (np.zeros(0, dtype=np.int64), np.zeros((0, FORCE_I_COLUMNS), dtype=np.int64),
             np.zeros(0), np.zeros(0))
"""realize_stages' force-table arguments for a model with no built-in force element."""

NO_CONTACTS = (np.zeros(11, dtype=np.int64), np.zeros(0), -1.0, False)
"""realize_stages' contact arguments for a model without compiled contact."""

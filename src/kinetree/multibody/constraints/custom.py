"""Constraint.Custom: a constraint whose equations are user code (Simbody's
``Constraint::Custom``).

Subclass ``Constraint.Custom.Implementation``: pass the matter subsystem and the numbers of
holonomic, nonholonomic and acceleration-only equations to its constructor, register the
bodies and mobilizers with ``add_constrained_body`` / ``add_constrained_mobilizer``, and
implement the error methods and force method of each kind declared. Then wrap it:
``Constraint.Custom(implementation)``. ``kt.check_constraint`` tests the methods against
each other.

Every constraint written in Python (this one, the couplers and PrescribedMotion, whose
equations call user Functions) reaches the compiled realization as rows: its Python runs
after the compiled POSITION and VELOCITY stages and writes its errors, its rows of G
(from its force methods) and its bias (its acceleration errors at u̇ = 0) into its
parameters; the functions below read them, its constrained mobilities being all of the
tree's. cf = [G (mc x nu, row by row); bias (mc)]. It has no compiled position and
velocity errors: the Python pass writes them.
"""

from __future__ import annotations

from kinetree.jit import helper
from kinetree.multibody.constraint import Constraint, ConstraintImplementation


@helper(forceinline=False)
def acceleration_errors(cf, R_AB, p_AB, V_AB, A_AB, udot, aerr):
    """aerr = G u̇ + bias."""
    nu, mc = udot.shape[0], aerr.shape[0]
    for r in range(mc):
        s = cf[mc * nu + r]
        for i in range(nu):
            s += cf[r * nu + i] * udot[i]
        aerr[r] = s


@helper(forceinline=False)
def forces(cf, R_AB, p_AB, lam, F_A, f):
    """f += Gᵀλ."""
    nu = f.shape[0]
    for r in range(lam.shape[0]):
        for i in range(nu):
            f[i] += cf[r * nu + i] * lam[r]


class Custom(Constraint):
    """``Constraint.Custom(implementation)``."""

    Implementation = ConstraintImplementation

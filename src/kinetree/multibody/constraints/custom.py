"""Constraint.Custom: a constraint whose equations are user code (seed 000 §2.2, seed 003).

Subclass ``Constraint.Custom.Implementation``: pass the matter subsystem and the numbers of
holonomic, nonholonomic and acceleration-only equations to its constructor, register the
bodies and mobilizers with ``add_constrained_body`` / ``add_constrained_mobilizer``, and
implement the error methods and force method of each kind declared. Then wrap it:
``Constraint.Custom(implementation)``. ``kt.check_constraint`` tests the methods against
each other.
"""

from __future__ import annotations

from kinetree.multibody.constraint import Constraint, ConstraintImplementation


class Custom(Constraint):
    """``Constraint.Custom(implementation)``."""

    Implementation = ConstraintImplementation

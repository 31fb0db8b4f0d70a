"""Force.ExpressionBasedCoordinateForce: OpenSim's generalized force on one coordinate given
as a text expression f(q, qdot), compiled once into a program the realization evaluates."""

from __future__ import annotations

from kinetree.forces.elements._expression import MAX_STEPS, compile_expression, evaluate
from kinetree.forces.elements._mobility import MobilityForce, q_index, u_index
from kinetree.jit import helper
from kinetree.registry import FORCES
from kinetree.system.stage import Stage

CODE = FORCES["expression_based_coordinate_force"]


class ExpressionBasedCoordinateForce(MobilityForce):
    """``ExpressionBasedCoordinateForce(forces, mobod, which, expression, name=None)``:
    OpenSim's ExpressionBasedCoordinateForce on coordinate ``which`` of ``mobod``, the
    generalized force f = expression(q, qdot) (N m for a rotation, N for a translation),
    with q the coordinate's value (rad or m, never degrees: OpenSim evaluates the
    expression in the coordinate's internal units too) and qdot its speed u (rad/s or m/s).

    ``expression`` is in the syntax of Lepton, OpenSim's expression library, e.g.
    ``"-10*q-2*qdot"`` or ``"-5*sin(q)+step(q-0.1)*2"``: numbers, q, qdot, ``+ - * / ^``
    (``^`` is right-associative and binds tighter than unary minus: ``-q^2`` is -(q²)),
    parentheses, the functions of ``_expression.FUNCTIONS``, subexpressions after ``;``
    (``k*q; k=10``); whitespace is ignored, as OpenSim strips it. It is parsed here, once,
    by a hand-written parser (a file from others never executes code), into a postfix
    program of at most ``MAX_STEPS`` (256) instructions that the compiled realization runs
    (``_expression.py``); a bad expression raises InvalidArgumentError naming the element
    (``name`` if given), the character and the fix.

    The force has no potential energy, as in OpenSim, whose class reports none even for a
    conservative expression such as ``-10*q``: a Model's total energy leaves it out, so
    the energy of a system it acts on is not conserved in kinetree's numbers either."""

    CODE = CODE
    STAGE = Stage.VELOCITY
    USES_Q = True
    MAX_STEPS = MAX_STEPS

    def __init__(self, forces, mobod, which, expression, name=None):
        where = "Force.ExpressionBasedCoordinateForce" + ("" if name is None else f" {name!r}")
        program = compile_expression(expression, where)
        self._expression = expression
        self._set_mobility(mobod, which)
        super().__init__(forces, program)

    def get_expression(self) -> str:
        """The expression as given."""
        return self._expression


@helper(forceinline=False)
def calc(fi, ff, tree, cache, q, u, body_forces, mobility_forces):
    """ff = the expression's program (``_expression.py``); adds f(q, u) to the
    coordinate's generalized force. No potential energy (OpenSim reports none)."""
    iu = u_index(tree, fi)
    mobility_forces[iu] += evaluate(ff, q[q_index(tree, fi)], u[iu])
    return 0.0

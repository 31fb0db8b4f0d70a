"""Force.ExpressionBasedCoordinateForce: its parser reads Lepton's syntax (precedence,
associativity, unary minus, subexpressions, whitespace) and its compiled stack machine
computes what Python's math module computes for the same expressions written by hand; on
a model it is the generalized force it says (against the built-in spring and damper); bad
expressions are refused with the element, the character and the fix."""

import math
import re
from pathlib import Path

import numpy as np
import pytest

import kinetree as kt
from kinetree.errors import InvalidArgumentError
from kinetree.forces.elements._expression import (
    FUNCTIONS,
    MAX_STEPS,
    compile_expression,
    evaluate,
)

WHERE = "Force.ExpressionBasedCoordinateForce"


def step(x):
    return 1.0 if x >= 0.0 else 0.0


CASES = [      # (expression, the same written in Python); q in [0.1, 0.9], qdot in [-0.9, 0.9]
    ("-10*q-2*qdot", lambda q, u: -10 * q - 2 * u),
    ("-q^2", lambda q, u: -(q ** 2)),                     # ^ binds tighter than unary minus
    ("-2^2", lambda q, u: -4.0),
    ("2^3^2", lambda q, u: 2.0 ** 9),                     # ^ is right-associative
    ("2^-q*3", lambda q, u: 2.0 ** (-q) * 3),             # -x takes x up to the * only
    ("-q*qdot", lambda q, u: (-q) * u),
    ("q-qdot-1", lambda q, u: (q - u) - 1),               # - and / are left-associative
    ("q/qdot/2", lambda q, u: (q / u) / 2),
    ("1+q*qdot^2/4-q", lambda q, u: 1 + ((q * (u ** 2)) / 4) - q),
    ("q*(qdot+1)/(2-q)", lambda q, u: q * (u + 1) / (2 - q)),
    ("--q+q*-qdot+q-(-qdot)", lambda q, u: q + q * (-u) + q + u),
    ("1e-3*q+2.5E+1*qdot+.5-1.+3e2", lambda q, u: 1e-3 * q + 25.0 * u + 0.5 - 1.0 + 300.0),
    (" 1 0 * q + q d o t ", lambda q, u: 10 * q + u),     # whitespace removed, as OpenSim
    ("(q+qdot)^2-q^qdot+q^0.5", lambda q, u: (q + u) ** 2 - q ** u + math.sqrt(q)),
    ("2*q^2^0.5", lambda q, u: 2 * q ** (2 ** 0.5)),
    ("-sin(q)^2", lambda q, u: -(math.sin(q) ** 2)),
    ("sqrt(q)+exp(qdot)-log(q)", lambda q, u: math.sqrt(q) + math.exp(u) - math.log(q)),
    ("sin(q)*cos(qdot)+tan(q)", lambda q, u: math.sin(q) * math.cos(u) + math.tan(q)),
    ("sec(q)+csc(q)+cot(q)",
     lambda q, u: 1 / math.cos(q) + 1 / math.sin(q) + 1 / math.tan(q)),
    ("asin(q)+acos(q/2)+atan(qdot)",
     lambda q, u: math.asin(q) + math.acos(q / 2) + math.atan(u)),
    ("sinh(q)-cosh(qdot)+tanh(q*qdot)",
     lambda q, u: math.sinh(q) - math.cosh(u) + math.tanh(q * u)),
    ("erf(q)+erfc(qdot)", lambda q, u: math.erf(q) + math.erfc(u)),
    ("step(q-0.5)+2*step(qdot)+4*step(q-q)", lambda q, u: step(q - 0.5) + 2 * step(u) + 4),
    ("delta(q-q)+2*delta(q)", lambda q, u: 1.0),
    ("square(q)+cube(qdot)+recip(q)", lambda q, u: q * q + u * u * u + 1 / q),
    ("min(q,qdot)+2*max(q,qdot)-min(2,1)", lambda q, u: min(q, u) + 2 * max(q, u) - 1),
    ("abs(qdot)-abs(-q)", lambda q, u: abs(u) - q),
    ("floor(3*q)+ceil(-3*qdot)", lambda q, u: math.floor(3 * q) + math.ceil(-3 * u)),
    ("k*q+c*qdot; c=-2*k/10; k=-10", lambda q, u: -10 * q + 2 * u),  # defined after ;
    ("-5*sin(q)-0.3*qdot^3+step(q-0.1)*2",
     lambda q, u: -5 * math.sin(q) - 0.3 * u ** 3 + step(q - 0.1) * 2),
    ("max(min(q,0.5),-0.5)*exp(-square(qdot/0.3))",
     lambda q, u: max(min(q, 0.5), -0.5) * math.exp(-((u / 0.3) ** 2))),
]


def test_every_function_is_covered():
    used = " ".join(e for e, _ in CASES)
    assert [f for f in FUNCTIONS if f + "(" not in used] == []


@pytest.mark.parametrize("expression, reference", CASES, ids=[e for e, _ in CASES])
def test_compiled_evaluation_equals_the_reference(expression, reference):
    program = compile_expression(expression, WHERE)
    rng = np.random.default_rng(3)
    for q, u in zip(rng.uniform(0.1, 0.9, 6), rng.uniform(-0.9, 0.9, 6), strict=True):
        assert evaluate(program, q, u) == pytest.approx(reference(q, u), rel=1e-14,
                                                        abs=1e-14), (q, u)


def test_arithmetic_is_ieee_never_an_exception():
    """As Lepton: a division by zero is inf, log(0) -inf, a root of a negative NaN."""
    for expression, expected in (("1/(q-q)", math.inf), ("log(q-q)", -math.inf),
                                 ("recip(q-q)", math.inf), ("(q-q)^-1", math.inf)):
        assert evaluate(compile_expression(expression, WHERE), 0.3, 0.0) == expected
    for expression in ("sqrt(-q)", "(-q)^0.5", "asin(2+q)", "log(-q)"):
        assert math.isnan(evaluate(compile_expression(expression, WHERE), 0.3, 0.0))


def test_program_layout():
    """[n, stack depth, (opcode, constant) per step]: 2^3^2 pushes three numbers before
    the first ^ applies."""
    program = compile_expression("2^3^2", WHERE)
    assert program[:2].tolist() == [5, 3]
    assert program.size == 2 + 2 * 5


def chain(force):
    """A Pin and a Universal under gravity with ``force(forces, universal)`` added; the
    state at q = (0.4, 0.3, -0.7), u = (1.0, -0.6, 0.8), realized to ACCELERATION."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -9.81, 0])
    com = [0.3, -0.5, 0.1]
    body = kt.Body.Rigid(kt.MassProperties(1.0, com, kt.Inertia(
        0.1, 0.12, 0.14, 0.01, 0.02, 0.01).shift_from_mass_center(com, 1.0)))
    pin = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), body, kt.Transform())
    universal = kt.MobilizedBody.Universal(pin, kt.Transform([0, -1, 0]), body,
                                           kt.Transform())
    elements = force(forces, universal)
    state = system.realize_topology()
    state.set_q([0.4, 0.3, -0.7])
    state.set_u([1.0, -0.6, 0.8])
    system.realize(state, kt.Stage.ACCELERATION)
    return system, state, elements


def test_udot_equals_the_builtin_spring_and_damper():
    """-10*q-2*qdot on the Universal's second coordinate gives the u̇ of a
    MobilityLinearSpring (k = 10) and MobilityLinearDamper (c = 2) there, and differs
    from the u̇ without it."""
    _, expected, _ = chain(lambda forces, b: [
        kt.Force.MobilityLinearSpring(forces, b, 1, 10.0, 0.0),
        kt.Force.MobilityLinearDamper(forces, b, 1, 2.0)])
    _, got, (element,) = chain(lambda forces, b: [
        kt.Force.ExpressionBasedCoordinateForce(forces, b, 1, "-10*q-2*qdot")])
    _, free, _ = chain(lambda forces, b: [])
    np.testing.assert_allclose(got.get_u_dot(), expected.get_u_dot(), rtol=1e-12, atol=1e-12)
    assert np.max(np.abs(got.get_u_dot() - free.get_u_dot())) > 1.0
    assert element.get_expression() == "-10*q-2*qdot"


def test_element_force_and_energy():
    """calc_force adds the expression at the coordinate's q and u to that u only; the
    potential energy is 0, as OpenSim reports for this force."""
    system, state, (element,) = chain(lambda forces, b: [
        kt.Force.ExpressionBasedCoordinateForce(
            forces, b, 0, "-5*sin(q)-0.3*qdot^3+step(q-0.1)*2")])
    f = np.zeros(3)
    F = np.zeros((3, 6))
    element.calc_force(state, F, np.zeros((0, 3)), f)
    q, u = 0.3, -0.6
    assert f.tolist() == [0.0, pytest.approx(-5 * math.sin(q) - 0.3 * u ** 3 + 2, rel=1e-15),
                          0.0]
    assert not F.any()
    assert element.calc_potential_energy(state) == 0.0
    gravity_only = system.calc_potential_energy(state)
    element.disable(state)
    system.realize(state, kt.Stage.ACCELERATION)
    assert system.calc_potential_energy(state) == gravity_only


@pytest.mark.parametrize("expression, where, says", [
    ("-10*x-2*qdot", "character 5", "unknown variable 'x'; the variables are q (the "
                                    "coordinate, rad or m) and qdot"),
    ("foo(q)", "character 1", "unknown function 'foo'; the functions are sqrt, exp, log"),
    ("__import__('os')", "character 1", "unknown function '__import__'"),
    ("sin(q,qdot)", "character 1", "sin takes 1 argument, not 2; write sin(x)"),
    ("max(q)", "character 1", "max takes 2 arguments, not 1; write max(a, b)"),
    ("2*(q+1", "character 3", "the '(' here is not closed; add a ')'"),
    ("2*q)", "character 4", "unexpected ')' after a complete expression"),
    ("2q", "character 2", "join the parts with an operator (2*q, not 2q)"),
    ("+q", "character 1", "drop it (there is no unary plus)"),
    ("q**2", "character 2", "write powers with '^' (q^2)"),
    ("q*", "character 3", "it ends where a number, q, qdot, a function or '(' should follow"),
    ("1e", "character 1", "'1e' is not a number; write one such as 2, 0.5, .5 or 1e-3"),
    ("1e999*q", "character 1", "too large for a float"),
    ("q=3", "character 2", "write subexpressions as 'expression; name=definition'"),
    ("a*b; b=2; a=b+1", "character 13", "'b' is defined after ';' but to the left"),
])
def test_bad_expressions_say_where_and_what_to_write(expression, where, says):
    with pytest.raises(InvalidArgumentError) as error:
        compile_expression(expression, WHERE)
    message = str(error.value)
    assert message.startswith(f"{WHERE}: in the expression {expression!r} at {where}: ")
    assert says in message


def test_the_element_names_itself_and_refuses_what_does_not_fit():
    def build(expression, **name):
        return chain(lambda forces, b: [
            kt.Force.ExpressionBasedCoordinateForce(forces, b, 0, expression, **name)])

    with pytest.raises(InvalidArgumentError, match=r"^Force.ExpressionBasedCoordinateForce "
                                                   r"'knee': in the expression 'q\+y'"):
        build("q+y", name="knee")
    with pytest.raises(InvalidArgumentError, match="is empty; write the generalized force"):
        build("  ")
    with pytest.raises(InvalidArgumentError, match="must be a str"):
        build(3.0)
    long = "+".join(["q"] * (MAX_STEPS // 2 + 1))
    with pytest.raises(InvalidArgumentError, match=f"more than the {MAX_STEPS} kinetree "
                                                   "allows; shorten it"):
        build(long)
    build("+".join(["q"] * (MAX_STEPS // 2)))                 # 255 steps fit
    with pytest.raises(InvalidArgumentError, match="nests more than 100 levels"):
        build("(" * 101 + "q" + ")" * 101)
    with pytest.raises(InvalidArgumentError, match="coordinate 2 is out of range"):
        chain(lambda forces, b: [kt.Force.ExpressionBasedCoordinateForce(forces, b, 2, "q")])


PENDULUM = Path(__file__).resolve().parents[2] / "models" / "opensim" / "double_pendulum.osim"


def with_forces(tmp_path, forces: str) -> Path:
    """The bundled double pendulum with ``forces`` as its ForceSet's objects."""
    text = re.sub(r"<ForceSet name=\"forceset\">\s*<objects>.*?</objects>",
                  f'<ForceSet name="forceset"><objects>{forces}</objects>',
                  PENDULUM.read_text(), count=1, flags=re.S)
    path = tmp_path / "pendulum.osim"
    path.write_text(text)
    return path


@pytest.mark.filterwarnings("ignore:load_osim.*mesh file")      # the pendulum's meshes
def test_load_osim_builds_it_by_coordinate_and_refuses_a_bad_expression(tmp_path):
    """The loader builds each element on its coordinate with the file's text (OpenSim's
    default '0.0' where there is none); a bad expression stops the load naming the
    element and the character."""
    good = with_forces(tmp_path, """
        <ExpressionBasedCoordinateForce name="hip"><coordinate>q2</coordinate>
            <expression>-10*q-2*qdot</expression></ExpressionBasedCoordinateForce>
        <ExpressionBasedCoordinateForce name="none"><coordinate>q1</coordinate>
            </ExpressionBasedCoordinateForce>""")
    model = kt.load_osim(good)
    assert model.skipped == []
    (hip,), (none,) = model.force_elements["hip"], model.force_elements["none"]
    assert hip.get_expression() == "-10*q-2*qdot" and none.get_expression() == "0.0"
    assert hip._mobod is model.coordinates["q2"].mobilized_body
    bad = with_forces(tmp_path, """
        <ExpressionBasedCoordinateForce name="hip"><coordinate>q2</coordinate>
            <expression>-10*q-2*speed</expression></ExpressionBasedCoordinateForce>""")
    with pytest.raises(InvalidArgumentError, match=r"^Force.ExpressionBasedCoordinateForce "
                       r"'hip': in the expression '-10\*q-2\*speed' at character 9: unknown "
                       r"variable 'speed'; the variables are q"):
        kt.load_osim(bad)

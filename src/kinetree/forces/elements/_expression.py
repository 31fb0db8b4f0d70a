"""Expressions in q and qdot, as OpenSim's ExpressionBasedCoordinateForce writes them (in
the syntax of Lepton, the expression library OpenSim uses), compiled once in Python into a
postfix program that a compiled stack machine evaluates.

A file from others must never execute code, so the text is never given to ``eval``,
``exec`` or Python's parser: :func:`compile_expression` reads it with a hand-written
tokenizer and a precedence-climbing parser that follows Lepton's ``Parser.cpp`` rule for
rule, and writes a program of numbers only. The grammar, as Lepton reads it:

- spaces are removed first (OpenSim removes every whitespace character before Lepton
  parses), so ``2 3`` reads ``23`` and ``q dot`` reads ``qdot``;
- numbers ``3``, ``0.5``, ``.5``, ``1.``, ``1e-3``, ``2.5E+4``;
- the variables ``q`` (the coordinate's value) and ``qdot`` (its speed u);
- binary ``+ -`` (lowest), ``* /``, and ``^`` (highest, right-associative: ``2^3^2`` is
  2^9), the others left-associative;
- unary minus, which takes everything up to the next ``+ - * /``: ``-q^2`` is -(q²),
  ``-q*2`` is (-q)·2, and ``2^-q*3`` is 2^(-q)·3. There is no unary plus;
- parentheses, and the functions ``FUNCTIONS`` (one argument each, ``min`` and ``max``
  two, separated by commas);
- subexpressions after semicolons, ``a*q; a=3``: each ``name=expression`` defines a name
  for the expressions to its left; they are read from the last one back, so a
  definition may use the names defined after it, never before.

The program is a float array ``[n, depth, op_0, c_0, ..., op_(n-1), c_(n-1)]``: n
instructions of an opcode and a constant (used by ``CONST`` only), and the largest stack
depth they reach. :func:`evaluate` runs it.
"""

from __future__ import annotations

import math

import numba
import numpy as np
from numba.core import cgutils, types
from numba.extending import intrinsic
from numba.np.arrayobj import make_array, populate_array

from kinetree.errors import InvalidArgumentError
from kinetree.jit import helper

MAX_STEPS = 256
"""Most instructions a program may have: each number, variable, operator and function is
one (a name defined after a semicolon counts once per use). A few dozen tokens fit with
room to spare; a longer law belongs in a ``Force.Custom``."""

MAX_NESTING = 100
"""Most levels of parentheses, function calls and operators nested in one another."""

CONST, Q, QDOT, NEG, ADD, SUB, MUL, DIV, POW = range(9)

FUNCTIONS = {        # name: (opcode, arguments); Lepton's, and OpenMM's floor and ceil
    "sqrt": (9, 1), "exp": (10, 1), "log": (11, 1), "sin": (12, 1), "cos": (13, 1),
    "sec": (14, 1), "csc": (15, 1), "tan": (16, 1), "cot": (17, 1), "asin": (18, 1),
    "acos": (19, 1), "atan": (20, 1), "sinh": (21, 1), "cosh": (22, 1), "tanh": (23, 1),
    "erf": (24, 1), "erfc": (25, 1), "step": (26, 1), "delta": (27, 1), "square": (28, 1),
    "cube": (29, 1), "recip": (30, 1), "abs": (31, 1), "floor": (32, 1), "ceil": (33, 1),
    "min": (34, 2), "max": (35, 2),
}
"""The functions an expression may call: ``step(x)`` is 1 for x >= 0 else 0, ``delta(x)``
1 for x == 0 else 0, ``recip(x)`` 1/x, ``square``/``cube`` x²/x³, ``sec csc cot`` 1/cos,
1/sin, 1/tan, ``log`` the natural logarithm; trigonometric arguments in rad. OpenSim 4.6's
Lepton has all but ``floor`` and ``ceil`` (newer Lepton's, which OpenSim refuses)."""

_OPERATORS = {"+": (ADD, 0), "-": (SUB, 0), "*": (MUL, 1), "/": (DIV, 1), "^": (POW, 3)}
"""Binary operator: (opcode, precedence), as Lepton's; ``^`` alone is right-associative."""

_NEGATE_PRECEDENCE = 2
"""Unary minus reads its operand at this precedence: ``^`` binds tighter, ``* /`` not."""

_VARIABLES = "the variables are q (the coordinate, rad or m) and qdot (its speed, rad/s or m/s)"

_ARITY = {code: arity for code, arity in FUNCTIONS.values()}


class _Token:
    __slots__ = ("kind", "text", "at")

    def __init__(self, kind: str, text: str, at: int):
        self.kind, self.text, self.at = kind, text, at     # at: index in the original text


class _Parser:
    """Lepton's parser on one expression's tokens, emitting postfix instructions."""

    def __init__(self, where: str, source: str, tokens: list[_Token], names: dict,
                 later: set = frozenset()):
        self.where, self.source, self.tokens, self.names = where, source, tokens, names
        self.later = later          # the names defined after ';' not yet read
        self.pos = 0
        self.nesting = 0
        self.code: list[tuple[int, float]] = []

    def fail(self, message: str, at: int | None = None):
        raise InvalidArgumentError(f"{self.where}: {_quoted(self.source, at)}: {message}")

    def whole(self) -> list[tuple[int, float]]:
        """The instructions of the whole token list."""
        self.expression(0)
        if self.pos < len(self.tokens):
            t = self.tokens[self.pos]
            hint = ("a ',' separates the arguments of min and max only" if t.text == ","
                    else "a ')' has no '(' to close" if t.text == ")"
                    else "join the parts with an operator (2*q, not 2q)")
            self.fail(f"unexpected {t.text!r} after a complete expression; {hint}.", t.at)
        return self.code

    def expression(self, precedence: int) -> None:
        """One operand, then the binary operators of ``precedence`` or higher after it
        (Lepton's ``parsePrecedence``)."""
        self.nesting += 1
        if self.nesting > MAX_NESTING:
            self.fail(f"it nests more than {MAX_NESTING} levels deep; simplify it.")
        self.operand()
        while self.pos < len(self.tokens) and self.tokens[self.pos].kind == "operator":
            op, op_precedence = _OPERATORS[self.tokens[self.pos].text]
            if op_precedence < precedence:
                break
            self.pos += 1
            self.expression(op_precedence if op == POW else op_precedence + 1)
            self.code.append((op, 0.0))
        self.nesting -= 1

    def operand(self) -> None:
        if self.pos == len(self.tokens):
            end = self.tokens[-1].at + len(self.tokens[-1].text) if self.tokens else None
            self.fail("it ends where a number, q, qdot, a function or '(' should follow; "
                      "complete it.", end)
        t = self.tokens[self.pos]
        self.pos += 1
        if t.kind == "number":
            self.code.append((CONST, self.number(t)))
        elif t.kind == "name":
            if t.text in self.names:
                self.code.extend(self.names[t.text])
            elif t.text == "q":
                self.code.append((Q, 0.0))
            elif t.text == "qdot":
                self.code.append((QDOT, 0.0))
            else:
                later = (f"; {t.text!r} is defined after ';' but to the left of this "
                         "definition: a definition may use only the names defined to its "
                         "right") if t.text in self.later else ""
                self.fail(f"unknown variable {t.text!r}; {_VARIABLES}{later}.", t.at)
        elif t.kind == "(":
            self.expression(0)
            self.close(t, "(")
        elif t.kind == "function":
            self.call(t)
        elif t.kind == "operator" and t.text == "-":
            self.expression(_NEGATE_PRECEDENCE)
            self.code.append((NEG, 0.0))
        elif t.text == "+":
            self.fail("a '+' with nothing before it; drop it (there is no unary plus).", t.at)
        elif t.text == "*" and self.pos > 1 and self.tokens[self.pos - 2].text == "*":
            self.fail("'**' is not an operator; write powers with '^' (q^2).", t.at - 1)
        else:
            self.fail(f"unexpected {t.text!r} where a number, q, qdot, a function or '(' "
                      "should be.", t.at)

    def close(self, opened: _Token, what: str) -> None:
        if self.pos == len(self.tokens) or self.tokens[self.pos].kind != ")":
            self.fail(f"the {what!r} here is not closed; add a ')'.", opened.at)
        self.pos += 1

    def call(self, t: _Token) -> None:
        name = t.text[:-1]
        if name not in FUNCTIONS:
            self.fail(f"unknown function {name!r}; the functions are "
                      f"{', '.join(FUNCTIONS)}.", t.at)
        opcode, arity = FUNCTIONS[name]
        usage = f"{name}(x)" if arity == 1 else f"{name}(a, b)"
        if self.pos < len(self.tokens) and self.tokens[self.pos].kind == ")":
            self.fail(f"{name} needs {arity} argument{'s' if arity > 1 else ''}; write "
                      f"{usage}.", t.at)
        count = 0
        while True:
            self.expression(0)
            count += 1
            if self.pos < len(self.tokens) and self.tokens[self.pos].kind == ",":
                self.pos += 1
                continue
            break
        self.close(t, t.text)
        if count != arity:
            self.fail(f"{name} takes {arity} argument{'s' if arity > 1 else ''}, not "
                      f"{count}; write {usage}.", t.at)
        self.code.append((opcode, 0.0))

    def number(self, t: _Token) -> float:
        try:
            value = float(t.text)
        except ValueError:
            self.fail(f"{t.text!r} is not a number; write one such as 2, 0.5, .5 or 1e-3.",
                      t.at)
        if not math.isfinite(value):
            self.fail(f"{t.text!r} is too large for a float (over 1.8e308).", t.at)
        return value


def _short(source: str) -> str:
    """``source`` quoted, cut short past 80 characters."""
    return repr(source) if len(source) <= 80 else repr(source[:77]) + "..."


def _quoted(source: str, at: int | None = None) -> str:
    """'in the expression '...' at character n'."""
    return f"in the expression {_short(source)}" + (
        "" if at is None else f" at character {at + 1}")


def _tokens(where: str, source: str, text: str, at: list[int]) -> list[_Token]:
    """Lepton's tokens of ``text`` (no whitespace in it), each with its index in
    ``source`` (``at[i]`` is that of ``text[i]``)."""
    tokens, i = [], 0
    while i < len(text):
        c, start = text[i], i
        if c in "(),":
            kind, i = c, i + 1
        elif c in _OPERATORS:
            kind, i = "operator", i + 1
        elif c == "." or c.isdigit():
            decimal, exponent = c == ".", False
            i += 1
            while i < len(text):
                c = text[i]
                if c.isdigit():
                    i += 1
                elif c == "." and not decimal:
                    decimal, i = True, i + 1
                elif c in "eE" and not exponent:
                    exponent = True
                    i += 2 if i + 1 < len(text) and text[i + 1] in "+-" else 1
                else:
                    break
            kind = "number"
        elif c == ";" or c == "=":
            raise InvalidArgumentError(
                f"{where}: {_quoted(source, at[i])}: unexpected {c!r}; write subexpressions "
                "as 'expression; name=definition'.")
        else:
            while i < len(text) and text[i] not in "(),;=" and text[i] not in _OPERATORS:
                i += 1
            kind = "name"
            if i < len(text) and text[i] == "(":
                kind, i = "function", i + 1
        tokens.append(_Token(kind, text[start:i], at[start]))
    return tokens


def _stack_depth(code: list[tuple[int, float]]) -> int:
    """The largest number of values ``code`` holds on its stack at once."""
    depth = top = 0
    for op, _ in code:
        if op in (CONST, Q, QDOT):
            top += 1
        elif op in (ADD, SUB, MUL, DIV, POW) or _ARITY.get(op) == 2:
            top -= 1
        depth = max(depth, top)
    return depth


def compile_expression(expression: str, where: str) -> np.ndarray:
    """The program (module docstring) of ``expression``, a Lepton expression in q and qdot;
    raises InvalidArgumentError naming ``where``, the character and the fix when it is not
    one."""
    if not isinstance(expression, str):
        raise InvalidArgumentError(
            f"{where}: the expression must be a str such as '-10*q-2*qdot', got "
            f"{type(expression).__name__}.")
    kept = [(c, k) for k, c in enumerate(expression) if not c.isspace()]
    text = "".join(c for c, _ in kept)
    at = [k for _, k in kept] + [len(expression)]     # index in expression of text[i]
    parts, start = [], 0                  # (first index, text) of each ';'-separated part
    for k, c in enumerate(text + ";"):
        if c == ";":
            parts.append((start, text[start:k]))
            start = k + 1
    definitions = []          # (name, where in text its part begins, its body, its end)
    for begin, part in parts[1:]:
        if not part:
            continue
        name, equals, _ = part.partition("=")
        if not (equals and name and (name[0].isalpha() or name[0] == "_")
                and all(ch.isalnum() or ch == "_" for ch in name)):
            raise InvalidArgumentError(
                f"{where}: {_quoted(expression, at[begin])}: the subexpression {part!r} "
                "does not start with a name and '='; write 'expression; name=definition', "
                "e.g. 'k*q; k=10'.")
        definitions.append((name, begin, begin + len(name) + 1, begin + len(part)))
    names: dict[str, list] = {}
    for k in range(len(definitions) - 1, -1, -1):      # Lepton reads them last first
        name, begin, body, end = definitions[k]
        parser = _Parser(where, expression, _tokens(where, expression, text[body:end],
                                                    at[body:]), names,
                         {d[0] for d in definitions[:k]})
        if not parser.tokens:
            parser.fail(f"the definition of {name!r} is empty.", at[begin])
        names[name] = parser.whole()
    parser = _Parser(where, expression, _tokens(where, expression, parts[0][1], at), names)
    if not parser.tokens:
        raise InvalidArgumentError(
            f"{where}: the expression {_short(expression)} is empty; write the generalized "
            f"force in q and qdot, e.g. '-10*q-2*qdot' ({_VARIABLES}).")
    code = parser.whole()
    if len(code) > MAX_STEPS:
        raise InvalidArgumentError(
            f"{where}: the expression {_short(expression)} compiles to {len(code)} steps, more "
            f"than the {MAX_STEPS} kinetree allows; shorten it (a subexpression after ';' "
            "counts once per use), or write the force as a Force.Custom.")
    program = np.zeros(2 + 2 * len(code))
    program[0], program[1] = len(code), _stack_depth(code)
    program[2:] = np.asarray(code, dtype=float).ravel()
    return program


@intrinsic
def _stack(typingctx):
    """A float64 array of MAX_STEPS entries on the machine stack of the calling compiled
    function: the evaluation stack, with no heap allocation (the realization runs
    without numba's memory management)."""
    signature = types.float64[::1]()

    def codegen(context, builder, sig, args):
        data = cgutils.alloca_once(builder, context.get_value_type(types.float64),
                                   size=MAX_STEPS)
        array = make_array(sig.return_type)(context, builder)
        itemsize = context.get_constant(types.intp, 8)
        populate_array(array, data=data, shape=[context.get_constant(types.intp, MAX_STEPS)],
                       strides=[itemsize], itemsize=itemsize, meminfo=None)
        return array._getvalue()

    return signature, codegen


@numba.njit(cache=True, error_model="numpy")
def evaluate(program, q, qdot):
    """The value of ``program`` (module docstring) at q and qdot, as Lepton computes each
    operation: IEEE arithmetic (1/0 is inf, log(-1) NaN, never an exception), ``^`` C's
    pow, min(a, b) = b if b < a else a and max(a, b) = b if a < b else a (C++'s
    std::min and std::max)."""
    n = int(program[0])
    stack = _stack()       # the program's depth is at most its MAX_STEPS instructions
    top = -1
    for k in range(n):
        op = int(program[2 + 2 * k])
        if op == CONST:
            top += 1
            stack[top] = program[3 + 2 * k]
        elif op == Q:
            top += 1
            stack[top] = q
        elif op == QDOT:
            top += 1
            stack[top] = qdot
        elif op <= POW:
            if op == NEG:
                stack[top] = -stack[top]
                continue
            b = stack[top]
            top -= 1
            a = stack[top]
            if op == ADD:
                stack[top] = a + b
            elif op == SUB:
                stack[top] = a - b
            elif op == MUL:
                stack[top] = a * b
            elif op == DIV:
                stack[top] = a / b
            else:
                stack[top] = a ** b
        elif op >= 34:
            b = stack[top]
            top -= 1
            a = stack[top]
            if op == 34:
                stack[top] = b if b < a else a
            else:
                stack[top] = b if a < b else a
        else:
            stack[top] = _function(op, stack[top])
    return stack[0]


@helper(error_model="numpy")
def _function(op, x):
    """Function ``op`` (FUNCTIONS' opcodes 9..33) of x."""
    if op == 9:
        return math.sqrt(x)
    if op == 10:
        return math.exp(x)
    if op == 11:
        return math.log(x)
    if op == 12:
        return math.sin(x)
    if op == 13:
        return math.cos(x)
    if op == 14:
        return 1.0 / math.cos(x)
    if op == 15:
        return 1.0 / math.sin(x)
    if op == 16:
        return math.tan(x)
    if op == 17:
        return 1.0 / math.tan(x)
    if op == 18:
        return math.asin(x)
    if op == 19:
        return math.acos(x)
    if op == 20:
        return math.atan(x)
    if op == 21:
        return math.sinh(x)
    if op == 22:
        return math.cosh(x)
    if op == 23:
        return math.tanh(x)
    if op == 24:
        return math.erf(x)
    if op == 25:
        return math.erfc(x)
    if op == 26:
        return 1.0 if x >= 0.0 else 0.0
    if op == 27:
        return 1.0 if x == 0.0 else 0.0
    if op == 28:
        return x * x
    if op == 29:
        return x * x * x
    if op == 30:
        return 1.0 / x
    if op == 31:
        return abs(x)
    if op == 32:
        return np.floor(x)
    return np.ceil(x)

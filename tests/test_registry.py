"""Type codes: unique within each family; every element module defines what its family
requires, a function misspelled or missing is refused when the kind is registered, and
every function of every kind compiles, by itself, for its switch's declared signature."""

import copy
import importlib
import pickle
import sys
import types

import numpy as np
import pytest

import kinetree as kt
import kinetree.forces.elements.dispatch as force_dispatch
from kinetree.engine.forward import realize_stages
from kinetree.engine.kinds import Kinds, address_table, kind_module
from kinetree.jit import helper
from kinetree.registry import (
    ACTUATORS,
    CONSTRAINTS,
    CONTACT,
    FAMILIES,
    FORCES,
    FUNCTIONS,
    INLINE,
    MOBILIZERS,
    WRAPS,
)


@pytest.mark.parametrize("registry", [MOBILIZERS, FORCES, CONTACT, CONSTRAINTS, ACTUATORS,
                                      WRAPS])
def test_codes_are_unique(registry):
    assert len(set(registry.values())) == len(registry)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_every_function_of_every_kind_compiles_for_its_declared_signature(family):
    """The table of every kind of the family has an address for each function the kind's
    module defines (compiled by itself), and none for an inline kind, which the switches
    call directly."""
    _, registry = FAMILIES[family]
    table = address_table(family, registry.values())
    for name, code in registry.items():
        module = kind_module(family, name)
        for row, function in enumerate(FUNCTIONS[family]):
            defined = getattr(module, function, None) is not None
            if name in INLINE.get(family, ()):
                assert table[row, code] == 0
            else:
                assert (table[row, code] != 0) == defined, f"{name}.{function}"
    assert not table.flags.writeable


def test_the_contact_parts_define_their_step():
    search = [n for n in CONTACT
              if hasattr(importlib.import_module(f"kinetree.contact.{n}"), "search_contacts")]
    forces = [n for n in CONTACT
              if hasattr(importlib.import_module(f"kinetree.contact.{n}"), "contact_forces")]
    assert search == ["collision"]
    assert forces == ["compliant", "hunt_crossley_force", "elastic_foundation_force"]


@helper
def _calc_misspelled(fi, ff, tree, cache, q, u, body_forces, mobility_forces):
    return 0.0


def test_a_kind_missing_its_function_is_refused_at_registration(monkeypatch):
    """A force kind whose module spells ``calc`` otherwise is an error naming the module
    and what it must define, not a kind whose forces are silently zero; so is a function
    that is not compiled."""
    module = types.ModuleType("kinetree.forces.elements.misspelled")
    module.calcc = _calc_misspelled
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setitem(FORCES, "misspelled", 99)
    with pytest.raises(TypeError, match=r"misspelled is registered as a forces kind but "
                                        r"does not define \(calc\)"):
        address_table("forces", [99])
    module.calc = _calc_misspelled.py_func
    with pytest.raises(TypeError, match=r"misspelled.calc is not compiled"):
        kind_module("forces", "misspelled")


def test_kinds_compare_and_pickle_by_value():
    """A copy or a pickled Kinds is the same set of codes (a State carrying one must
    survive both), and makes its own table of addresses in the process that uses it."""
    kinds = Kinds("mobilizers", [MOBILIZERS["line_orientation"], MOBILIZERS["pin"]])
    assert kinds.codes == (MOBILIZERS["pin"], MOBILIZERS["line_orientation"])
    table = kinds.table
    again = pickle.loads(pickle.dumps(kinds))
    assert again == kinds == copy.deepcopy(kinds)
    assert again._table is None
    np.testing.assert_array_equal(again.table, table)
    assert kinds != Kinds("mobilizers", [MOBILIZERS["pin"]])


def test_kinds_refuse_an_unknown_code():
    with pytest.raises(ValueError, match="no mobilizers kind has the code 99"):
        Kinds("mobilizers", [1, 99])


def pendulum(damping, torque=0.0):
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -9.81, 0])
    body = kt.Body.Rigid(kt.MassProperties(1.0, [1, 0, 0], kt.Inertia(2.0)))
    pin = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), body, kt.Transform())
    if damping:
        kt.Force.MobilityLinearDamper(forces, pin, 0, damping)
    if torque:
        kt.Force.ConstantTorque(forces, pin, [0, 0, torque])
    state = system.realize_topology()
    pin.set_one_q(state, 0, 0.3)
    pin.set_one_u(state, 0, 1.0)
    return system, forces, state


def test_models_of_any_kinds_share_the_one_compiled_realization():
    """A pendulum with gravity, with a damper (inline kinds) and with a ConstantTorque
    (called through its address) run on one compiled realization; each gives the analytic
    u̇ = (-m g x - c u + τ) / I, with I the inertia about the pin (2 kg m²), the 1 kg mass at
    x = cos 0.3 m, u = 1 rad/s."""
    for damping, torque in ((0.0, 0.0), (0.5, 0.0), (0.0, 0.7), (0.5, 0.7)):
        system, forces, state = pendulum(damping, torque)
        system.realize(state, kt.Stage.ACCELERATION)
        expected = (-9.81 * np.cos(0.3) - damping * 1.0 + torque) / 2.0
        assert state.get_u_dot()[0] == pytest.approx(expected, rel=1e-13)
    assert forces._kinds.codes == tuple(sorted(
        FORCES[k] for k in ("uniform_gravity", "mobility_linear_damper", "constant_torque")))
    assert len(realize_stages.overloads) == 1


def test_a_code_without_a_function_gives_the_default():
    """The force switch returns NaN potential energy for a code whose kind the table does
    not hold (the pendulum's are gravity's alone)."""
    system, forces, state = pendulum(0.0)
    system.realize(state, kt.Stage.VELOCITY)
    matter = system.get_matter_subsystem()
    d = matter.get_tree_data(state, kt.Stage.VELOCITY, "test")
    rare = FORCES["linear_bushing"]
    assert rare not in forces._kinds.codes
    pe = np.zeros(1)
    force_dispatch.calc_force_elements(
        forces._kinds, np.array([0]), np.array([[rare, 1, 1, 0, 0, -1, -1, -1]]),
        np.zeros(40), d.tree_i, d.tree_f, d.kinds, d.buf, d.status, state.get_q(),
        state.get_u(), np.zeros((2, 6)), np.zeros(1), pe, np.zeros(1), np.zeros(0),
        np.zeros(0), np.zeros(0), np.zeros(0))
    assert np.isnan(pe[0])


def test_constraints_run_through_their_addresses():
    """A model without constraints has none in its table; a Rod's functions are called
    through their addresses. The Rod holds the pendulum's mass center at its own distance
    from the pin, which the pin already does: its row of G is zero, so the solve finds
    rank 0, λ = 0 and u̇ unchanged."""
    system, forces, state = pendulum(0.0)
    system.realize(state, kt.Stage.INSTANCE)
    assert system.get_matter_subsystem()._constraint_data(state).kinds.codes == ()
    system, forces, state = pendulum(0.0)
    matter = system.get_matter_subsystem()
    pin = matter.get_mobilized_body(1)
    rod = kt.Constraint.Rod(matter.Ground(), [0, 0, 0], pin, [1, 0, 0], 1.0)
    state = system.realize_topology()
    pin.set_one_q(state, 0, 0.3)
    pin.set_one_u(state, 0, 1.0)
    system.realize(state, kt.Stage.ACCELERATION)
    kinds = matter._constraint_data(state).kinds
    assert kinds.codes == (CONSTRAINTS["rod"],)
    assert kinds.table[FUNCTIONS["constraints"].index("forces"), CONSTRAINTS["rod"]] != 0
    assert state.get_u_dot()[0] == pytest.approx(-9.81 * np.cos(0.3) / 2.0, rel=1e-13)
    assert rod.get_rod_tension(state) == 0.0
    assert abs(rod.get_acceleration_error(state)) < 1e-14

"""Type codes: unique within each family, and every element module defines each function
its family's compiled switches call (a kind missing one would not compile, or would be
silently skipped by ``each``)."""

import copy
import importlib
import pickle

import numpy as np
import pytest

import kinetree as kt
import kinetree.forces.elements.dispatch as force_dispatch
from kinetree.engine.kinds import Kinds
from kinetree.registry import COMMON, CONSTRAINTS, CONTACT, FAMILIES, FORCES, MOBILIZERS

FUNCTIONS = {
    "mobilizers": ("x_fm", "h_fm", "hdot_u", "n_mult", "n_inv_mult", "ndot_u"),
    "forces": ("calc",),
    "constraints": ("acceleration_errors", "forces"),   # and the lower levels' if it has them
}


@pytest.mark.parametrize("registry", [MOBILIZERS, FORCES, CONTACT, CONSTRAINTS])
def test_codes_are_unique(registry):
    assert len(set(registry.values())) == len(registry)


@pytest.mark.parametrize("family", sorted(FUNCTIONS))
def test_every_module_defines_what_its_switches_call(family):
    package, registry = FAMILIES[family]
    for name in registry:
        module = importlib.import_module(f"{package}.{name}")
        coordinates = family == "constraints" and hasattr(module, "coordinate_forces")
        for function in FUNCTIONS[family]:
            # A constraint on coordinates has the coordinate_* form of each instead.
            function = f"coordinate_{function}" if coordinates else function
            assert hasattr(getattr(module, function, None), "py_func"), \
                f"{module.__name__} has no compiled {function}"


def test_the_contact_parts_define_their_step():
    search = [n for n in CONTACT
              if hasattr(importlib.import_module(f"kinetree.contact.{n}"), "search_contacts")]
    forces = [n for n in CONTACT
              if hasattr(importlib.import_module(f"kinetree.contact.{n}"), "contact_forces")]
    assert search == ["collision"]
    assert forces == ["compliant", "hunt_crossley_force", "elastic_foundation_force"]


def test_kinds_compare_and_pickle_by_value():
    """A rare mobilizer rounds the set up to every type; a copy or a pickled Kinds is
    the same set (a State carrying one must survive both)."""
    kinds = Kinds("mobilizers", [MOBILIZERS["line_orientation"]])
    assert kinds.codes == tuple(sorted(MOBILIZERS.values()))
    assert pickle.loads(pickle.dumps(kinds)) == kinds == copy.deepcopy(kinds)
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


def test_models_of_common_kinds_share_a_compiled_version():
    """A pendulum with gravity, and with a damper too, is compiled for the common kinds
    (the same version); both give the analytic u̇ = (-m g x - c u) / I, with I the
    inertia about the pin (2 kg m²), the 1 kg mass at x = cos 0.3 m, u = 1 rad/s."""
    common = Kinds("forces", [FORCES[name] for name in COMMON["forces"]])
    for damping in (0.0, 0.5):
        system, forces, state = pendulum(damping)
        system.realize(state, kt.Stage.ACCELERATION)
        expected = (-9.81 * np.cos(0.3) - damping * 1.0) / 2.0
        assert state.get_u_dot()[0] == pytest.approx(expected, rel=1e-13)
        assert forces._kinds == common
        assert system.get_matter_subsystem().get_tree_data(state).kinds.codes == tuple(
            sorted(MOBILIZERS[name] for name in COMMON["mobilizers"]))


def test_a_rare_kind_compiles_its_whole_family():
    """A ConstantTorque (not a common kind) rounds the forces up to every kind; the torque
    adds τ / I to the pendulum's u̇. Contact parts are never rounded up: each one runs."""
    system, forces, state = pendulum(0.0, torque=0.7)
    assert forces._kinds.codes == tuple(sorted(FORCES.values()))
    system.realize(state, kt.Stage.ACCELERATION)
    expected = (-9.81 * np.cos(0.3) + 0.7) / 2.0
    assert state.get_u_dot()[0] == pytest.approx(expected, rel=1e-13)
    assert Kinds("contact", [CONTACT["collision"]]).codes == (CONTACT["collision"],)


def test_an_unknown_force_code_is_reported_not_skipped():
    """The switch returns NaN potential energy for a code not among its kinds (the
    pendulum's are the common ones)."""
    system, forces, state = pendulum(0.0)
    system.realize(state, kt.Stage.VELOCITY)
    matter = system.get_matter_subsystem()
    d = matter.get_tree_data(state, kt.Stage.VELOCITY, "test")
    rare = FORCES["linear_bushing"]
    assert rare not in forces._kinds.codes
    pe = np.zeros(1)
    force_dispatch.calc_force_elements(
        forces._kinds, np.array([0]), np.array([[rare, 1, 1, 0, 0]]), np.zeros(40),
        d.tree_i, d.tree_f, d.kinds, d.buf, d.status, state.get_q(), state.get_u(),
        np.zeros((2, 6)), np.zeros(1), pe)
    assert np.isnan(pe[0])


def test_constraints_compile_all_or_none():
    """A model without constraints compiles no constraint code; one Rod compiles every
    constraint kind, so all constrained models share a version. The Rod holds the
    pendulum's mass center at its own distance from the pin, which the pin already does:
    its row of G is zero, so the solve finds rank 0, λ = 0 and u̇ unchanged."""
    assert Kinds("constraints").codes == ()
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
    assert matter._constraint_data(state).kinds.codes == tuple(sorted(CONSTRAINTS.values()))
    assert state.get_u_dot()[0] == pytest.approx(-9.81 * np.cos(0.3) / 2.0, rel=1e-13)
    assert rod.get_rod_tension(state) == 0.0
    assert abs(rod.get_acceleration_error(state)) < 1e-14

"""Type codes: unique within each element kind, and every compiled dispatch has a branch
for every code of its kind (an element type missing from one would be silently skipped)."""

import ast
import inspect

import numpy as np
import pytest

import kinetree.forces.elements.dispatch as force_dispatch
import kinetree.multibody.kernels.hinge as hinge
from kinetree.registry import FORCES, MOBILIZERS


def dispatched_codes(module, function_name):
    """The codes a dispatch function compares against, from its source: each
    ``code == <module>.CODE`` names the module whose CODE it is."""
    tree = ast.parse(inspect.getsource(getattr(module, function_name)))
    codes = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and isinstance(node.comparators[0], ast.Attribute):
            attribute = node.comparators[0]
            if attribute.attr == "CODE":
                codes.add(getattr(module, attribute.value.id).CODE)
    return codes


@pytest.mark.parametrize("registry", [MOBILIZERS, FORCES])
def test_codes_are_unique(registry):
    assert len(set(registry.values())) == len(registry)


@pytest.mark.parametrize("function_name", ["x_fm", "h_fm", "hdot_u", "n_mult", "n_inv_mult",
                                           "ndot_u"])
def test_every_mobilizer_dispatch_covers_every_code(function_name):
    assert dispatched_codes(hinge, function_name) == set(MOBILIZERS.values())


def test_the_force_dispatch_covers_every_code():
    assert dispatched_codes(force_dispatch, "force_element") == set(FORCES.values())


def test_an_unknown_force_code_is_reported_not_skipped():
    """The dispatch returns NaN potential energy for a code it does not know."""
    import kinetree as kt
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    kt.MobilizedBody.Pin(matter.Ground(), kt.Body.Rigid(kt.MassProperties(1, [0, 0, 0],
                                                                          kt.Inertia(1))))
    state = system.realize_topology()
    system.realize(state, kt.Stage.VELOCITY)
    d = matter.get_tree_data(state, kt.Stage.VELOCITY, "test")
    unknown = max(FORCES.values()) + 1
    pe = np.zeros(1)
    force_dispatch.calc_force_elements(
        np.array([0]), np.array([[unknown, 1, 1, 0, 0]]), np.zeros(40), d.tree_i, d.tree_f,
        d.buf, d.status, state.get_q(), state.get_u(), np.zeros((2, 6)), np.zeros(1), pe)
    assert np.isnan(pe[0])

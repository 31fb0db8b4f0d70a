"""The compiled force elements against the results of the per-element Python versions they
replaced (stored once in data/force_elements_reference.npz), element by element and
together, on a tree of mixed mobilizers in a random state."""

from pathlib import Path

import numpy as np
import pytest
from support import mixed_tree, random_frame

import kinetree as kt

REFERENCE = Path(__file__).parent / "data" / "force_elements_reference.npz"


def build():
    """(system, matter, forces, elements): every built-in force element on a tree of a
    Pin, a Slider, a Ball, a Free body and a Universal, in a fixed random state."""
    rng = np.random.default_rng(7)
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)

    pin, slider, ball, free, universal = mixed_tree(matter, rng)
    ground = matter.Ground()
    F = kt.Force
    elements = [
        F.UniformGravity(forces, matter, [0.3, -9.81, 0.2], 0.4),
        F.TwoPointLinearSpring(forces, pin, [0.1, 0.2, 0.3], universal, [-0.2, 0.1, 0.0],
                               30.0, 0.5),
        F.TwoPointLinearDamper(forces, ground, [1, 0, 0], ball, [0.1, -0.1, 0.2], 3.0),
        F.TwoPointConstantForce(forces, slider, [0, 0.3, 0], free, [0.2, 0, 0], -4.0),
        F.MobilityLinearSpring(forces, pin, 0, 12.0, 0.3),
        F.MobilityLinearDamper(forces, universal, 1, 0.8),
        F.MobilityConstantForce(forces, slider, 0, 2.5),
        F.MobilityLinearStop(forces, pin, 0, 500.0, 0.7, -0.1, 0.1),
        F.ConstantForce(forces, ball, [0.1, 0.2, -0.1], [1.0, -2.0, 0.5]),
        F.ConstantTorque(forces, free, [0.3, -0.2, 0.1]),
        F.GlobalDamper(forces, matter, 0.05),
        F.LinearBushing(forces, ball, random_frame(rng), universal, random_frame(rng),
                        [10, 20, 30, 400, 500, 600], [1, 2, 3, 4, 5, 6]),
    ]
    state = system.realize_topology()
    state.upd_q()[:] = rng.normal(size=state.get_num_q())
    state.upd_u()[:] = rng.normal(size=state.get_num_u())
    system.project(state)
    return system, matter, forces, elements, state


def results():
    """Every element's (body forces, mobility forces, potential energy), then u̇ and the
    total potential energy with all of them enabled."""
    system, matter, forces, elements, state = build()
    system.realize(state, kt.Stage.DYNAMICS)
    out = {}
    nb, nu = matter.get_num_bodies(), state.get_num_u()
    for k, element in enumerate(elements):
        F_body, f_mob = np.zeros((nb, 6)), np.zeros(nu)
        element.calc_force(state, F_body, None, f_mob)
        out[f"body{k}"], out[f"mobility{k}"] = F_body, f_mob
        out[f"pe{k}"] = np.array(element.calc_potential_energy(state))
    system.realize(state, kt.Stage.ACCELERATION)
    out["udot"] = np.array(state.get_u_dot())
    out["pe"] = np.array(system.calc_potential_energy(state))
    return out


def test_every_element_matches_the_python_version():
    reference = np.load(REFERENCE)
    now = results()
    assert set(now) == set(reference.files)
    for key in reference.files:
        np.testing.assert_allclose(now[key], reference[key], rtol=1e-12, atol=1e-12,
                                   err_msg=key)


@pytest.mark.parametrize("k", range(12))
def test_disabling_one_element_removes_exactly_its_force(k):
    system, matter, forces, elements, state = build()
    system.realize(state, kt.Stage.ACCELERATION)
    udot_all = np.array(state.get_u_dot())
    F_body = np.zeros((matter.get_num_bodies(), 6))
    f_mob = np.zeros(state.get_num_u())
    elements[k].calc_force(state, F_body, None, f_mob)
    elements[k].disable(state)
    system.realize(state, kt.Stage.ACCELERATION)
    # Removing the element's forces changes u̇ by M⁻¹ times its generalized force.
    generalized = f_mob + matter.multiply_by_system_jacobian_transpose(state, F_body)
    np.testing.assert_allclose(udot_all - state.get_u_dot(),
                               matter.multiply_by_m_inv(state, generalized), atol=1e-10)

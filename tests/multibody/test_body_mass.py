"""Mass properties set through a MobilizedBody's own Body (``mobod.upd_body()``) take
effect, as in Simbody: a topological change, after which the dynamics uses them."""

import pytest

import kinetree as kt


def slider_pushed_by_one_newton():
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    body = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(0.1)))
    slider = kt.MobilizedBody.Slider(matter.Ground(), kt.Transform(), body, kt.Transform())
    kt.Force.MobilityConstantForce(forces, slider, 0, 1.0)
    return system, slider


def test_mass_set_through_the_mobilized_bodys_own_body_takes_effect():
    system, slider = slider_pushed_by_one_newton()
    old = system.realize_topology()
    heavy = kt.MassProperties(100.0, [0, 0, 0], kt.Inertia(10.0))
    slider.upd_body().set_default_rigid_body_mass_properties(heavy)
    assert slider.get_body_mass_properties().get_mass() == 100.0
    with pytest.raises(kt.errors.TopologyChangedError):
        system.realize(old, kt.Stage.ACCELERATION)
    state = system.realize_topology()
    system.realize(state, kt.Stage.ACCELERATION)
    assert state.get_u_dot()[0] == pytest.approx(1.0 / 100.0, rel=1e-14)      # a = F / m


def test_a_body_given_something_else_as_mass_properties_is_refused():
    system, slider = slider_pushed_by_one_newton()
    with pytest.raises(kt.errors.InvalidArgumentError, match="expected MassProperties"):
        slider.upd_body().set_default_rigid_body_mass_properties(100.0)

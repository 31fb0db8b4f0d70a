"""load_urdf's ``<collision>`` shapes as contact surfaces (``contact_material``): a box
robot dropped on a floor comes to rest on its collision box, the floor carrying its weight;
a joint's two links never touch; each shape is collided as what it is, where it is."""

import math

import numpy as np
import pytest
from test_urdf import robot_xml, write

import kinetree as kt
from kinetree.errors import InvalidArgumentError

MATERIAL = kt.ContactMaterial(1e6, 5.0, 0.8, 0.6)


def _collision(shape, xyz=(0, 0, 0), rpy=(0, 0, 0)):
    return (f'<collision><origin xyz="{" ".join(map(str, xyz))}" '
            f'rpy="{" ".join(map(str, rpy))}"/><geometry>{shape}</geometry></collision>')


def _rpy(roll, pitch, yaw):
    """URDF's fixed-axis roll, pitch, yaw: Rz(yaw) Ry(pitch) Rx(roll)."""
    c, s = np.cos, np.sin
    Rx = np.array([[1, 0, 0], [0, c(roll), -s(roll)], [0, s(roll), c(roll)]])
    Ry = np.array([[c(pitch), 0, s(pitch)], [0, 1, 0], [-s(pitch), 0, c(pitch)]])
    Rz = np.array([[c(yaw), -s(yaw), 0], [s(yaw), c(yaw), 0], [0, 0, 1]])
    return Rz @ Ry @ Rx


def _floor(model):
    """The half space z < 0: Simbody's HalfSpace fills x > 0 of its frame, whose x is
    turned onto -z."""
    model.matter.Ground().upd_body().add_contact_surface(
        kt.Transform(kt.Rotation.about_y(math.pi / 2)),
        kt.ContactSurface(kt.ContactGeometry.HalfSpace(), MATERIAL))


def test_a_box_robot_comes_to_rest_on_its_collision_box(tmp_path):
    """2 kg, 0.2 x 0.3 x 0.1 m, dropped from 2 cm: at rest the floor's force on it is its
    weight, and its lowest point is just below the floor (the springs' compression)."""
    mass, size = 2.0, (0.2, 0.3, 0.1)
    inertia = (0.02, 0, 0, 0.02, 0, 0.02)
    xml = robot_xml("box", [dict(name="box", mass=mass, inertia=inertia,
                                 extra=_collision(f'<box size="{" ".join(map(str, size))}"/>'))],
                    [])
    model = kt.io.load_urdf(write(tmp_path, xml), floating_base=True,
                            contact_material=MATERIAL)
    _floor(model)
    box = model.bodies["box"]
    state = model.get_default_state()
    box.set_q_to_fit_transform(state, kt.Transform(kt.Rotation(), [0, 0, size[2] / 2 + 0.02]))
    trajectory = kt.simulate(model.system, state, 1.5, accuracy=1e-5, progress=False)
    final = trajectory.states()[-1]
    model.system.realize(final, kt.Stage.ACCELERATION)
    assert np.abs(final.get_u()).max() < 1e-4
    contact = model.contact
    total = sum(contact.get_contact_force(final, i).force_on_surface2
                for i in range(contact.get_num_contact_forces(final)))
    # at rest to 0.1%: the last of the bounce dies out slowly in the springs' damping
    assert total == pytest.approx([0.0, 0.0, mass * 9.81], rel=1e-3, abs=1e-3)
    lowest = box.get_body_origin_location(final)[2] - size[2] / 2
    assert -1e-3 < lowest < 0.0


def test_a_box_robot_loaded_for_rigid_contact_rests_on_its_collision_box(tmp_path):
    """With ``contact_model="rigid"`` the collision shapes are surfaces alone (no compliant
    subsystem); their generated contacts hold the box, dropped from 2 cm, at rest with its
    face on the floor to the constraint tolerance. An unknown contact model is refused."""
    size = (0.2, 0.3, 0.1)
    xml = robot_xml("box", [dict(name="box", mass=2.0, inertia=(0.02, 0, 0, 0.02, 0, 0.02),
                                 extra=_collision(f'<box size="{" ".join(map(str, size))}"/>'))],
                    [])
    path = write(tmp_path, xml)
    model = kt.io.load_urdf(path, floating_base=True, contact_material=MATERIAL,
                            contact_model="rigid")
    assert model.contact is None
    _floor(model)
    kt.contact.generate_unilateral_contacts(model.matter)
    box = model.bodies["box"]
    state = model.get_default_state()
    box.set_q_to_fit_transform(state, kt.Transform(kt.Rotation(), [0, 0, size[2] / 2 + 0.02]))
    stepper = kt.SemiExplicitEulerTimeStepper(model.system)
    stepper.set_constraint_tolerance(1e-6)
    stepper.initialize(state)
    for k in range(1, 301):
        stepper.step_to(k * 1e-3)
    final = stepper.get_state()
    assert np.abs(final.get_u()).max() < 1e-9
    assert box.get_body_origin_location(final)[2] == pytest.approx(size[2] / 2, abs=1e-6)
    with pytest.raises(InvalidArgumentError, match="contact_model"):
        kt.io.load_urdf(path, contact_material=MATERIAL, contact_model="soft")


def test_a_joints_two_links_never_touch(tmp_path):
    """An upper and a lower link whose collision boxes overlap at their hinge: no contact
    between them; a third link overlapping the lower one, on another joint of the upper,
    touches it."""
    inertia = (0.01, 0, 0, 0.01, 0, 0.01)
    box = _collision('<box size="0.1 0.1 0.4"/>', xyz=(0, 0, -0.2))
    links = [dict(name=n, mass=1.0, inertia=inertia, extra=box) for n in ("a", "b", "c")]
    joints = [dict(name="ab", type="revolute", parent="a", child="b", xyz=(0, 0, -0.35),
                   rpy=(0, 0, 0), axis=(0, 1, 0), limit=(-1, 1, 10, 10)),
              dict(name="ac", type="revolute", parent="a", child="c", xyz=(0.05, 0, -0.35),
                   rpy=(0, 0, 0), axis=(0, 1, 0), limit=(-1, 1, 10, 10))]
    model = kt.io.load_urdf(write(tmp_path, robot_xml("arm", links, joints)),
                            contact_material=MATERIAL)
    state = model.get_default_state()
    model.system.realize(state, kt.Stage.DYNAMICS)
    contact = model.contact
    pairs = {tuple(sorted((contact.get_contact_force(state, i).body1,
                           contact.get_contact_force(state, i).body2)))
             for i in range(contact.get_num_contact_forces(state))}
    b, c = (model.bodies[n].get_mobilized_body_index() for n in ("b", "c"))
    assert pairs == {tuple(sorted((b, c)))}


def test_each_shape_is_collided_as_what_it_is_where_it_is(tmp_path):
    inertia = (0.01, 0, 0, 0.01, 0, 0.01)
    shapes = (_collision('<box size="0.2 0.4 0.6"/>', xyz=(1, 2, 3), rpy=(0.1, 0.2, 0.3))
              + _collision('<cylinder radius="0.1" length="0.5"/>')
              + _collision('<sphere radius="0.25"/>'))
    xml = robot_xml("shapes", [dict(name="base", mass=1.0, inertia=inertia, extra=shapes)], [])
    model = kt.io.load_urdf(write(tmp_path, xml), contact_material=MATERIAL)
    body = model.bodies["base"].get_body()
    assert body.get_num_contact_surfaces() == 3
    brick, cylinder, sphere = (body.get_contact_surface(i).get_shape() for i in range(3))
    assert brick.get_half_lengths() == pytest.approx([0.1, 0.2, 0.3])
    assert (cylinder.get_radius(), cylinder.get_half_length()) == (0.1, 0.25)
    assert sphere.get_radius() == 0.25
    X = body.get_contact_surface_transform(0)
    assert X.p == pytest.approx([1, 2, 3])
    assert X.R.as_matrix() == pytest.approx(_rpy(0.1, 0.2, 0.3))
    assert body.get_contact_surface(0).get_material() is MATERIAL


def test_without_a_material_collision_shapes_are_read_past(tmp_path):
    inertia = (0.01, 0, 0, 0.01, 0, 0.01)
    xml = robot_xml("r", [dict(name="base", mass=1.0, inertia=inertia,
                               extra=_collision('<sphere radius="0.25"/>'))], [])
    model = kt.io.load_urdf(write(tmp_path, xml))
    assert model.bodies["base"].get_body().get_num_contact_surfaces() == 0
    assert model.contact is None and model.skipped == []
    with pytest.raises(InvalidArgumentError, match="contact_material must be a "
                                                   "ContactMaterial"):
        kt.io.load_urdf(write(tmp_path, xml), contact_material=1e6)

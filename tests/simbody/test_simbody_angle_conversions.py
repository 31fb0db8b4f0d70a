"""Simbody's TestAngleConversions, ported: a chain of bodies on every kind of mobilizer,
converted from quaternions to Euler angles and back, keeps every body where it was.
Simbody draws its random frames and q from its own generator (uniform in [0, 2]); this
port draws them from numpy's, from the same interval."""

import numpy as np

import kinetree as kt


def random_transform(random):
    return kt.Transform(random.uniform(0.0, 2.0, 3))


def assert_same_positions(matter, a, b):
    """Every body's origin within 1e-5 (m) in the two States."""
    for i in range(matter.get_num_bodies()):
        mobod = matter.get_mobilized_body(i)
        assert np.linalg.norm(mobod.get_body_origin_location(a)
                              - mobod.get_body_origin_location(b)) < 1e-5


def test_angle_conversions():
    """Every body's origin stays within 1e-5 (Simbody's tolerance) through
    convert_to_euler_angles, and again through convert_to_quaternions; the q come back
    to an RMS difference below 1e-5 once the quaternions are normalized."""
    random = np.random.default_rng(0)
    mbs = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(mbs)
    body = kt.Body.Rigid(kt.MassProperties(1, [0, 0, 0], kt.Inertia(1)))
    M = kt.MobilizedBody
    last = M.Pin(matter.Ground(), kt.Transform([0, 0, 0]), body, random_transform(random))
    for make, extra in ((M.Slider, ()), (M.Universal, ()), (M.Cylinder, ()),
                        (M.BendStretch, ()), (M.Planar, ()), (M.Gimbal, ()), (M.Ball, ()),
                        (M.Translation, ()), (M.Free, ()), (M.LineOrientation, ()),
                        (M.FreeLine, ()), (M.Weld, ()), (M.Screw, (0.5,)), (M.Ellipsoid, ()),
                        (M.CantileverFreeBeam, ())):
        last = make(last, kt.Transform([0, 0, 0]), body, random_transform(random), *extra)
    mbs.realize_topology()
    s = mbs.get_default_state()
    mbs.realize_model(s)

    # Choose a random initial conformation.
    s.set_q(random.uniform(0.0, 2.0, s.get_num_q()))
    mbs.realize(s, kt.Stage.INSTANCE)
    # The only constraints are the quaternions: normalize them.
    mbs.project(s, 0.01)
    mbs.realize(s, kt.Stage.POSITION)

    # Convert to Euler angles and make sure the positions are all the same.
    euler = s.copy()
    matter.convert_to_euler_angles(s, euler)
    mbs.realize(euler, kt.Stage.POSITION)
    assert_same_positions(matter, euler, s)

    # Now convert back to quaternions and make sure the positions are still the same.
    quaternions = s.copy()
    matter.convert_to_quaternions(euler, quaternions)
    mbs.realize(quaternions, kt.Stage.POSITION)
    assert_same_positions(matter, quaternions, s)

    # Compare the state variables to see if they have been accurately reproduced.
    mbs.project(s, 0.01)        # normalize the quaternions
    diff = np.sqrt(np.sum((s.get_q() - quaternions.get_q()) ** 2) / s.get_num_q())
    assert diff < 1e-5

"""kinetree's simulation against Simbody's, through OpenSim: random 3D pendulum trees (Pin,
Ball, Gimbal, Slider, Universal joints, random frames and mass properties, 4-8 bodies)
simulated for 2 s by OpenSim's Manager and by kinetree's TimeStepper, both with
Runge-Kutta-Merson at accuracy 1e-10, agree to 1e-7 in q at t = 0.5, 1, 1.5 and 2 s.

Both engines run in quaternion mode (Simbody switched through ctypes, as in
test_opensim_quaternions), so q lines up slot for slot, the Ball quaternion included
[w, x, y, z]; the two start from the same unit quaternion and neither flips its sign, so
q is compared as is. OpenSim's Manager stops at each comparison time (its steps land on
them); kinetree's TimeStepper interpolates inside a step and projects.

The trees are the first eight seeds of one generator, taken as they come. With the error
norm Simbody uses (the largest of the RMS scaled errors of q, of u and of z), seeds 0-15
all agree to between 5e-11 and 4.5e-8 at 2 s; the largest differences are trees whose
motion amplifies small ones (for seed 2, Simbody's own 1e-10 run is 9.5e-8 from its 1e-13
run)."""

import numpy as np
import pytest
from test_opensim_joints import build_both, osim  # skips if opensim is missing
from test_opensim_quaternions import SimbodyCalls, array

import kinetree as kt

KINDS = ("PinJoint", "BallJoint", "GimbalJoint", "SliderJoint", "UniversalJoint")
ACCURACY = 1e-10
TIMES = (0.5, 1.0, 1.5, 2.0)
SEEDS = tuple(range(8))


def random_kinds(rng):
    """4 to 8 joint types drawn from KINDS."""
    n = int(rng.integers(4, 9))
    return [KINDS[i] for i in rng.integers(0, len(KINDS), n)]


def random_tree_pair(seed):
    """The same random tree in OpenSim and kinetree, both in quaternion mode, at the same
    random q and u: (kinds, OpenSim model, its State, kinetree system, its State)."""
    rng = np.random.default_rng(seed)
    kinds = random_kinds(rng)
    n = len(kinds)
    # breadth first (parents non-decreasing), the order OpenSim hands bodies to Simbody
    parents = sorted(int(rng.integers(0, i + 1)) for i in range(n))
    model, system, matter = build_both(kinds, seed, parents)
    o_state = model.initSystem()
    SimbodyCalls().use_quaternions(model, o_state)
    k_state = system.realize_topology()
    matter.set_use_euler_angles(k_state, False)
    system.realize_model(k_state)
    assert (o_state.getNQ(), o_state.getNU()) == (k_state.get_num_q(), k_state.get_num_u())
    for i, kind in enumerate(kinds):
        mobod = matter.get_mobilized_body(i + 1)
        q = rng.uniform(-0.5, 0.5, mobod.get_num_q(k_state))
        if kind == "BallJoint":
            quat = rng.normal(size=4)
            q = quat / np.linalg.norm(quat)
        mobod.set_q(k_state, q)
    k_state.set_u(rng.uniform(-1, 1, k_state.get_num_u()))
    o_state.setQ(osim.Vector(list(k_state.get_q())))
    o_state.setU(osim.Vector(list(k_state.get_u())))
    return kinds, model, o_state, system, k_state


def simulate_opensim(model, o_state):
    """q at TIMES from OpenSim's Manager (Runge-Kutta-Merson)."""
    manager = osim.Manager(model)
    manager.setIntegratorMethod(osim.Manager.IntegratorMethod_RungeKuttaMerson)
    manager.setIntegratorAccuracy(ACCURACY)
    manager.initialize(o_state)
    out = []
    for t in TIMES:
        state = manager.integrate(t)
        assert state.getTime() == pytest.approx(t, abs=1e-12)
        assert state.getNQ() == o_state.getNQ()  # still in quaternion mode
        out.append(array(state.getQ()))
    return np.array(out)


def simulate_kinetree(system, k_state):
    """q at TIMES from kinetree's TimeStepper (Runge-Kutta-Merson)."""
    integ = kt.RungeKuttaMersonIntegrator(system)
    integ.set_accuracy(ACCURACY)
    stepper = kt.TimeStepper(system, integ)
    stepper.initialize(k_state)
    out = []
    for t in TIMES:
        stepper.step_to(t)
        state = stepper.get_state()
        assert state.get_time() == pytest.approx(t, abs=1e-12)
        out.append(np.array(state.get_q()))
    return np.array(out)


@pytest.mark.parametrize("seed", SEEDS)
def test_random_trees_simulate_like_simbody(seed):
    kinds, model, o_state, system, k_state = random_tree_pair(seed)
    assert 4 <= len(kinds) <= 8
    q_o = simulate_opensim(model, o_state)
    q_k = simulate_kinetree(system, k_state)
    for t, a, b in zip(TIMES, q_k, q_o, strict=True):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-7,
                                   err_msg=f"q at t = {t} s, joints {kinds}")
    # the motion is not trivial: q moved by more than 1e6 times the tolerance
    assert np.abs(q_o[-1] - array(o_state.getQ())).max() > 0.1


def test_seeds_cover_every_joint_type():
    covered = {k for seed in SEEDS for k in random_kinds(np.random.default_rng(seed))}
    assert covered == set(KINDS)

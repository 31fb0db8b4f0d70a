"""The force elements load_osim builds (contact, CoordinateLimitForce, BushingForce,
PointToPointSpring) against OpenSim's own, on the models of models/opensim that have them.

Each model is loaded by kinetree with its forces, and by OpenSim with exactly the elements
kinetree skipped (muscles, actuators) switched off (set_appliesForce(False)). At random
coordinate values and speeds, with the model lowered so that its deepest contact sphere
sinks a few mm into the ground, and with each limited coordinate pushed past one of its
CoordinateLimitForce's limits (into the transition, or beyond it), compared:

* u̇ of every coordinate, by name, to 1e-8 relative (as test_opensim_models.py);
* each built element's contribution where OpenSim exposes it: getRecordValues (the
  spatial forces of HuntCrossleyForce, BushingForce and PointToPointSpring on the bodies
  of their frames, the generalized force and potential energy of CoordinateLimitForce)
  and the potential energy (each element's where OpenSim's class computes it, and the
  model's total, gravity and every element included), to 1e-8 relative.
"""

import re
import warnings
from pathlib import Path

import numpy as np
import pytest
from support import set_kinetree_coordinates, set_random_coordinates

import kinetree as kt
from kinetree.io import OsimSkippedWarning, load_osim

osim = pytest.importorskip("opensim")

MODELS = Path(__file__).resolve().parents[2] / "models" / "opensim"
CASES = {                        # model: its vertical coordinate, lowering it into contact
    "WalkerModel": "Pelvis_ty",
    "ToyLandingModel": "pelvis_ty",
    "bouncing_block": "yTranslation",
}
DEPTH = 0.003                    # m, the deepest sphere's penetration
RTOL = 1e-8
OWN_ENERGY = ("BushingForce", "CoordinateLimitForce")
"""The elements whose OpenSim class computes its potential energy (the others' output
is OpenSim's default, 0; their energy is in the model's total)."""


def kinetree_model(stem):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OsimSkippedWarning)
        return load_osim(MODELS / f"{stem}.osim")


def skipped_forces(model, om) -> set[str]:
    """The names of OpenSim's force elements that kinetree lists as skipped."""
    forces = om.getForceSet()
    names = {forces.get(i).getName() for i in range(forces.getSize())}
    listed = {m.group(1) for m in (re.match(r"\S+ '([^']*)'", s) for s in model.skipped) if m}
    return names & listed


def vec(v, n=3):
    return np.array([v.get(i) for i in range(n)])


def lowest_sphere(om, state):
    """The smallest signed distance (m) of a ContactSphere from the half space."""
    geometries = om.getContactGeometrySet()
    plane = spheres = None
    spheres = []
    for i in range(geometries.getSize()):
        g = geometries.get(i)
        X_GF = g.getFrame().getTransformInGround(state)
        location = X_GF.shiftFrameStationToBase(g.get_location())
        if g.getConcreteClassName() == "ContactHalfSpace":
            R = osim.Rotation(osim.BodyRotationSequence, g.get_orientation().get(0),
                              osim.CoordinateAxis(0), g.get_orientation().get(1),
                              osim.CoordinateAxis(1), g.get_orientation().get(2),
                              osim.CoordinateAxis(2))
            x_axis = X_GF.R().multiply(R.multiply(osim.Vec3(-1, 0, 0)))
            plane = (vec(location), vec(x_axis))       # a point, the outward normal
        else:
            spheres.append((vec(location), osim.ContactSphere.safeDownCast(g).getRadius()))
    point, normal = plane
    return min(normal @ (c - point) - r for c, r in spheres)


def limit_forces(om):
    forces = om.getForceSet()
    return [osim.CoordinateLimitForce.safeDownCast(forces.get(i))
            for i in range(forces.getSize())
            if forces.get(i).getConcreteClassName() == "CoordinateLimitForce"]


def opensim_state(om, stem, seed):
    """OpenSim's state: random free coordinates and speeds, the limited coordinates past
    a limit, the model lowered into contact; realized to ACCELERATION."""
    state = om.initSystem()
    set_random_coordinates(om, state, np.random.default_rng(seed))
    coordinates = om.getCoordinateSet()
    past = []
    for k, f in enumerate(limit_forces(om)):
        c = coordinates.get(f.get_coordinate())
        if c.getLocked(state):
            continue
        w = np.pi / 180 if c.getMotionType() == osim.Coordinate.Rotational else 1.0
        fraction = (0.4, 2.5)[(seed + k) % 2]          # inside the transition, or beyond
        candidates = [w * (f.getUpperLimit() + fraction * f.getTransition()),
                      w * (f.getLowerLimit() - fraction * f.getTransition())]
        if (seed // 2 + k) % 2:
            candidates.reverse()
        for q in candidates:
            if not c.getDefaultClamped() or c.getRangeMin() <= q <= c.getRangeMax():
                c.setValue(state, q, False)
                past.append(f.getName())
                break
    om.assemble(state)
    vertical = coordinates.get(CASES[stem])
    for _ in range(8):                  # lower it so that the deepest sphere sinks DEPTH
        om.realizePosition(state)
        vertical.setValue(state, vertical.getValue(state) - lowest_sphere(om, state) - DEPTH,
                          False)
        om.assemble(state)
    om.realizePosition(state)
    assert lowest_sphere(om, state) == pytest.approx(-DEPTH, abs=1e-4)
    om.realizeAcceleration(state)
    return state, past


def close(got, expected, what):
    got, expected = np.asarray(got, float), np.asarray(expected, float)
    scale = max(1.0, float(np.max(np.abs(expected), initial=0.0)))
    assert np.max(np.abs(got - expected), initial=0.0) <= RTOL * scale, \
        f"{what}: kinetree {got}, OpenSim {expected}"


def frame_bodies(om) -> dict:
    """Frame name -> the name of its body (its base frame), for every frame of the model."""
    out = {}
    for f in om.getFrameList():
        base = f.findBaseFrame().getName()
        assert out.setdefault(f.getName(), base) == base, f"two frames {f.getName()!r}"
    return out


def kinetree_contribution(model, elements, state):
    nb = model.matter.get_num_bodies()
    F = np.zeros((nb, 6))
    f = np.zeros(model.matter.get_num_mobilities())
    for e in elements:
        e.calc_force(state, F, np.zeros((0, 3)), f)
    return F, f, sum(e.calc_potential_energy(state) for e in elements)


@pytest.mark.parametrize("stem", sorted(CASES))
def test_udot_and_each_force_match_opensim(stem):
    """ToyLandingModel's seed 0 has a contact separating fast enough that f_H (1 + 3/2 c v)
    <= 0 (its left small toe): both apply no force there, friction included."""
    model = kinetree_model(stem)
    state = model.get_default_state()
    om = osim.Model(str(MODELS / f"{stem}.osim"))
    skipped = skipped_forces(model, om)
    forces = om.getForceSet()
    built = set(model.force_elements) | set(model.actuators)
    for i in range(forces.getSize()):
        f = forces.get(i)
        assert (f.getName() in skipped) != (f.getName() in built), f.getName()
        if f.getName() in skipped:
            f.set_appliesForce(False)
    assert built, f"{stem}: no force element built"
    bodies = None
    pushed = set()
    for seed in range(4):
        ostate, past = opensim_state(om, stem, seed)
        pushed |= set(past)
        bodies = bodies or frame_bodies(om)
        set_kinetree_coordinates(model, state, om, ostate)
        coordinates = om.getCoordinateSet()
        for i in range(coordinates.getSize()):
            c = coordinates.get(i)
            close(model.coordinates[c.getName()].get_acceleration_value(state),
                  c.getAccelerationValue(ostate), f"{stem} seed {seed} u̇ {c.getName()}")
        # OpenSim's total (gravity and every element) counts each BushingForce twice: once
        # as Simbody's LinearBushing, once through the class's own computePotentialEnergy
        twice = sum(osim.OutputDouble.safeDownCast(forces.get(n).getOutput(
            "potential_energy")).getValue(ostate) for n in model.force_elements
            if forces.get(n).getConcreteClassName() == "BushingForce")
        # and kinetree's muscles store no energy yet (OpenSim's fiber and tendon springs)
        muscles = om.getMuscles()
        stored = sum(muscles.get(i).getMusclePotentialEnergy(ostate)
                     for i in range(muscles.getSize()))
        close(model.system.calc_potential_energy(state),
              om.calcPotentialEnergy(ostate) - twice - stored,
              f"{stem} seed {seed} potential energy")
        for name in sorted(model.force_elements):
            of = forces.get(name)
            F, f, pe = kinetree_contribution(model, model.force_elements[name], state)
            where = f"{stem} seed {seed} {of.getConcreteClassName()} {name!r}"
            if of.getConcreteClassName() in OWN_ENERGY:     # the others report 0 in OpenSim
                close(pe, osim.OutputDouble.safeDownCast(of.getOutput("potential_energy"))
                      .getValue(ostate), f"{where} potential energy")
            labels = of.getRecordLabels()
            values = of.getRecordValues(ostate)
            record = {labels.get(j): values.get(j) for j in range(labels.getSize())}
            if of.getConcreteClassName() == "CoordinateLimitForce":
                k = model.coordinates[osim.CoordinateLimitForce.safeDownCast(of)
                                      .get_coordinate()]
                close([f[k.u_index], pe], [record[name], record["PotentialEnergy"]], where)
                continue
            for label, value in record.items():
                m = re.fullmatch(rf"{re.escape(name)}\.(.+)\.(force|torque)\.([XYZ])", label)
                if m is None:
                    continue
                body = bodies[m.group(1)]
                b = model.bodies[body].get_mobilized_body_index()
                column = (3 if m.group(2) == "force" else 0) + "XYZ".index(m.group(3))
                close(F[b, column], value, f"{where} {label}")
    # every limited coordinate that could be moved was pushed past a limit at least once
    assert pushed == {f.getName() for f in limit_forces(om)
                      if not om.getCoordinateSet().get(f.get_coordinate()).getDefaultLocked()}


def test_skipped_lists_each_unbuilt_force_once_with_why():
    model = kinetree_model("ToyLandingModel")
    assert len(model.muscles) == 70 and not any("Muscle" in s for s in model.skipped)
    assert model.skipped == ["ToyReflexController 'Reflexes' (a controller from "
                             "an OpenSim plug-in: write it as a kinetree Controller in "
                             "Python)"]
    for name in ("foot_r", "BackBushing", "KneeLimit_r", "heel_r", "platform_surface"):
        assert not any(f"'{name}'" in s for s in model.skipped)
    assert set(model.force_elements) >= {"foot_r", "foot_l", "BackBushing", "KneeLimit_r"}
    assert not kinetree_model("double_pendulum").skipped
    assert not kinetree_model("bouncing_block").skipped


def test_coordinate_limit_force_alone_matches_its_law():
    """Force.CoordinateLimitForce on a pendulum: the force and energy at points past both
    limits against the formula, and the force is minus the energy's slope where u = 0."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    pin = kt.MobilizedBody.Pin(matter.Ground(), kt.Body.Rigid(
        kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(0.1))))
    limit = kt.Force.CoordinateLimitForce(forces, pin, 0, 200.0, 0.5, 100.0, -0.3, 2.0, 0.1)
    state = system.realize_topology()
    system.realize(state, kt.Stage.MODEL)

    def force_and_energy(q, u=0.0):
        pin.set_q(state, [q])
        pin.set_u(state, [u])
        system.realize(state, kt.Stage.VELOCITY)
        f = np.zeros(1)
        limit.calc_force(state, np.zeros((2, 6)), np.zeros((0, 3)), f)
        return f[0], limit.calc_potential_energy(state)

    def step(x):
        x = min(max(x, 0.0), 1.0)
        return x ** 3 * (10 - 15 * x + 6 * x * x)

    for q in (0.0, 0.55, 0.62, -0.33, -0.5):
        f, pe = force_and_energy(q, 0.7)
        s_up, s_low = step((q - 0.5) / 0.1), step((-0.3 - q) / 0.1)
        expected = -200 * s_up * (q - 0.5) + 100 * s_low * (-0.3 - q) - 2.0 * (s_up + s_low) * 0.7
        assert f == pytest.approx(expected, rel=1e-14, abs=1e-14)
        h = 1e-6
        slope = (force_and_energy(q + h)[1] - force_and_energy(q - h)[1]) / (2 * h)
        if q > 0.6 or q < -0.4:      # past the transition the energy is the spring's
            assert force_and_energy(q)[0] == pytest.approx(-slope, rel=1e-6)
        assert pe >= 0.0

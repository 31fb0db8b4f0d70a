"""ExpressionBasedCoordinateForce loaded by load_osim against OpenSim's own, on a small model
written here: an arm on a Pin, a block sliding along it, a rod on a Pin on the block, each
coordinate with an expression force (nonlinear, with step, erf, abs, subexpressions and
whitespace; the slide's in m and m/s, the others' in rad and rad/s), and one more force
with appliesForce false. At random coordinate values and speeds, compared to 1e-8
relative (as test_opensim_forces.py): u̇ of every coordinate by name, each force's value
(OpenSim's getRecordValues) and the potential energy (OpenSim's element reports none, so
the model's is gravity's alone)."""

import warnings

import numpy as np
import pytest

import kinetree as kt
from kinetree.io import OsimSkippedWarning, load_osim

osim = pytest.importorskip("opensim")

RTOL = 1e-8

FORCES = {                     # name: (coordinate, expression, appliesForce)
    "shoulder_law": ("theta", "-5*sin(q)-0.3*qdot^3+step(q-0.1)*2", True),
    "slide_spring": ("x", "-200*q*abs(q) - 4*qdot + erf(10*q)", True),
    "elbow_law": ("phi", "k*(q0-q)-c*qdot*cosh(q)^-q ; k=3*c ; c=0.5 ; q0=0.2", True),
    "switched_off": ("phi", "100*q", False),
}


def body(name, mass, com, inertia):
    return f"""
        <Body name="{name}">
            <mass>{mass}</mass>
            <mass_center>{com}</mass_center>
            <inertia>{inertia}</inertia>
        </Body>"""


def joint(kind, name, parent, child, coordinate, translation, orientation, default):
    return f"""
        <{kind} name="{name}">
            <socket_parent_frame>{name}_parent</socket_parent_frame>
            <socket_child_frame>{child}</socket_child_frame>
            <coordinates>
                <Coordinate name="{coordinate}">
                    <default_value>{default}</default_value>
                    <range>-3 3</range>
                </Coordinate>
            </coordinates>
            <frames>
                <PhysicalOffsetFrame name="{name}_parent">
                    <socket_parent>{parent}</socket_parent>
                    <translation>{translation}</translation>
                    <orientation>{orientation}</orientation>
                </PhysicalOffsetFrame>
            </frames>
        </{kind}>"""


def force(name, coordinate, expression, applies):
    return f"""
        <ExpressionBasedCoordinateForce name="{name}">
            <appliesForce>{str(applies).lower()}</appliesForce>
            <coordinate>{coordinate}</coordinate>
            <expression>{expression}</expression>
        </ExpressionBasedCoordinateForce>"""


def write_model(path):
    bodies = (body("arm", 2.0, "0 -0.4 0", "0.05 0.01 0.05 0 0 0")
              + body("block", 1.0, "0.05 0 0", "0.01 0.012 0.011 0.001 0 0")
              + body("rod", 0.5, "0 -0.25 0.02", "0.01 0.001 0.01 0 0 0"))
    joints = (joint("PinJoint", "shoulder", "/ground", "/bodyset/arm", "theta", "0 1 0",
                    "0.1 0 0", 0.2)
              + joint("SliderJoint", "slide", "/bodyset/arm", "/bodyset/block", "x",
                      "0 -0.8 0", "0 0 -1.2", 0.05)
              + joint("PinJoint", "elbow", "/bodyset/block", "/bodyset/rod", "phi",
                      "0.1 0 0", "0 0.3 0", -0.4))
    forces = "".join(force(name, *spec) for name, spec in FORCES.items())
    path.write_text(f"""<?xml version="1.0" encoding="UTF-8" ?>
<OpenSimDocument Version="40000">
    <Model name="expression_forces">
        <gravity>0 -9.80665 0</gravity>
        <BodySet name="bodyset"><objects>{bodies}
        </objects></BodySet>
        <JointSet name="jointset"><objects>{joints}
        </objects></JointSet>
        <ForceSet name="forceset"><objects>{forces}
        </objects></ForceSet>
    </Model>
</OpenSimDocument>
""")
    return path


def close(got, expected, what):
    scale = max(1.0, abs(expected))
    assert abs(got - expected) <= RTOL * scale, f"{what}: kinetree {got}, OpenSim {expected}"


def test_udot_and_each_force_match_opensim(tmp_path):
    path = write_model(tmp_path / "expression_forces.osim")
    with warnings.catch_warnings():
        warnings.simplefilter("error", OsimSkippedWarning)     # every element is built
        model = load_osim(path)
    assert model.skipped == [] and set(model.force_elements) == set(FORCES)
    state = model.get_default_state()
    om = osim.Model(str(path))
    ostate = om.initSystem()
    coordinates = om.getCoordinateSet()
    forces = om.getForceSet()
    rng = np.random.default_rng(11)
    for trial in range(6):
        for i in range(coordinates.getSize()):
            c = coordinates.get(i)
            value = rng.uniform(-0.3, 0.3) if c.getName() == "x" else rng.uniform(-1.5, 1.5)
            if trial == 0 and c.getName() == "theta":
                value = 0.1                                  # on step's edge: step(0) = 1
            c.setValue(ostate, value, False)
            c.setSpeedValue(ostate, rng.uniform(-2.0, 2.0))
            model.coordinates[c.getName()].set_value(state, c.getValue(ostate))
            model.coordinates[c.getName()].set_speed_value(state, c.getSpeedValue(ostate))
        om.realizeAcceleration(ostate)
        model.system.realize(state, kt.Stage.ACCELERATION)
        for i in range(coordinates.getSize()):
            c = coordinates.get(i)
            close(model.coordinates[c.getName()].get_acceleration_value(state),
                  c.getAccelerationValue(ostate), f"trial {trial} u̇ {c.getName()}")
        close(model.system.calc_potential_energy(state), om.calcPotentialEnergy(ostate),
              f"trial {trial} potential energy")
        for name, (coordinate, _, applies) in FORCES.items():
            (element,) = model.force_elements[name]
            assert bool(element.is_disabled(state)) is not applies
            f = np.zeros(model.matter.get_num_mobilities())
            element.calc_force(state, np.zeros((model.matter.get_num_bodies(), 6)),
                               np.zeros((0, 3)), f)
            expected = forces.get(name).getRecordValues(ostate).get(0)
            close(f[model.coordinates[coordinate].u_index], expected, f"trial {trial} {name}")
            assert np.count_nonzero(f) <= 1
            assert element.calc_potential_energy(state) == 0.0 == osim.OutputDouble \
                .safeDownCast(forces.get(name).getOutput("potential_energy")).getValue(ostate)

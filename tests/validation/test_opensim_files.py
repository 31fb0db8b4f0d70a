"""kinetree's files in OpenSim and OpenSim's files in kinetree, on the models of
models/opensim: a simulation of gait2392 written with ``to_sto(model=...)`` loads in
OpenSim as states of the same model and agrees with kinetree's run, and inverse kinematics
of arm26's and Rajagopal2016's markers from a synthetic .trc (written by OpenSim's own
TRCFileAdapter) recovers the coordinates that made them."""

import warnings
from pathlib import Path

import pytest

import kinetree as kt
from kinetree.io import OsimSkippedWarning, load_osim

osim = pytest.importorskip("opensim")

MODELS = Path(__file__).resolve().parents[2] / "models" / "opensim"


def load(name: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OsimSkippedWarning)
        return load_osim(MODELS / f"{name}.osim")


def test_a_gait2392_run_written_as_sto_loads_in_opensim_as_its_states(tmp_path):
    model = load("gait2392_thelen2003muscle")
    state = model.get_default_state()
    model.coordinates["hip_flexion_r"].set_speed_value(state, 1.0)
    model.coordinates["knee_angle_l"].set_value(state, -0.4)
    model.equilibrate_muscles(state)
    run = kt.simulate(model.system, state, t_final=0.05, report_interval=0.01)
    path = run.to_sto(tmp_path / "gait2392_states.sto", model=model)

    om = osim.Model(str(MODELS / "gait2392_thelen2003muscle.osim"))
    om.initSystem()
    # the muscles' states are in the file by OpenSim's names; nothing assembled
    trajectory = osim.StatesTrajectory.createFromStatesTable(
        om, osim.TimeSeriesTable(str(path)), True, False, False)
    assert trajectory.getSize() == len(run)
    coordinates = om.getCoordinateSet()
    for i in range(trajectory.getSize()):
        ostate = trajectory.get(i)
        assert ostate.getTime() == pytest.approx(run.t[i], abs=1e-12)
        for k in range(coordinates.getSize()):
            c = coordinates.get(k)
            ours = model.coordinates[c.getName()]
            assert c.getValue(ostate) == pytest.approx(run.q[i, ours.q_index], abs=1e-12)
            assert c.getSpeedValue(ostate) == pytest.approx(run.u[i, ours.u_index], abs=1e-12)
    # and OpenSim, realizing its copy of the last state, finds the same u̇, its 92
    # muscles' forces included
    again = osim.StatesTrajectory.createFromStatesTable(   # kept: get() returns a reference
        om, osim.TimeSeriesTable(str(path)), True, False, False)
    last = again.get(len(run) - 1)
    om.realizeAcceleration(last)
    end = run.states()[-1]
    model.system.realize(end, kt.Stage.ACCELERATION)
    for k in range(coordinates.getSize()):
        c = coordinates.get(k)
        expected = c.getAccelerationValue(last)
        got = model.coordinates[c.getName()].get_acceleration_value(end)
        assert abs(got - expected) <= 1e-8 * max(1.0, abs(expected)), c.getName()


def synthetic_trc(model, om, frames: list[dict], path: Path) -> None:
    """Write with OpenSim's TRCFileAdapter the markers of ``om`` (in mm) at each frame's
    coordinate values, placed by OpenSim itself."""
    ostate = om.initSystem()
    markers = om.getMarkerSet()
    names = [markers.get(i).getName() for i in range(markers.getSize())]
    table = osim.TimeSeriesTableVec3()
    table.setColumnLabels(names)
    for k, values in enumerate(frames):
        for name, v in values.items():
            om.getCoordinateSet().get(name).setValue(ostate, v, False)
        om.realizePosition(ostate)
        row = osim.RowVectorVec3(len(names))
        for i in range(len(names)):
            p = markers.get(i).getLocationInGround(ostate)
            row[i] = osim.Vec3(p[0] * 1000, p[1] * 1000, p[2] * 1000)
        table.appendRow(0.01 * k, row)
    table.addTableMetaDataString("DataRate", "100")
    table.addTableMetaDataString("Units", "mm")
    osim.TRCFileAdapter.write(table, str(path))


@pytest.mark.parametrize(("name", "coordinates"), [
    ("arm26", {"r_shoulder_elev": [0.3, 0.5, 0.7], "r_elbow_flex": [0.9, 1.1, 1.2]}),
    ("Rajagopal2016", {"hip_flexion_r": [0.2, 0.3, 0.4], "knee_angle_r": [-0.3, -0.5, -0.7],
                       "lumbar_extension": [-0.1, 0.0, 0.1], "elbow_flex_l": [0.4, 0.5, 0.6],
                       "pelvis_ty": [0.95, 0.96, 0.97]}),
])
def test_inverse_kinematics_of_a_synthetic_trc_recovers_the_coordinates(tmp_path, name,
                                                                        coordinates):
    model = load(name)
    om = osim.Model(str(MODELS / f"{name}.osim"))
    frames = [{c: values[k] for c, values in coordinates.items()} for k in range(3)]
    path = tmp_path / f"{name}.trc"
    synthetic_trc(model, om, frames, path)

    table = kt.read_trc(path)
    state = model.get_default_state()
    assembler = kt.Assembler(model.system).set_tolerance(1e-12)
    locations = table.observations_for(model.markers)
    assembler.adopt_assembly_goal(model.markers)
    model.markers.move_all_observations(locations[0])
    assembler.assemble(state)
    for k in range(len(frames)):
        model.markers.move_all_observations(locations[k])
        assembler.track(table.times[k])
        assembler.update_from_internal_state(state)
        for c, values in coordinates.items():
            assert model.coordinates[c].get_value(state) == pytest.approx(values[k], abs=1e-6), c

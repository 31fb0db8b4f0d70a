"""OpenSim motion and marker files: ``Trajectory.from_sto(path, model)``, ``to_sto(path,
model)`` and ``read_trc``. Asserted, on a hand-built leg (two Pins and a Slider with
OpenSim-named coordinates, the knee's default angle 0.3 rad): a Trajectory written with
OpenSim's state paths reads back bit for bit; OpenSim reads that file (TimeSeriesTable,
Storage, and StatesTrajectory for an equivalent OpenSim model) with the same labels and
numbers; files OpenSim's STOFileAdapter writes (state paths in radians, coordinate names
in degrees) and an old white-space-separated .mot give the same numbers here, degrees
converted for the Pins only; a missing coordinate keeps its default with one warning;
without a model the columns stay as they are. .trc files from OpenSim's TRCFileAdapter (mm)
and Vicon-style ones with empty cells read in metres with NaN for missing markers, and
drive ``Assembler.track`` through ``observations_for``."""

import math
import warnings

import numpy as np
import pytest

import kinetree as kt
from kinetree.errors import InvalidArgumentError, KinetreeWarning
from kinetree.io.model import Coordinate, Model

opensim = pytest.importorskip("opensim")

PATHS = {"hip_flexion_r": "/jointset/hip_r/hip_flexion_r",
         "knee_angle_r": "/jointset/knee_r/knee_angle_r",
         "foot_tx": "/jointset/foot_slide/foot_tx"}
KNEE_DEFAULT = 0.3


def leg():
    """Ground -Pin hip_r-> thigh -Pin knee_r-> shank -Slider foot_slide-> foot, with
    coordinates hip_flexion_r, knee_angle_r (default 0.3 rad) and foot_tx (m), and a
    marker on each body."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    link = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(0.01)))
    thigh = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform([0, 1, 0]), link,
                                 kt.Transform([0, 0.2, 0]))
    shank = kt.MobilizedBody.Pin(thigh, kt.Transform([0, -0.2, 0]), link,
                                 kt.Transform([0, 0.2, 0]))
    foot = kt.MobilizedBody.Slider(shank, kt.Transform([0, -0.2, 0]), link, kt.Transform())
    shank.set_default_q([KNEE_DEFAULT])
    model = Model("leg", system, matter, forces)
    model.bodies = {"ground": matter.Ground(), "thigh": thigh, "shank": shank, "foot": foot}
    model.coordinates = {
        "hip_flexion_r": Coordinate("hip_flexion_r", thigh, 0, joint_name="hip_r"),
        "knee_angle_r": Coordinate("knee_angle_r", shank, 0, joint_name="knee_r",
                                   default_value=KNEE_DEFAULT),
        "foot_tx": Coordinate("foot_tx", foot, 0, joint_name="foot_slide",
                              motion_type="translational"),
    }
    markers = kt.Markers()
    markers.add_marker("THI", thigh, [0.05, 0.0, 0.02])
    markers.add_marker("KNE", thigh, [0.0, -0.2, 0.05])
    markers.add_marker("SHN", shank, [0.04, 0.0, 0.0])
    markers.add_marker("ANK", shank, [0.0, -0.2, 0.04])
    markers.add_marker("TOE", foot, [0.1, 0.0, 0.0])
    model.markers = markers
    return model


def motion():
    """Times and q, u of a smooth leg motion (rad, m), columns hip, knee, foot."""
    t = np.linspace(0.0, 1.0, 11)
    q = np.column_stack([0.4 * np.sin(2 * t), 0.2 + 0.9 * t ** 2, 0.05 * np.cos(3 * t)])
    u = np.column_stack([0.8 * np.cos(2 * t), 1.8 * t, -0.15 * np.sin(3 * t)])
    return t, q, u


def opensim_leg():
    """The same leg as an OpenSim model (joint frames do not matter for states)."""
    model = opensim.Model()
    parent = model.getGround()
    for body, joint, kind, coordinate in (("thigh", "hip_r", opensim.PinJoint, "hip_flexion_r"),
                                          ("shank", "knee_r", opensim.PinJoint, "knee_angle_r"),
                                          ("foot", "foot_slide", opensim.SliderJoint,
                                           "foot_tx")):
        b = opensim.Body(body, 1.0, opensim.Vec3(0), opensim.Inertia(0.01))
        model.addBody(b)
        j = kind(joint, parent, opensim.Vec3(0), opensim.Vec3(0), b, opensim.Vec3(0),
                 opensim.Vec3(0))
        j.upd_coordinates(0).setName(coordinate)
        model.addJoint(j)
        parent = b
    model.initSystem()
    return model


def write_table(path, columns: dict, t, in_degrees: bool):
    """A .sto written by OpenSim's own STOFileAdapter."""
    table = opensim.TimeSeriesTable()
    table.setColumnLabels(list(columns))
    values = np.column_stack(list(columns.values()))
    for k, time in enumerate(t):
        table.appendRow(float(time), opensim.RowVector(values[k].tolist()))
    table.addTableMetaDataString("inDegrees", "yes" if in_degrees else "no")
    opensim.STOFileAdapter.write(table, str(path))
    return path


def opensim_reads(path, label, in_radians_for=None) -> np.ndarray:
    """The column ``label`` as OpenSim's Storage reads it (16 significant digits are
    written, so this, not the array written, is what a reader must reproduce), its
    degrees converted by OpenSim with ``in_radians_for`` (an OpenSim model) if given."""
    storage = opensim.Storage(str(path))
    if in_radians_for is not None:
        in_radians_for.getSimbodyEngine().convertDegreesToRadians(storage)
    column = opensim.ArrayDouble()
    if label == "time":
        storage.getTimeColumn(column)
    else:
        storage.getDataColumn(label, column)
    return np.array([column.get(i) for i in range(column.getSize())])


# ------------------------------------------------------------------ .sto with a model
def test_round_trip_with_opensim_state_paths(tmp_path):
    model = leg()
    t, q, u = motion()
    traj = kt.Trajectory(t, q, u, columns={"energy": t ** 2})
    path = traj.to_sto(tmp_path / "leg.sto", model)
    lines = path.read_text().splitlines()
    assert lines[1:6] == ["version=1", "nRows=11", "nColumns=7", "inDegrees=no", "endheader"]
    assert lines[6].split("\t") == ["time", *(f"{PATHS[c]}/{kind}" for c in PATHS
                                              for kind in ("value", "speed"))]
    back = kt.Trajectory.from_sto(path, model)
    np.testing.assert_array_equal(back.t, t)
    np.testing.assert_array_equal(back.q, q)
    np.testing.assert_array_equal(back.u, u)
    assert back.q_names == ["Pin1.q0", "Pin2.q0", "Slider3.q0"]
    assert back.columns == {} and back.header["inDegrees"] == "no"
    state = back.states()[4]                        # the model's State is the template
    assert model.coordinates["knee_angle_r"].get_value(state) == q[4, 1]
    assert model.coordinates["foot_tx"].get_speed_value(state) == u[4, 2]

    with_extras = kt.Trajectory.from_sto(
        traj.to_sto(tmp_path / "extras.sto", model, columns=True), model)
    np.testing.assert_array_equal(with_extras.columns["energy"], t ** 2)
    mine = kt.Trajectory.from_sto(traj.to_sto(tmp_path / "mine.sto"), model)
    np.testing.assert_array_equal(mine.q, q)        # kinetree's own labels, with a model
    bare = kt.Trajectory.from_sto(traj.to_sto(tmp_path / "bare.sto", columns=False))
    assert bare.get_labels() == ["time", "q0", "q1", "q2", "u0", "u1", "u2"]


def test_opensim_reads_to_sto_as_states(tmp_path):
    model = leg()
    t, q, u = motion()
    path = str(kt.Trajectory(t, q, u).to_sto(tmp_path / "leg.sto", model))
    table = opensim.TimeSeriesTable(path)
    labels = [f"{PATHS[c]}/{kind}" for c in PATHS for kind in ("value", "speed")]
    assert list(table.getColumnLabels()) == labels
    np.testing.assert_array_equal(np.array(table.getIndependentColumn()), t)
    np.testing.assert_array_equal(
        table.getDependentColumn("/jointset/knee_r/knee_angle_r/value").to_numpy(), q[:, 1])
    np.testing.assert_array_equal(
        table.getDependentColumn("/jointset/foot_slide/foot_tx/speed").to_numpy(), u[:, 2])
    storage = opensim.Storage(path)
    assert storage.getSize() == len(t)
    assert [storage.getColumnLabels().get(i)
            for i in range(storage.getColumnLabels().getSize())] == ["time", *labels]
    assert not storage.isInDegrees()

    osim_model = opensim_leg()
    states = opensim.StatesTrajectory.createFromStatesTable(osim_model, table)
    assert states.getSize() == len(t)
    coordinates = osim_model.getCoordinateSet()
    for k in (0, 5, 10):
        for j, name in enumerate(PATHS):
            assert coordinates.get(name).getValue(states[k]) == q[k, j]
            assert coordinates.get(name).getSpeedValue(states[k]) == u[k, j]


def test_sto_written_by_opensim_state_paths_in_radians(tmp_path):
    model = leg()
    t, q, u = motion()
    columns = {}
    for c in ["foot_tx", "hip_flexion_r", "knee_angle_r"]:      # not in q's order
        k = list(PATHS).index(c)
        columns[f"{PATHS[c]}/value"] = q[:, k]
        columns[f"{PATHS[c]}/speed"] = u[:, k]
    columns["/forceset/knee_act/activation"] = np.full_like(t, 0.5)
    path = write_table(tmp_path / "states.sto", columns, t, in_degrees=False)
    assert path.read_text().splitlines()[0] != "version=1"    # OpenSim's own header
    back = kt.Trajectory.from_sto(path, model)
    np.testing.assert_array_equal(back.t, opensim_reads(path, "time"))
    for k, c in enumerate(PATHS):
        np.testing.assert_array_equal(back.q[:, k], opensim_reads(path, f"{PATHS[c]}/value"))
        np.testing.assert_array_equal(back.u[:, k], opensim_reads(path, f"{PATHS[c]}/speed"))
    np.testing.assert_allclose(back.q, q, rtol=1e-15, atol=1e-17)
    np.testing.assert_allclose(back.u, u, rtol=1e-15, atol=1e-17)
    assert list(back.columns) == ["/forceset/knee_act/activation"]
    assert back.name == "states" and back.header["version"] == "3"

    plain = kt.Trajectory.from_sto(path)                        # no model: kept as is
    assert plain.q.shape == (len(t), 0) and plain.get_labels() == ["time", *columns]
    np.testing.assert_array_equal(plain.columns["/jointset/knee_r/knee_angle_r/value"],
                                  back.q[:, 1])


def test_mot_in_degrees_converts_only_rotational_coordinates(tmp_path):
    model = leg()
    t, q, u = motion()
    deg = 180 / math.pi
    columns = {"hip_flexion_r": q[:, 0] * deg, "knee_angle_r": q[:, 1] * deg,
               "foot_tx": q[:, 2], "knee_angle_r_u": u[:, 1] * deg,
               "ground_force_vy": np.full_like(t, 700.0)}
    path = write_table(tmp_path / "ik.mot", columns, t, in_degrees=True)
    with pytest.warns(KinetreeWarning, match=r"hip_flexion_r \(speed\), foot_tx \(speed\)"):
        back = kt.Trajectory.from_sto(path, model)      # the knee's speed only
    osim_model = opensim_leg()                      # OpenSim's own conversion agrees
    for k, c in enumerate(PATHS):
        np.testing.assert_allclose(back.q[:, k], opensim_reads(path, c, osim_model),
                                   rtol=1e-15, atol=1e-17)
    np.testing.assert_allclose(back.q, q, rtol=1e-13, atol=1e-15)
    np.testing.assert_array_equal(back.q[:, 2], opensim_reads(path, "foot_tx"))  # a length
    np.testing.assert_allclose(back.u[:, 1], u[:, 1], rtol=1e-13)
    np.testing.assert_array_equal(back.columns["ground_force_vy"], 700.0)   # unconverted
    assert back.header["inDegrees"] == "yes"

    # An old-style .mot: a name line, white space between the values.
    old = tmp_path / "old.mot"
    rows = "\n".join(" ".join(f"{v:.17g}" for v in row) for row in
                     np.column_stack([t, q[:, 0] * deg, q[:, 2], q[:, 1] * deg]))
    old.write_text(f"Coordinates\nversion=1\nnRows={len(t)}\nnColumns=4\ninDegrees=yes\n"
                   f"endheader\ntime hip_flexion_r foot_tx knee_angle_r\n{rows}\n")
    again = kt.Trajectory.from_sto(old, model)
    assert again.name == "Coordinates"
    np.testing.assert_allclose(again.q, q, rtol=1e-13, atol=1e-15)
    np.testing.assert_array_equal(again.u, 0.0)                 # no speeds: the defaults

    kept = kt.Trajectory.from_sto(path)            # no model: degrees stay degrees
    np.testing.assert_array_equal(kept.columns["knee_angle_r"],
                                  opensim_reads(path, "knee_angle_r"))
    assert kept.header["inDegrees"] == "yes"


def test_coordinates_named_like_kinetree_labels_are_coordinates(tmp_path):
    """OpenSim models often call coordinates q1, q2 (its double_pendulum.osim does); such a
    column is the coordinate's, converted from degrees, not a kinetree q label."""
    model = leg()
    old = list(model.coordinates.values())
    model.coordinates = {f"q{k + 1}": Coordinate(f"q{k + 1}", c.mobilized_body, 0,
                                                 joint_name=c.joint_name,
                                                 motion_type=c.motion_type)
                         for k, c in enumerate(old)}
    t, q, _ = motion()
    path = write_table(tmp_path / "q.mot", {"q1": np.degrees(q[:, 0]), "q2":
                                            np.degrees(q[:, 1]), "q3": q[:, 2]},
                       t, in_degrees=True)
    back = kt.Trajectory.from_sto(path, model)
    np.testing.assert_allclose(back.q, q, rtol=1e-13, atol=1e-15)
    np.testing.assert_array_equal(back.q[:, 2], opensim_reads(path, "q3"))


def test_a_missing_coordinate_keeps_its_default_with_one_warning(tmp_path):
    model = leg()
    t, q, u = motion()
    path = write_table(tmp_path / "part.sto",
                       {f"{PATHS['hip_flexion_r']}/value": q[:, 0],
                        f"{PATHS['hip_flexion_r']}/speed": u[:, 0],
                        f"{PATHS['foot_tx']}/value": q[:, 2]}, t, in_degrees=False)
    with pytest.warns(KinetreeWarning) as record:
        back = kt.Trajectory.from_sto(path, model)
    assert len(record) == 1
    message = str(record[0].message)
    assert "knee_angle_r" in message and "foot_tx (speed)" in message
    assert "hip_flexion_r" not in message
    np.testing.assert_array_equal(back.q[:, 1], KNEE_DEFAULT)
    np.testing.assert_allclose(back.q[:, [0, 2]], q[:, [0, 2]], rtol=1e-15, atol=1e-17)
    np.testing.assert_array_equal(back.u[:, 1:], 0.0)

    full = write_table(tmp_path / "full.sto", {c: q[:, j] for j, c in enumerate(PATHS)}, t,
                       in_degrees=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")             # values only: speeds silently default
        kt.Trajectory.from_sto(full, model)


def test_bad_storage_files_are_refused(tmp_path):
    model = leg()
    t, q, u = motion()
    twice = write_table(tmp_path / "twice.sto", {"knee_angle_r": q[:, 1],
                                                 f"{PATHS['knee_angle_r']}/value": q[:, 1]},
                        t, in_degrees=False)
    with pytest.raises(InvalidArgumentError, match="two columns"):
        kt.Trajectory.from_sto(twice, model)
    mine = kt.Trajectory(t, q, u).to_sto(tmp_path / "mine.sto")
    mine.write_text(mine.read_text().replace("inDegrees=no", "inDegrees=yes"))
    with pytest.raises(InvalidArgumentError, match="radians"):
        kt.Trajectory.from_sto(mine, model)
    with pytest.raises(InvalidArgumentError, match="model="):
        kt.Trajectory.from_sto(mine)
    with pytest.raises(InvalidArgumentError, match=r"\(nq, nu\)"):
        kt.Trajectory(t, q[:, :2], u[:, :2]).to_sto(tmp_path / "short.sto", model)
    model.coordinates["foot_tx"].joint_name = ""
    with pytest.raises(InvalidArgumentError, match="joint_name"):
        kt.Trajectory(t, q, u).to_sto(tmp_path / "nojoint.sto", model)


# ------------------------------------------------------------------------------ .trc
def write_trc(path, names, t, locations_mm):
    """A .trc written by OpenSim's TRCFileAdapter, in mm."""
    table = opensim.TimeSeriesTableVec3()
    table.setColumnLabels(names)
    for k, time in enumerate(t):
        table.appendRow(float(time), opensim.RowVectorVec3(
            [opensim.Vec3(*map(float, p)) for p in locations_mm[k]]))
    table.addTableMetaDataString("DataRate", "100")
    table.addTableMetaDataString("CameraRate", "100")
    table.addTableMetaDataString("Units", "mm")
    opensim.TRCFileAdapter.write(table, str(path))
    return path


def test_trc_written_by_opensim_in_mm_reads_in_metres(tmp_path):
    rng = np.random.default_rng(3)
    t = np.arange(6) / 100
    mm = rng.uniform(-900, 900, (6, 3, 3))
    mm[2, 1] = np.nan                               # marker B not seen in frame 2
    path = write_trc(tmp_path / "walk.trc", ["A", "B", "C"], t, mm)
    table = kt.read_trc(path)
    assert table.marker_names == ["A", "B", "C"] and len(table) == 6
    assert table.units == "mm" and table.data_rate == 100 and table.camera_rate == 100
    np.testing.assert_array_equal(table.times, t)
    np.testing.assert_array_equal(table.frame_numbers, np.arange(1, 7))
    np.testing.assert_allclose(table.locations, mm / 1000, rtol=1e-15, equal_nan=True)
    assert np.isnan(table.locations[2, 1]).all() and np.isfinite(table.locations[3]).all()
    np.testing.assert_allclose(table.get_marker_locations("C"), mm[:, 2] / 1000, rtol=1e-15)

    # OpenSim reads the same numbers from the file (its own reader, still in mm).
    ours = opensim.TimeSeriesTableVec3(str(path))
    c = ours.getDependentColumn("C")
    np.testing.assert_allclose([[c[k][i] for i in range(3)] for k in range(6)],
                               table.get_marker_locations("C") * 1000, rtol=1e-15)


def test_vicon_style_trc_with_empty_cells(tmp_path):
    path = tmp_path / "vicon.trc"
    path.write_text(
        "PathFileType\t4\t(X/Y/Z)\tvicon.trc\n"
        "DataRate\tCameraRate\tNumFrames\tNumMarkers\tUnits\tOrigDataRate\t"
        "OrigDataStartFrame\tOrigNumFrames\n"
        "200\t200\t3\t2\tm\t200\t1\t3\n"
        "Frame#\tTime\tLASI\t\t\tRASI\n"
        "\t\tX1\tY1\tZ1\tX2\tY2\tZ2\n"
        "\n"
        "1\t0.000\t0.1\t0.9\t-0.1\t0.1\t0.9\t0.1\n"
        "2\t0.005\t\t\t\t0.11\t0.9\t0.1\n"              # LASI missing: empty cells
        "3\t0.010\t0.12\t0.9\t-0.1\n")                  # RASI missing: cells left off
    table = kt.read_trc(path)
    assert table.marker_names == ["LASI", "RASI"] and table.header["OrigDataRate"] == "200"
    np.testing.assert_array_equal(table.times, [0.0, 0.005, 0.010])
    np.testing.assert_array_equal(table.locations[0], [[0.1, 0.9, -0.1], [0.1, 0.9, 0.1]])
    assert np.isnan(table.locations[1, 0]).all() and np.isnan(table.locations[2, 1]).all()
    np.testing.assert_array_equal(table.locations[2, 0], [0.12, 0.9, -0.1])
    path.write_text(path.read_text().replace("\tm\t", "\tinches\t"))
    with pytest.raises(InvalidArgumentError, match="mm, cm or m"):
        kt.read_trc(path)


def test_trc_drives_inverse_kinematics(tmp_path):
    """Markers seen on a known motion, written in mm by OpenSim with one goal marker
    absent and one extra, are tracked back to the motion's q."""
    model = leg()
    markers = model.markers
    t, q, _ = motion()
    state = model.get_default_state()
    truth = []
    for row in q:
        state.set_q(row)
        model.system.realize(state, kt.Stage.POSITION)
        truth.append([markers.get_marker_body(m).find_station_location_in_ground(
            state, markers.get_marker_station(m)) for m in range(markers.get_num_markers())])
    truth = np.array(truth)
    names = ["TOE", "SHN", "EXTRA", "ANK", "THI"]        # KNE is not in the file
    columns = [markers.get_marker_index(s) if s != "EXTRA" else 0 for s in names]
    path = write_trc(tmp_path / "leg.trc", names, t, 1000 * truth[:, columns])
    table = kt.read_trc(path)

    with pytest.warns(KinetreeWarning, match="KNE"):
        frames = table.observations_for(markers)
    assert frames.shape == (len(t), 4, 3)
    assert [markers.get_marker_index_for_observation(i) for i in range(4)] == \
        [markers.get_marker_index(s) for s in ("TOE", "SHN", "ANK", "THI")]
    assembler = kt.Assembler(model.system)
    assembler.set_accuracy(1e-10)
    assembler.adopt_assembly_goal(markers)
    work = model.get_default_state()
    work.set_q(q[0] + 0.05)
    markers.move_all_observations(frames[0])
    assembler.assemble(work)
    for k in range(1, len(t)):
        markers.move_all_observations(frames[k])
        assembler.track(table.times[k])
    assembler.update_from_internal_state(work)
    np.testing.assert_allclose(work.get_q(), q[-1], atol=1e-6)
    with pytest.raises(InvalidArgumentError, match="no marker of the file"):
        kt.read_trc(path).observations_for(kt.Markers())


@pytest.mark.parametrize("times,match", [
    ("0.0\n0.1\nnan\n0.3", "data row 3 has the time nan"),
    ("0.0\ninf\n0.2", "data row 2 has the time inf"),
    ("0.0\n0.2\n0.1\n0.3", "data row 3 goes back in time"),
])
def test_a_storage_file_with_bad_times_is_refused_naming_the_row(tmp_path, times, match):
    rows = "\n".join(f"{t}\t{k}" for k, t in enumerate(times.split("\n")))
    path = tmp_path / "bad.sto"
    path.write_text(f"bad\nversion=1\nendheader\ntime\tq0\n{rows}\n")
    with pytest.raises(kt.errors.InvalidArgumentError, match=match) as caught:
        kt.Trajectory.from_sto(path)
    assert "bad.sto" in str(caught.value)

"""A storage file (.sto, .mot) with a missing value (NaN or an empty cell) in a value
column: every row is read, one warning names the file, the line and the column when that
column becomes q, u or z, and a State is never made from such a row (``states()`` refuses
it naming the row, the line and the column); a missing value in another column is data
OpenSim files often have and is kept silently."""

import warnings

import numpy as np
import pytest

import kinetree as kt
from kinetree.errors import InvalidArgumentError, KinetreeWarning
from kinetree.io.model import Coordinate, Model


def pendulum():
    """A Model of one Pin, coordinate knee_angle_r of joint knee_r."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    link = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(0.01)))
    shank = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), link,
                                 kt.Transform([0, 0.2, 0]))
    model = Model("leg", system, matter, forces)
    model.bodies = {"ground": matter.Ground(), "shank": shank}
    model.coordinates = {"knee_angle_r": Coordinate("knee_angle_r", shank, 0,
                                                    joint_name="knee_r")}
    return model


def storage(path, labels, rows):
    """A storage file (header lines 1-3, labels on line 4, the rows from line 5)."""
    path.write_text("motion\nversion=1\nendheader\n" + "\t".join(labels) + "\n"
                    + "".join("\t".join(row) + "\n" for row in rows))
    return path


@pytest.mark.parametrize("cell", ["NaN", "nan", ""])
def test_a_missing_coordinate_value_keeps_every_row_and_names_its_line(tmp_path, cell):
    path = storage(tmp_path / "walk.sto", ["time", "q0", "u0", "marker_error"],
                   [["0.0", "0.1", "1.0", "0.002"], ["0.1", cell, "1.0", "0.002"],
                    ["0.2", "0.3", "1.0", "0.002"]])
    with pytest.warns(KinetreeWarning) as record:
        traj = kt.Trajectory.from_sto(path)
    assert len(record) == 1
    message = str(record[0].message)
    for part in ("walk.sto", "1 missing value(s)", "line 6 column 'q0'",
                 "fill the values in"):
        assert part in message
    assert len(traj) == 3 and np.isnan(traj.q[1, 0])
    np.testing.assert_array_equal(traj.q[[0, 2], 0], [0.1, 0.3])

    template = pendulum().system.realize_topology()
    with pytest.raises(InvalidArgumentError) as caught:
        traj.states(template)
    message = str(caught.value)
    for part in ("row 1 (t = 0.1 s)", f"line 6 of {path}", "nan in column 'q0'",
                 "fill the value in"):
        assert part in message


def test_a_missing_value_read_with_a_model_names_the_files_column(tmp_path):
    label = "/jointset/knee_r/knee_angle_r/value"
    path = storage(tmp_path / "ik.sto", ["time", label],
                   [["0.0", "0.1"], ["0.1", "0.2"], ["0.2", "NaN"], ["0.3", "nan"]])
    with pytest.warns(KinetreeWarning, match=rf"ik.sto: 2 missing value\(s\) .* at line 7 "
                                             rf"column '{label}'; line 8 column '{label}'"):
        traj = kt.Trajectory.from_sto(path, pendulum())
    assert len(traj) == 4
    np.testing.assert_array_equal(traj.q[:2, 0], [0.1, 0.2])
    with pytest.raises(InvalidArgumentError, match=rf"row 2 \(t = 0.2 s\) \(line 7 of .*ik.sto"
                                                   rf"\) has nan in column '{label}'"):
        traj.states()


def test_a_missing_value_outside_the_coordinates_is_kept_silently(tmp_path):
    path = storage(tmp_path / "grf.mot", ["time", "q0", "u0", "ground_force_vy"],
                   [["0.0", "0.1", "1.0", "700"], ["0.1", "0.2", "1.0", "NaN"]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        traj = kt.Trajectory.from_sto(path)
    assert np.isnan(traj.columns["ground_force_vy"][1])
    states = traj.states(pendulum().system.realize_topology())
    assert [s.get_q()[0] for s in states] == [0.1, 0.2]

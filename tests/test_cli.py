"""The command line says what is wrong with a bad file or argument in one line, without a
traceback, and exits with status 1."""

from pathlib import Path

import pytest

from kinetree import cli

MODELS = Path(__file__).parents[1] / "models"


@pytest.mark.parametrize("arguments,match", [
    (["--t-final", "-1"], "t_final = -1.0 s is not after"),
    (["--accuracy", "5"], "above 1"),
])
def test_a_bad_argument_is_one_line_and_status_1(tmp_path, capsys, arguments, match):
    model = str(MODELS / "opensim" / "double_pendulum.osim")
    status = cli.main(["simulate", model, "--out", str(tmp_path), *arguments])
    err = capsys.readouterr().err.strip()
    assert status == 1
    assert "Traceback" not in err
    last = err.splitlines()[-1]                 # after the loader's notes, if any
    assert last.startswith("kinetree simulate: ") and match in last


def test_an_opensim_landing_runs_at_opensims_default_accuracy(tmp_path, capsys):
    """ToyLandingModel's 70 muscles land with the body: at Simbody's default accuracy
    (1e-3) a fiber state runs away within 0.15 s, at OpenSim's tools' default (1e-5, the
    command's default for an .osim file) the landing runs through."""
    model = str(MODELS / "opensim" / "ToyLandingModel.osim")
    assert cli.main(["simulate", model, "--t-final", "0.2", "--out", str(tmp_path)]) == 0
    assert "0.2 s simulated" in capsys.readouterr().out
    assert (tmp_path / "ToyLandingModel.sto").exists()
    assert cli.main(["simulate", model, "--t-final", "0.2", "--accuracy", "1e-3",
                     "--out", str(tmp_path)]) == 1
    assert "far from equilibrium" in capsys.readouterr().err

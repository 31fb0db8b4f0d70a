"""Standalone replays: which rows become frames, what the page holds, and the errors and
command line around them (the page playing in a browser is in test_browser.py)."""

import base64

import numpy as np
import pytest
import zstandard
from support import world

import kinetree as kt
from kinetree import cli
from kinetree.errors import InvalidArgumentError
from kinetree.viz.replay import frame_rows


def test_frames_are_rows_at_least_a_frame_period_apart():
    t = np.arange(0, 1.0001, 0.004)
    rows = frame_rows(t, 30)
    assert rows[0] == 0 and rows[-1] == t.size - 1
    assert np.all(np.diff(t[rows])[:-1] >= 1 / 30 - 1e-12)
    assert np.all(np.diff(t[rows]) < 1 / 30 + 0.004 + 1e-12)
    np.testing.assert_array_equal(frame_rows(t[:3], 30), [0, 2])


def pendulum_run():
    system, matter, forces, link = world()
    link.add_decoration(kt.Transform([0, -0.5, 0]), kt.DecorativeSphere(0.1))
    pin = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), link, kt.Transform())
    state = system.realize_topology()
    pin.set_one_q(state, 0, 1.0)
    return system, kt.simulate(system, state, 1.0, report_interval=0.01, progress=False)


def recording(path) -> bytes:
    """The decompressed scene recording a replay page embeds."""
    text = path.read_text()
    data = base64.b64decode(text.split('__VISER_EMBED_DATA__="')[1].split('"')[0])
    return zstandard.ZstdDecompressor().decompress(data[8:], max_output_size=1 << 30)


def test_the_page_holds_every_frame_with_its_time(tmp_path):
    system, traj = pendulum_run()
    path = traj.to_html(tmp_path / "run.html", title="pendulum")
    assert "<title>pendulum</title>" in path.read_text()
    payload = recording(path)
    # 31 frames at 30 per simulated second over 1 s, each moving the sphere's batch.
    assert payload.count(b"/fixed/0") >= 31
    assert 0.99 <= _duration(payload) <= 1.01


def _duration(payload: bytes) -> float:
    import msgspec

    n = int.from_bytes(payload[:8], "little")
    return msgspec.msgpack.decode(payload[8:8 + n])["durationSeconds"]


def test_a_trajectory_from_a_file_needs_its_system(tmp_path):
    system, traj = pendulum_run()
    back = kt.Trajectory.from_csv(traj.to_csv(tmp_path / "run.csv"))
    with pytest.raises(InvalidArgumentError, match="pass it"):
        back.to_html(tmp_path / "a.html")
    assert back.to_html(tmp_path / "b.html", system).exists()
    other, _, _, link = world()
    with pytest.raises(InvalidArgumentError, match="nq, nu, nz"):
        back.to_html(tmp_path / "c.html", other)


def test_view_opens_replays_and_explains_other_files(tmp_path, monkeypatch, capsys):
    opened = []
    monkeypatch.setattr("webbrowser.open", lambda url: opened.append(url) or True)
    page = tmp_path / "run.html"
    page.write_text("<html></html>")
    assert cli.main(["view", str(page)]) == 0
    assert opened == [page.resolve().as_uri()]
    assert cli.main(["view", str(tmp_path / "run.sto")]) == 1
    (tmp_path / "run.sto").write_text("x")
    assert cli.main(["view", str(tmp_path / "run.sto")]) == 1
    assert "to_html" in capsys.readouterr().err

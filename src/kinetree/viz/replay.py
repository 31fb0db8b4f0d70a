"""Standalone replays: a Trajectory drawn into one HTML file that plays offline.

The scene is built as a Visualizer builds it, in a viser server that lives only while the
file is written; viser's scene serializer records the frames, spaced by the simulated time
between them, and embeds the recording in its single-file web client, which has
play/pause, a time slider, a speed menu and the camera.
"""

from __future__ import annotations

import html
from pathlib import Path

import numpy as np

from kinetree.errors import InvalidArgumentError
from kinetree.viz.scene import Scene, start_server, stop_server


def frame_rows(t: np.ndarray, frame_rate: float) -> np.ndarray:
    """Indices of the rows to draw: the first, then each row at least 1/frame_rate of
    simulated time after the last one kept, and the last."""
    if t.size == 0:
        return np.zeros(0, dtype=int)
    kept, last = [0], t[0]
    for i in range(1, t.size):
        if t[i] - last >= 1.0 / frame_rate - 1e-12:
            kept.append(i)
            last = t[i]
    if kept[-1] != t.size - 1:
        kept.append(t.size - 1)
    return np.array(kept)


def write_replay(traj, path, system=None, *, frame_rate: float = 30.0,
                 title: str | None = None) -> Path:
    """Write ``traj`` as a standalone replay page at ``path`` (see
    ``Trajectory.to_html``)."""
    where = "Trajectory.to_html"
    system = traj.system if system is None else system
    if system is None:
        raise InvalidArgumentError(
            f"{where}: this Trajectory does not know the System that made it (it was read "
            f"from a file); pass it: traj.to_html(path, system).")
    if not (float(frame_rate) > 0 and np.isfinite(frame_rate)):
        raise InvalidArgumentError(f"{where}: frame_rate must be positive, got {frame_rate!r}.")
    if len(traj) == 0:
        raise InvalidArgumentError(f"{where}: the Trajectory has no rows to replay.")
    template = traj._checked_template(
        system.get_default_state() if traj._recorded_template() is None else None, where)
    rows = frame_rows(np.asarray(traj.t), float(frame_rate))
    server = start_server("127.0.0.1", 0)
    try:
        first = traj._row_state(template, rows[0])
        scene = Scene(server, system, first)
        scene.fit_view(server, scene.frame_of(first))
        scene.show(scene.frame_of(first))
        recording = server.get_scene_serializer()
        for k, i in enumerate(rows):
            scene.show(scene.frame_of(traj._row_state(template, i)))
            if k + 1 < rows.size:
                recording.insert_sleep(float(traj.t[rows[k + 1]] - traj.t[i]))
        page = recording.as_html()
    finally:
        stop_server(server)
    name = html.escape(title or f"{traj.name}: kinetree replay")
    page = page.replace("<title>Viser</title>", f"<title>{name}</title>", 1)
    path = Path(path)
    path.write_text(page, encoding="utf-8")
    return path

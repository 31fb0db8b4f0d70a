"""The viewer's muscles: each path drawn as lines through its current points (wrap
tangent points included), red for an active muscle and blue for a resting one, as
OpenSim's GUI colours them."""

import warnings
from pathlib import Path

import numpy as np
import pytest

import kinetree as kt
from kinetree.io import OsimSkippedWarning, load_osim
from kinetree.viz import scene

MODELS = Path(__file__).resolve().parents[2] / "models" / "opensim"


def test_each_path_is_drawn_through_its_points_coloured_by_activation():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OsimSkippedWarning)
        model = load_osim(MODELS / "arm26.osim")
    state = model.get_default_state()
    model.coordinates["r_elbow_flex"].set_value(state, 1.2)
    model.muscles["BIClong"].set_activation(state, 1.0)
    model.muscles["TRIlong"].set_activation(state, 0.0)
    frame = scene.frame_of(model.system, state,
                           implementations=scene._implementations(model.system))
    lines = [g for _, g in frame.generated if isinstance(g, kt.DecorativeLine)]
    colors = {"BIClong": [1, 0, 0], "TRIlong": [0, 0, 1]}
    at = 0
    for name, muscle in model.muscles.items():       # drawn in the model's order
        points = muscle.get_current_path(state)
        for p1, p2, g in zip(points[:-1], points[1:], lines[at:]):
            np.testing.assert_array_equal(g.get_point1(), p1)
            np.testing.assert_array_equal(g.get_point2(), p2)
            if name in colors:
                np.testing.assert_array_equal(g.get_color(), colors[name])
        at += len(points) - 1
    assert at == len(lines)
    # a wrapped path is drawn over its tangent points: some wrap at this pose
    assert any(len(m.get_current_path(state)) > len(m.path.points)
               for m in model.muscles.values())



def test_a_muscles_path_answers_for_itself():
    """``muscle.path`` gives the muscle's path length, speed, moment arm and points."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OsimSkippedWarning)
        model = load_osim(MODELS / "arm26.osim")
    state = model.get_default_state()
    model.coordinates["r_elbow_flex"].set_speed_value(state, 0.5)
    model.system.realize(state, kt.Stage.VELOCITY)
    muscle, elbow = model.muscles["BIClong"], model.coordinates["r_elbow_flex"]
    assert muscle.path.get_length(state) == muscle.get_length(state) > 0.0
    assert muscle.path.get_lengthening_speed(state) == muscle.get_lengthening_speed(state)
    # the path shortens as the elbow flexes at 0.5 rad/s: speed = -r u
    arm = muscle.path.compute_moment_arm(state, elbow)
    assert muscle.get_lengthening_speed(state) == pytest.approx(-arm * 0.5, rel=1e-9)
    np.testing.assert_array_equal(muscle.path.get_current_path(state),
                                  muscle.get_current_path(state))

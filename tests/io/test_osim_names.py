"""A model file naming two components of one set alike (two Bodies "rod1") is refused, as
OpenSim refuses it: the second would silently stand for the first."""

import pytest
from osim_xml import body, document, joint

import kinetree as kt


def two_links(second_body="rod2", second_coordinate="q2"):
    bodies = [body("rod1", 1.0, (0, -0.5, 0), (0.1, 0.01, 0.1, 0, 0, 0)),
              body(second_body, 2.0, (0, -0.5, 0), (0.1, 0.01, 0.1, 0, 0, 0))]
    joints = [joint("PinJoint", "j1", "ground", (0, 0, 0), "rod1", (0, 0, 0), [("q1", 0.1)]),
              joint("PinJoint", "j2", "rod1", (0, -1, 0), second_body, (0, 0, 0),
                    [(second_coordinate, 0.2)])]
    return document("two_links", bodies, joints)


def test_the_same_model_with_distinct_names_loads(tmp_path):
    path = tmp_path / "ok.osim"
    path.write_text(two_links())
    model = kt.io.load_osim(path)
    assert set(model.bodies) >= {"rod1", "rod2"}


@pytest.mark.parametrize("changes,match", [
    (dict(second_body="rod1"), "two Body elements of its BodySet are named 'rod1'"),
    (dict(second_coordinate="q1"), "two Coordinate elements of its joints' coordinates"),
])
def test_duplicate_names_are_refused(tmp_path, changes, match):
    path = tmp_path / "twins.osim"
    path.write_text(two_links(**changes))
    with pytest.raises(kt.io.OsimError, match=match):
        kt.io.load_osim(path)


def test_a_component_kept_outside_the_sets_is_listed_as_skipped(tmp_path):
    """An element among the Model's own <components> (where Moco's models keep some) that
    kinetree does not build is named in model.skipped, not dropped silently; an offset
    frame there is used, not listed."""
    text = two_links().replace(
        "</JointSet>",
        '</JointSet><components><PhysicalOffsetFrame name="tip"><socket_parent>'
        '/bodyset/rod2</socket_parent><translation>0 -1 0</translation><orientation>0 0 0'
        '</orientation></PhysicalOffsetFrame><ClutchedPathSpring name="clutch">'
        '</ClutchedPathSpring></components>')
    path = tmp_path / "hidden.osim"
    path.write_text(text)
    with pytest.warns(kt.io.OsimSkippedWarning, match="ClutchedPathSpring 'clutch'"):
        model = kt.io.load_osim(path)
    assert [s for s in model.skipped if "clutch" in s] == [
        "ClutchedPathSpring 'clutch' (a component of the Model itself, outside its sets: "
        "not built)"]
    assert not [s for s in model.skipped if "tip" in s]

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

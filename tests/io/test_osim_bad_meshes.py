"""An .osim model whose mesh file is there but is not a mesh (empty, garbage bytes, text):
a body's Mesh is only drawn, so the model loads without it and one warning names the body,
the file and why; a ContactMesh, which the dynamics need, is refused naming the element."""

import pytest
from osim_xml import body, document, joint

from kinetree.io import OsimError, OsimSkippedWarning, load_osim

TRIANGLE = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"

NOT_MESHES = {
    "empty.vtp": (b"", "the file is empty"),
    "garbage.obj": (bytes(range(256)) * 8, "no triangles could be read from it as a .obj file"),
    "notes.stl": (b"a note, not a mesh\n", "no triangles could be read from it as a .stl file"),
    "broken.vtp": (b"\x00\xff<VTKFile", "broken.vtp is not valid XML"),
}


def rod(*meshes: str, extra: str = "") -> str:
    """One body 'rod' on a pin from Ground, drawn with the mesh files ``meshes`` (Mesh
    elements 'm0', 'm1', ...)."""
    geometry = "".join(f'<Mesh name="m{k}"><mesh_file>{m}</mesh_file></Mesh>'
                       for k, m in enumerate(meshes))
    bodies = [body("rod", 1.0, (0, -0.5, 0), (0.1, 0.01, 0.1, 0, 0, 0),
                   extra=f"<attached_geometry>{geometry}</attached_geometry>")]
    joints = [joint("PinJoint", "j", "ground", (0, 0, 0), "rod", (0, 0, 0), [("q", 0.1)])]
    return document("rod", bodies, joints, extra)


@pytest.mark.parametrize("name", NOT_MESHES)
def test_a_mesh_file_that_is_not_a_mesh_is_left_out_naming_the_body(tmp_path, name):
    data, why = NOT_MESHES[name]
    (tmp_path / name).write_bytes(data)
    (tmp_path / "good.obj").write_text(TRIANGLE)
    path = tmp_path / "rod.osim"
    path.write_text(rod(name, "good.obj"))
    with pytest.warns(OsimSkippedWarning) as record:
        model = load_osim(path)
    message = " ".join(str(w.message) for w in record)
    for part in ("rod.osim", "Mesh 'm0' on Body 'rod'", f"mesh_file {name!r}", why,
                 "remove the Mesh"):
        assert part in message
    assert "good.obj" not in message
    assert model.bodies["rod"].get_body().get_num_decorations() == 1     # good.obj drawn
    assert [s.split(" (")[0] for s in model.skipped] == ["Mesh 'm0' on Body 'rod'"]
    model.get_default_state()


def sole_on_floor(filename: str) -> str:
    """The XML of a ContactMesh 'sole' on the rod, read from ``filename``, against a
    half-space floor, under an ElasticFoundationForce 'feet'."""
    return ('<ContactGeometrySet><objects>'
            '<ContactMesh name="sole"><socket_frame>/bodyset/rod</socket_frame>'
            f'<filename>{filename}</filename></ContactMesh>'
            '<ContactHalfSpace name="floor"><socket_frame>/ground</socket_frame>'
            '</ContactHalfSpace></objects></ContactGeometrySet>'
            '<ForceSet><objects><ElasticFoundationForce name="feet">'
            '<ElasticFoundationForce::ContactParametersSet><objects>'
            '<ElasticFoundationForce::ContactParameters><geometry>sole floor</geometry>'
            '<stiffness>1e6</stiffness></ElasticFoundationForce::ContactParameters>'
            '</objects></ElasticFoundationForce::ContactParametersSet>'
            '</ElasticFoundationForce></objects></ForceSet>')


def test_a_contact_mesh_that_is_not_a_mesh_is_refused_naming_it(tmp_path):
    (tmp_path / "foot.obj").write_text("a note, not a mesh\n")
    contact = sole_on_floor("foot.obj")
    path = tmp_path / "feet.osim"
    path.write_text(rod(extra=contact))
    with pytest.raises(OsimError) as caught:
        load_osim(path)
    message = str(caught.value)
    for part in ("feet.osim", "ContactMesh 'sole' on /bodyset/rod",
                 "ElasticFoundationForce 'feet'", "foot.obj", "closed triangle mesh"):
        assert part in message


def test_a_contact_mesh_outside_the_models_folder_is_refused(tmp_path):
    """A ContactMesh, like a Mesh, reads nothing outside the model's folders: a file from
    someone else reaches no other part of the disk."""
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "foot.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
    folder = tmp_path / "model"
    folder.mkdir()
    contact = sole_on_floor("../elsewhere/foot.obj")
    path = folder / "feet.osim"
    path.write_text(rod(extra=contact))
    with pytest.raises(OsimError, match=r"'\.\./elsewhere/foot\.obj' lies outside the "
                                        r"model's folders"):
        load_osim(path)


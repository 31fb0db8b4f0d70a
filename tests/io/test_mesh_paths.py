"""A model file from someone else reads meshes from its own folders only: a mesh path
leading outside them (``../x.obj``, an absolute path, ``file:///...``) is not read, and
the loader says so, unless the caller names that folder in ``geometry_dirs``."""

import warnings

import pytest
from osim_xml import body, document, joint

import kinetree as kt

TRIANGLE = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"


def urdf(filename: str) -> str:
    return f"""<robot name="r">
  <link name="base"><inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1"
    ixy="0" ixz="0" iyz="0"/></inertial>
    <visual><geometry><mesh filename="{filename}"/></geometry></visual></link>
</robot>"""


@pytest.fixture
def outside(tmp_path):
    """A model folder, and a mesh in the folder above it."""
    (tmp_path / "secret.obj").write_text(TRIANGLE)
    folder = tmp_path / "model"
    folder.mkdir()
    return folder, tmp_path / "secret.obj"


@pytest.mark.parametrize("name", ["../secret.obj", "ABSOLUTE", "file://ABSOLUTE"])
def test_a_urdf_mesh_outside_its_folder_is_not_read(outside, name):
    folder, mesh = outside
    path = folder / "r.urdf"
    path.write_text(urdf(name.replace("ABSOLUTE", str(mesh))))
    with pytest.warns(kt.errors.KinetreeWarning, match="outside the URDF's folder"):
        model = kt.io.load_urdf(path)
    assert model.bodies["base"].get_body().get_num_decorations() == 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        allowed = kt.io.load_urdf(path, geometry_dirs=[mesh.parent])
    assert allowed.bodies["base"].get_body().get_num_decorations() == 1


def osim(mesh_file: str) -> str:
    mesh = (f'<attached_geometry><Mesh name="m"><mesh_file>{mesh_file}</mesh_file></Mesh>'
            f'</attached_geometry>')
    bodies = [body("rod", 1.0, (0, -0.5, 0), (0.1, 0.01, 0.1, 0, 0, 0), extra=mesh)]
    joints = [joint("PinJoint", "j", "ground", (0, 0, 0), "rod", (0, 0, 0), [("q", 0.1)])]
    return document("one", bodies, joints)


def test_an_osim_mesh_outside_its_folders_is_not_read(outside):
    folder, mesh = outside
    path = folder / "one.osim"
    path.write_text(osim("../secret.obj"))
    with pytest.warns(UserWarning, match="outside the model's folders not read"):
        model = kt.io.load_osim(path)
    assert model.bodies["rod"].get_body().get_num_decorations() == 0
    allowed = kt.io.load_osim(path, geometry_dirs=[mesh.parent])
    assert allowed.bodies["rod"].get_body().get_num_decorations() == 1

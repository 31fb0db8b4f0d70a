"""URDF import: robots written here in URDF are loaded and checked against computations that
share nothing with kinetree's, from the same URDF numbers: link poses against forward
kinematics with 4x4 matrices (URDF's rpy and axis conventions written out), the mass
matrix against Σ Jᵀ Φ J with geometric Jacobians, accelerations against a textbook double
pendulum, against M⁻¹ Jᵀ F for gravity, and against Pinocchio's ABA on the same file; a
mimic joint's coupling through a simulation and its reduced dynamics; limits, meshes and
primitives in the viewer's scene; and the errors bad files give."""

import math
import warnings
from pathlib import Path

import numpy as np
import pytest
import trimesh
from support import Recorder

import kinetree as kt
from kinetree.errors import InvalidArgumentError, KinetreeWarning, NonPhysicalError
from kinetree.viz import scene as viz_scene

G = np.array([0.0, 0.0, -9.81])


# ------------------------------------------------------------- URDF from Python data
def fmt(*values) -> str:
    return " ".join(repr(float(v)) for v in values)


def link_xml(name, mass=None, com=(0, 0, 0), com_rpy=(0, 0, 0), inertia=None, extra=""):
    """A <link>; ``inertia`` the six URDF values ixx, ixy, ixz, iyy, iyz, izz."""
    if mass is None:
        return f'<link name="{name}">{extra}</link>\n'
    ixx, ixy, ixz, iyy, iyz, izz = inertia
    return (f'<link name="{name}"><inertial><origin xyz="{fmt(*com)}" rpy="{fmt(*com_rpy)}"/>'
            f'<mass value="{fmt(mass)}"/><inertia ixx="{fmt(ixx)}" ixy="{fmt(ixy)}" '
            f'ixz="{fmt(ixz)}" iyy="{fmt(iyy)}" iyz="{fmt(iyz)}" izz="{fmt(izz)}"/>'
            f'</inertial>{extra}</link>\n')


def joint_xml(j) -> str:
    inner = (f'<parent link="{j["parent"]}"/><child link="{j["child"]}"/>'
             f'<origin xyz="{fmt(*j["xyz"])}" rpy="{fmt(*j["rpy"])}"/>')
    if "axis" in j:
        inner += f'<axis xyz="{fmt(*j["axis"])}"/>'
    if "limit" in j:
        lo, hi, effort, velocity = j["limit"]
        inner += (f'<limit lower="{fmt(lo)}" upper="{fmt(hi)}" effort="{fmt(effort)}" '
                  f'velocity="{fmt(velocity)}"/>')
    if "mimic" in j:
        master, multiplier, offset = j["mimic"]
        inner += f'<mimic joint="{master}" multiplier="{fmt(multiplier)}" offset="{fmt(offset)}"/>'
    return f'<joint name="{j["name"]}" type="{j["type"]}">{inner}{j.get("extra", "")}</joint>\n'


def robot_xml(name, links, joints, extra="") -> str:
    body = "".join(link_xml(**link) for link in links) + "".join(joint_xml(j) for j in joints)
    return f'<?xml version="1.0"?>\n<robot name="{name}">\n{body}{extra}</robot>\n'


def write(tmp_path, text, name="robot.urdf"):
    path = tmp_path / name
    path.write_text(text)
    return path


def random_inertial(rng, mass_range=(0.5, 2.0), size=0.3):
    """A link's inertial: mass, mass centre, inertial-frame rpy and the inertia of a box
    (so physical) about the mass centre, turned by a random rotation."""
    mass = rng.uniform(*mass_range)
    a, b, c = rng.uniform(0.05, size, 3)
    moments = mass / 3 * np.array([b * b + c * c, a * a + c * c, a * a + b * b])
    R = rpy_matrix(rng.uniform(-math.pi, math.pi, 3))
    inertia = R @ np.diag(moments) @ R.T
    return dict(mass=mass, com=rng.uniform(-0.2, 0.2, 3),
                com_rpy=rng.uniform(-math.pi, math.pi, 3),
                inertia=tuple(inertia[[0, 0, 0, 1, 1, 2], [0, 1, 2, 1, 2, 2]]))


def unit(v):
    v = np.asarray(v, dtype=float)
    return v / np.linalg.norm(v)


# -------------------------------------------- independent kinematics and dynamics
def rpy_matrix(rpy):
    """URDF's rpy: roll about fixed x, pitch about fixed y, yaw about fixed z."""
    r, p, y = rpy
    cr, sr, cp, sp, cy, sy = (math.cos(r), math.sin(r), math.cos(p), math.sin(p),
                              math.cos(y), math.sin(y))
    Rx = np.array([[1, 0, 0], [0, cr, -sr], [0, sr, cr]])
    Ry = np.array([[cp, 0, sp], [0, 1, 0], [-sp, 0, cp]])
    Rz = np.array([[cy, -sy, 0], [sy, cy, 0], [0, 0, 1]])
    return Rz @ Ry @ Rx


def rodrigues(axis, angle):
    k = unit(axis)
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + math.sin(angle) * K + (1 - math.cos(angle)) * K @ K


def hom(R=None, p=(0, 0, 0)):
    T = np.eye(4)
    T[:3, :3], T[:3, 3] = np.eye(3) if R is None else R, p
    return T


def skew(v):
    return np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])


def plane_directions(normal):
    """The in-plane directions of kinetree's planar joint (the x and y of the smallest
    rotation taking z to the normal, by the half-angle formula; of a half turn about x for
    the normal -z)."""
    n, z = unit(normal), np.array([0.0, 0.0, 1.0])
    v, c = np.cross(z, n), float(z @ n)
    if c == -1.0:
        return np.array([1.0, 0, 0]), np.array([0, -1.0, 0])
    R = np.eye(3) + skew(v) + skew(v) @ skew(v) / (1 + c)
    return R[:, 0], R[:, 1]


def forward_kinematics(links, joints, q, free=None):
    """Each link's 4x4 pose in Ground, and per moving joint what its Jacobian columns
    need. ``q``: joint name -> value (planar: (θ, x, y)); ``free``: joint name (or
    "root") -> 4x4 pose of the child in the joint frame."""
    free = free or {}
    names = [link["name"] for link in links]
    children = {j["child"] for j in joints}
    root = next(n for n in names if n not in children)
    T = {root: free.get("root", np.eye(4))}
    frames = {}
    pending = list(joints)
    while pending:
        for j in list(pending):
            if j["parent"] not in T:
                continue
            T_J = T[j["parent"]] @ hom(rpy_matrix(j["rpy"]), j["xyz"])
            kind = j["type"]
            if kind in ("revolute", "continuous"):
                motion = hom(rodrigues(j["axis"], q[j["name"]]))
            elif kind == "prismatic":
                motion = hom(p=unit(j["axis"]) * q[j["name"]])
            elif kind == "planar":
                theta, x, y = q[j["name"]]
                e1, e2 = plane_directions(j["axis"])
                motion = hom(rodrigues(j["axis"], theta), x * e1 + y * e2)
            elif kind == "floating":
                motion = free[j["name"]]
            else:
                motion = np.eye(4)
            T[j["child"]] = T_J @ motion
            frames[j["name"]] = T_J
            pending.remove(j)
    return T, frames


def jacobians(model, state, links, joints, T, frames, root_free):
    """Each link's 6 x nu Jacobian [ω; v of its origin] in Ground, column by column from
    the joint axes (nothing from kinetree but where each u sits in the State)."""
    nu = model.matter.get_u(state).size
    parent_joint = {j["child"]: j for j in joints}
    J = {}
    for link in links:
        name = link["name"]
        Jb = np.zeros((6, nu))
        p_b = T[name][:3, 3]
        walk = name
        while walk in parent_joint:
            j = parent_joint[walk]
            T_J, kind = frames[j["name"]], j["type"]
            R_GJ = T_J[:3, :3]
            if kind in ("revolute", "continuous", "prismatic"):
                k = model.coordinates[j["name"]].u_index
                a = R_GJ @ unit(j["axis"])
                Jb[:, k] = (np.r_[a, np.cross(a, p_b - T_J[:3, 3])] if kind != "prismatic"
                            else np.r_[0, 0, 0, a])
            elif kind == "planar":
                k = model.coordinates[j["name"] + "_rz"].u_index
                e1, e2 = plane_directions(j["axis"])
                n = R_GJ @ unit(j["axis"])
                Jb[:, k] = np.r_[n, np.cross(n, p_b - T[j["child"]][:3, 3])]
                Jb[:, k + 1] = np.r_[0, 0, 0, R_GJ @ e1]
                Jb[:, k + 2] = np.r_[0, 0, 0, R_GJ @ e2]
            elif kind == "floating":
                k = model.bodies[j["child"]].get_first_u_index(state)
                for i in range(3):
                    e = R_GJ[:, i]
                    Jb[:, k + i] = np.r_[e, np.cross(e, p_b - T[j["child"]][:3, 3])]
                    Jb[:, k + 3 + i] = np.r_[0, 0, 0, e]
            walk = j["parent"]
        if root_free:
            k = model.bodies[walk].get_first_u_index(state)
            for i in range(3):
                e = np.eye(3)[i]
                Jb[:, k + i] = np.r_[e, np.cross(e, p_b - T[walk][:3, 3])]
                Jb[:, k + 3 + i] = np.r_[0, 0, 0, e]
        J[name] = Jb
    return J


def spatial_inertia_in_ground(link, T_GL):
    """6x6 [[I_O, m c×], [-m c×, m]] of a link about its origin, in Ground, from the
    URDF's inertial (inertia about the mass centre in the inertial frame)."""
    m = link.get("mass") or 0.0
    if m == 0.0:
        return np.zeros((6, 6)), np.zeros(3)
    ixx, ixy, ixz, iyy, iyz, izz = link["inertia"]
    I_I = np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])
    R_LI = rpy_matrix(link["com_rpy"])
    R = T_GL[:3, :3] @ R_LI
    c = T_GL[:3, :3] @ np.asarray(link["com"], dtype=float)
    I_O = R @ I_I @ R.T + m * (c @ c * np.eye(3) - np.outer(c, c))
    return np.block([[I_O, m * skew(c)], [-m * skew(c), m * np.eye(3)]]), c


def mass_matrix_and_gravity(model, state, links, joints, T, frames, root_free):
    """Σ Jᵀ Φ J and Σ Jᵀ [c × m g; m g]."""
    J = jacobians(model, state, links, joints, T, frames, root_free)
    nu = model.matter.get_u(state).size
    M, f = np.zeros((nu, nu)), np.zeros(nu)
    for link in links:
        Phi, c = spatial_inertia_in_ground(link, T[link["name"]])
        m = link.get("mass") or 0.0
        M += J[link["name"]].T @ Phi @ J[link["name"]]
        f += J[link["name"]].T @ np.r_[np.cross(c, m * G), m * G]
    return M, f


def assert_poses(model, state, T):
    model.system.realize(state, kt.Stage.POSITION)
    for name, T_GL in T.items():
        np.testing.assert_allclose(model.bodies[name].get_body_transform(state).to_mat44(),
                                   T_GL, atol=1e-12, err_msg=name)


# ------------------------------------------------------------------- Pinocchio
def pinocchio_u_dot(model, state, xml, floating_base=False):
    """u̇ of the URDF ``xml`` by Pinocchio's ABA at kinetree's (q, u), in kinetree's u
    order (None when Pinocchio is not installed)."""
    try:
        import pinocchio as pin
    except ImportError:
        return None
    pm = pin.buildModelFromXML(xml, pin.JointModelFreeFlyer()) if floating_base else \
        pin.buildModelFromXML(xml)
    data = pm.createData()
    q, v = np.zeros(pm.nq), np.zeros(pm.nv)
    u = model.matter.get_u(state)
    convert = []
    for jid in range(1, pm.njoints):
        name, jm = pm.names[jid], pm.joints[jid]
        iq, iv = jm.idx_q, jm.idx_v
        if jm.nv == 6:          # a free joint: pinocchio's twist is in the moving frame
            mobod = next(b for b in model.bodies.values() if not b.is_ground()
                         and b.get_parent_mobilized_body().is_ground()) \
                if name == "root_joint" else model.bodies[_child_of(xml, name)]
            X = mobod.get_mobilizer_transform(state)
            R = X.R.as_matrix()
            k = mobod.get_first_u_index(state)
            w, vel = u[k:k + 3], u[k + 3:k + 6]
            quat = X.R.convert_rotation_to_quaternion()
            q[iq:iq + 7] = np.r_[X.p, quat[1:], quat[0]]
            v[iv:iv + 6] = np.r_[R.T @ vel, R.T @ w]
            convert.append(("free", iv, k, R, R.T @ w, R.T @ vel))
        elif jm.nv == 3:        # planar: q = (x, y, cos, sin), v in the moving frame
            k = model.coordinates[name + "_rz"].u_index
            theta, x, y = (model.coordinates[name + s].get_value(state)
                           for s in ("_rz", "_tx", "_ty"))
            c, s = math.cos(theta), math.sin(theta)
            R = np.array([[c, -s], [s, c]])
            q[iq:iq + 4] = [x, y, c, s]
            v[iv:iv + 3] = np.r_[R.T @ u[k + 1:k + 3], u[k]]
            convert.append(("planar", iv, k, R, u[k], v[iv:iv + 2].copy()))
        else:
            coord = model.coordinates[name]
            value = coord.get_value(state)
            q[iq:iq + jm.nq] = [math.cos(value), math.sin(value)] if jm.nq == 2 else value
            v[iv] = coord.get_speed_value(state)
            convert.append(("one", iv, coord.u_index, None, None, None))
    a = pin.aba(pm, data, q, v, np.zeros(pm.nv))
    u_dot = np.full(len(u), np.nan)
    for kind, iv, k, R, w, vel in convert:
        if kind == "free":      # ω̇_F = R ω̇_M; p̈ = R (v̇_M + ω_M × v_M)
            u_dot[k:k + 3] = R @ a[iv + 3:iv + 6]
            u_dot[k + 3:k + 6] = R @ (a[iv:iv + 3] + np.cross(w, vel))
        elif kind == "planar":  # p̈ = R v̇ + Ṙ v
            Rdot = w * np.array([[-R[1, 0], -R[0, 0]], [R[0, 0], -R[1, 0]]])
            u_dot[k] = a[iv + 2]
            u_dot[k + 1:k + 3] = R @ a[iv:iv + 2] + Rdot @ vel
        else:
            u_dot[k] = a[iv]
    return u_dot


def _child_of(xml, joint_name):
    import re

    block = re.search(rf'<joint name="{joint_name}".*?</joint>', xml, flags=re.S).group(0)
    return re.search(r'<child link="([^"]+)"', block).group(1)


# ======================================================================== tests
def test_two_link_arm_matches_the_textbook_double_pendulum(tmp_path):
    """Links along z hinged about y, gravity -z: M, gravity and Coriolis terms in closed
    form (Spong's double pendulum, with V = g Σ m z)."""
    m1, m2, l1, c1, c2, I1, I2 = 1.3, 0.8, 0.9, 0.4, 0.35, 0.05, 0.03
    links = [dict(name="base"),
             dict(name="upper", mass=m1, com=(0, 0, c1), inertia=(I1, 0, 0, I1, 0, 0.01)),
             dict(name="fore", mass=m2, com=(0, 0, c2), inertia=(I2, 0, 0, I2, 0, 0.01))]
    joints = [dict(name="shoulder", type="revolute", parent="base", child="upper",
                   xyz=(0, 0, 0), rpy=(0, 0, 0), axis=(0, 1, 0), limit=(-2, 2, 30, 5)),
              dict(name="elbow", type="continuous", parent="upper", child="fore",
                   xyz=(0, 0, l1), rpy=(0, 0, 0), axis=(0, 1, 0))]
    model = kt.load_urdf(write(tmp_path, robot_xml("arm", links, joints)))
    assert list(model.coordinates) == ["shoulder", "elbow"]
    assert list(model.bodies) == ["ground", "base", "upper", "fore"]
    state = model.get_default_state()
    q1, q2, u1, u2 = 0.7, -1.1, 0.9, -1.7
    for name, q, u in (("shoulder", q1, u1), ("elbow", q2, u2)):
        model.coordinates[name].set_value(state, q)
        model.coordinates[name].set_speed_value(state, u)
    T, _ = forward_kinematics(links, joints, {"shoulder": q1, "elbow": q2})
    assert_poses(model, state, T)
    g = 9.81
    M = np.array([[I1 + I2 + m1 * c1**2 + m2 * (l1**2 + c2**2 + 2 * l1 * c2 * math.cos(q2)),
                   I2 + m2 * (c2**2 + l1 * c2 * math.cos(q2))],
                  [I2 + m2 * (c2**2 + l1 * c2 * math.cos(q2)), I2 + m2 * c2**2]])
    coriolis = m2 * l1 * c2 * math.sin(q2) * np.array([-(2 * u1 * u2 + u2**2), u1**2])
    gravity = g * np.array([m1 * c1 * math.sin(q1) + m2 * (l1 * math.sin(q1)
                                                           + c2 * math.sin(q1 + q2)),
                            m2 * c2 * math.sin(q1 + q2)])
    model.system.realize(state, kt.Stage.ACCELERATION)
    np.testing.assert_allclose(model.matter.calc_m(state), M, rtol=1e-13)
    np.testing.assert_allclose(state.get_u_dot(), np.linalg.solve(M, gravity - coriolis),
                               rtol=1e-11)
    assert model.coordinates["elbow"].get_acceleration_value(state) == state.get_u_dot()[1]


SEVEN_DOF_TYPES = ["revolute", "continuous", "prismatic", "revolute", "fixed", "revolute",
                   "continuous", "revolute"]


def seven_dof_arm(rng):
    links = [dict(name="base")]
    joints = []
    for i, kind in enumerate(SEVEN_DOF_TYPES):
        links.append(dict(name=f"link{i}", **random_inertial(rng)))
        joint = dict(name=f"joint{i}", type=kind, parent=links[-2]["name"],
                     child=f"link{i}", xyz=rng.uniform(-0.3, 0.3, 3),
                     rpy=rng.uniform(-math.pi, math.pi, 3), axis=unit(rng.normal(size=3)))
        if kind in ("revolute", "prismatic"):
            joint["limit"] = (-rng.uniform(0.5, 3), rng.uniform(0.5, 3), 10.0 + i, 1.0 + i)
        joints.append(joint)
    return links, joints


def test_seven_dof_arm_with_random_axes_and_rpy_matches_forward_kinematics_and_dynamics(
        tmp_path):
    rng = np.random.default_rng(7)
    links, joints = seven_dof_arm(rng)
    xml = robot_xml("arm7", links, joints)
    model = kt.load_urdf(write(tmp_path, xml))
    moving = [j for j in joints if j["type"] != "fixed"]
    assert list(model.coordinates) == [j["name"] for j in moving]
    kinds = {"revolute": "Pin", "continuous": "Pin", "prismatic": "Slider", "fixed": "Weld"}
    for j in joints:
        assert type(model.bodies[j["child"]]).__name__ == kinds[j["type"]]
    # Limits land on the coordinates: range, and the velocity and effort limits.
    for j in moving:
        c = model.coordinates[j["name"]]
        if "limit" in j:
            assert c.range == tuple(j["limit"][:2]) and c.clamped
            assert (c.effort_limit, c.velocity_limit) == tuple(j["limit"][2:])
        else:
            assert c.range == (-math.inf, math.inf) and not c.clamped
        assert c.motion_type == ("translational" if j["type"] == "prismatic"
                                 else "rotational")
    state = model.get_default_state()
    T0, _ = forward_kinematics(links, joints, {j["name"]: 0.0 for j in moving})
    assert_poses(model, state, T0)                  # q = 0: the URDF's own poses
    for _ in range(3):
        q = {j["name"]: rng.uniform(-1.5, 1.5) for j in moving}
        for j in moving:
            model.coordinates[j["name"]].set_value(state, q[j["name"]])
            model.coordinates[j["name"]].set_speed_value(state, rng.uniform(-2, 2))
        T, frames = forward_kinematics(links, joints, q)
        assert_poses(model, state, T)
        np.testing.assert_allclose(model.get_coordinate_values(state), list(q.values()))
        M, _ = mass_matrix_and_gravity(model, state, links, joints, T, frames, False)
        np.testing.assert_allclose(model.matter.calc_m(state), M, atol=1e-12 * np.abs(M).max())
        model.system.realize(state, kt.Stage.ACCELERATION)
        expected = pinocchio_u_dot(model, state, xml)
        if expected is not None:
            u_dot = state.get_u_dot()
            np.testing.assert_allclose(u_dot, expected, rtol=0,
                                       atol=1e-10 * max(1.0, np.abs(expected).max()))


def quadruped(rng, tail_axis):
    """A free torso with four two-joint legs (hip frames turned by rpy), a head on a fixed
    joint, a tail on a planar joint and a payload on a floating joint."""
    links = [dict(name="torso", **random_inertial(rng, (4.0, 6.0), 0.5)),
             dict(name="head", **random_inertial(rng)),
             dict(name="tail", **random_inertial(rng, (0.2, 0.5))),
             dict(name="payload", **random_inertial(rng, (0.5, 1.0)))]
    joints = [dict(name="neck", type="fixed", parent="torso", child="head",
                   xyz=(0.5, 0, 0.1), rpy=(0, 0.3, 0)),
              dict(name="tail_joint", type="planar", parent="torso", child="tail",
                   xyz=(-0.5, 0, 0), rpy=rng.uniform(-1, 1, 3), axis=tail_axis),
              dict(name="mount", type="floating", parent="torso", child="payload",
                   xyz=(0, 0, 0.2), rpy=rng.uniform(-1, 1, 3))]
    for side, (x, y) in {"fl": (0.4, 0.2), "fr": (0.4, -0.2), "hl": (-0.4, 0.2),
                         "hr": (-0.4, -0.2)}.items():
        links += [dict(name=f"{side}_thigh", **random_inertial(rng)),
                  dict(name=f"{side}_shank", **random_inertial(rng, (0.3, 0.6)))]
        joints += [dict(name=f"{side}_hip", type="revolute", parent="torso",
                        child=f"{side}_thigh", xyz=(x, y, -0.1), rpy=rng.uniform(-0.5, 0.5, 3),
                        axis=(0, 1, 0), limit=(-1.5, 1.5, 40, 8)),
                   dict(name=f"{side}_knee", type="revolute", parent=f"{side}_thigh",
                        child=f"{side}_shank", xyz=(0, 0, -0.3), rpy=(0, 0, 0),
                        axis=unit(rng.normal(size=3)), limit=(-2.5, 0, 40, 8))]
    return links, joints


def random_pose(rng, spread=1.0):
    R = rodrigues(rng.normal(size=3), rng.uniform(0, math.pi))
    return hom(R, rng.uniform(-spread, spread, 3))


def set_quadruped_state(model, state, rng, joints):
    q, free = {}, {"root": random_pose(rng), "mount": random_pose(rng, 0.3)}
    for link, key in (("torso", "root"), ("payload", "mount")):
        model.bodies[link].set_q_to_fit_transform(
            state, kt.Transform(kt.Rotation(free[key][:3, :3]), free[key][:3, 3]))
    for j in joints:
        if j["type"] == "revolute":
            q[j["name"]] = rng.uniform(-1, 1)
            model.coordinates[j["name"]].set_value(state, q[j["name"]])
        elif j["type"] == "planar":
            q[j["name"]] = tuple(rng.uniform(-1, 1, 3))
            for s, value in zip(("_rz", "_tx", "_ty"), q[j["name"]]):
                model.coordinates[j["name"] + s].set_value(state, value)
    return q, free


def test_floating_quadruped_with_a_planar_tail_matches_jacobian_dynamics(tmp_path):
    """A planar joint whose normal is not z, a floating joint inside the tree and a free
    base: poses against forward kinematics; M against Σ Jᵀ Φ J; at rest, u̇ against
    M⁻¹ Σ Jᵀ F_gravity."""
    rng = np.random.default_rng(4)
    links, joints = quadruped(rng, unit([1.0, -2.0, 0.5]))
    model = kt.load_urdf(write(tmp_path, robot_xml("dog", links, joints)), floating_base=True)
    assert type(model.bodies["torso"]).__name__ == "Free"
    assert type(model.bodies["payload"]).__name__ == "Free"
    assert type(model.bodies["tail"]).__name__ == "Planar"
    assert type(model.bodies["head"]).__name__ == "Weld"
    assert list(model.coordinates)[:3] == ["tail_joint_rz", "tail_joint_tx", "tail_joint_ty"]
    assert model.coordinates["tail_joint_tx"].motion_type == "translational"
    assert len(model.coordinates) == 3 + 8
    state = model.get_default_state()
    for _ in range(2):
        q, free = set_quadruped_state(model, state, rng, joints)
        T, frames = forward_kinematics(links, joints, q, free)
        assert_poses(model, state, T)
        M, f = mass_matrix_and_gravity(model, state, links, joints, T, frames, True)
        np.testing.assert_allclose(model.matter.calc_m(state), M, atol=1e-12 * np.abs(M).max())
        model.system.realize(state, kt.Stage.ACCELERATION)
        np.testing.assert_allclose(state.get_u_dot(), np.linalg.solve(M, f), rtol=0,
                                   atol=1e-10 * np.abs(np.linalg.solve(M, f)).max())


def test_floating_quadruped_accelerations_match_pinocchio(tmp_path):
    """The same robot with the planar normal along z (Pinocchio's planar joint ignores the
    axis), moving: u̇ against Pinocchio's ABA with its free-flyer and planar coordinates
    mapped to kinetree's."""
    pytest.importorskip("pinocchio")
    rng = np.random.default_rng(11)
    links, joints = quadruped(rng, (0.0, 0.0, 1.0))
    xml = robot_xml("dog", links, joints)
    model = kt.load_urdf(write(tmp_path, xml), floating_base=True)
    state = model.get_default_state()
    for _ in range(2):
        set_quadruped_state(model, state, rng, joints)
        model.matter.upd_u(state)[:] = rng.uniform(-2, 2, model.matter.get_u(state).size)
        model.system.realize(state, kt.Stage.ACCELERATION)
        expected = pinocchio_u_dot(model, state, xml, floating_base=True)
        np.testing.assert_allclose(state.get_u_dot(), expected, rtol=0,
                                   atol=1e-10 * np.abs(expected).max())


GRIPPER = """<?xml version="1.0"?>
<robot name="gripper">
  <link name="world"/>
  <link name="palm">
    <inertial><mass value="1.0"/>
      <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
  </link>
  <link name="left">
    <inertial><origin xyz="0 0 0.05"/><mass value="0.2"/>
      <inertia ixx="1e-4" iyy="1e-4" izz="2e-5" ixy="0" ixz="0" iyz="0"/></inertial>
  </link>
  <link name="right">
    <inertial><origin xyz="0 0 0.05"/><mass value="0.3"/>
      <inertia ixx="1e-4" iyy="1e-4" izz="2e-5" ixy="0" ixz="0" iyz="0"/></inertial>
  </link>
  <link name="thumb">
    <inertial><origin xyz="0.04 0 0.02"/><mass value="0.1"/>
      <inertia ixx="2e-5" iyy="3e-5" izz="2e-5" ixy="0" ixz="0" iyz="0"/></inertial>
  </link>
  <joint name="mount" type="fixed"><parent link="world"/><child link="palm"/>
    <origin xyz="0 0 0.5" rpy="0.3 0 0"/></joint>
  <joint name="left_finger" type="prismatic"><parent link="palm"/><child link="left"/>
    <origin xyz="0 0.03 0"/><axis xyz="0 0.6 0.8"/>
    <limit lower="-0.05" upper="0.05" effort="20" velocity="0.2"/></joint>
  <joint name="right_finger" type="prismatic"><parent link="palm"/><child link="right"/>
    <origin xyz="0 -0.03 0"/><axis xyz="0 1 0"/>
    <limit lower="-0.05" upper="0.05" effort="20" velocity="0.2"/>
    <mimic joint="left_finger" multiplier="-1" offset="0.01"/></joint>
  <joint name="thumb_joint" type="revolute"><parent link="palm"/><child link="thumb"/>
    <origin xyz="0.05 0 0"/><axis xyz="0 1 0"/>
    <limit lower="-1" upper="1" effort="5" velocity="1"/>
    <mimic joint="right_finger" multiplier="8" offset="0.1"/></joint>
</robot>
"""


def test_mimic_joints_are_coupled_and_follow_the_reduced_dynamics(tmp_path):
    """right = -left + 0.01 (m), thumb = 8 right + 0.1 (rad, a mimic of a mimic): the
    couplers hold at the defaults, the accelerations are those of the one-coordinate
    system (Cᵀ M C) s̈ = -Cᵀ h, and through a simulation the couplings hold and energy is
    kept."""
    path = write(tmp_path, GRIPPER)
    model = kt.load_urdf(path)
    assert model.bodies["world"] is model.matter.Ground()
    assert sorted(model.constraints) == ["right_finger", "thumb_joint"]
    assert model.coordinates["right_finger"].default_value == pytest.approx(0.01)
    assert model.coordinates["thumb_joint"].default_value == pytest.approx(8 * 0.01 + 0.1)
    state = model.get_default_state()
    left, right, thumb = (model.coordinates[n] for n in ("left_finger", "right_finger",
                                                         "thumb_joint"))

    def coupling_errors(q):
        return np.array([q[right.q_index] + q[left.q_index] - 0.01,
                         q[thumb.q_index] - 8 * q[right.q_index] - 0.1])

    np.testing.assert_allclose(coupling_errors(model.matter.get_q(state)), 0, atol=1e-15)
    s, s_dot = 0.02, -0.1
    left.set_value(state, s)
    right.set_value(state, -s + 0.01)
    thumb.set_value(state, 8 * (-s + 0.01) + 0.1)
    C = np.zeros(3)
    C[[left.u_index, right.u_index, thumb.u_index]] = [1.0, -1.0, -8.0]
    model.matter.upd_u(state)[:] = C * s_dot
    model.system.realize(state, kt.Stage.ACCELERATION)
    u_dot = state.get_u_dot()
    try:
        import pinocchio as pin
    except ImportError:
        pin = None
    if pin is not None:       # Pinocchio without mimic: three independent joints
        pm = pin.buildModelFromXML(GRIPPER)
        data = pm.createData()
        order = [model.coordinates[pm.names[j]].u_index for j in range(1, pm.njoints)]
        q_pin = model.matter.get_q(state)[order]
        v_pin = model.matter.get_u(state)[order]
        M = pin.crba(pm, data, q_pin)
        M = np.triu(M) + np.triu(M, 1).T
        h = pin.nonLinearEffects(pm, data, q_pin, v_pin)
        C_pin = C[order]
        s_ddot = -(C_pin @ h) / (C_pin @ M @ C_pin)
        np.testing.assert_allclose(u_dot[order], C_pin * s_ddot, rtol=1e-10, atol=1e-12)
    assert u_dot[right.u_index] == pytest.approx(-u_dot[left.u_index], rel=1e-12)
    assert u_dot[thumb.u_index] == pytest.approx(8 * u_dot[right.u_index], rel=1e-12)
    traj = kt.simulate(model.system, state, 0.5, accuracy=1e-8, report_interval=0.01,
                       progress=False)
    errors = np.array([coupling_errors(q) for q in traj.q])
    assert np.abs(errors).max() < 1e-8
    energy = traj.columns["energy"]
    assert np.ptp(energy) < 1e-6 * np.abs(energy).max()
    assert np.ptp(traj.q[:, left.q_index]) > 0.01        # it did move


def test_limits_damping_and_skipped_elements(tmp_path):
    """Limits on the coordinates; <dynamics damping> a damper (u̇ changes by -M⁻¹ c u);
    transmissions, gazebo tags and joint friction listed in skipped, in one warning."""
    text = """<robot name="r">
      <link name="base"/>
      <link name="arm"><inertial><origin xyz="0 0 0.3"/><mass value="2"/>
        <inertia ixx="0.02" iyy="0.02" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
        <collision><geometry><box size="1 1 1"/></geometry></collision></link>
      <joint name="j" type="revolute"><parent link="base"/><child link="arm"/>
        <axis xyz="1 0 0"/><limit lower="-0.5" upper="1.25" effort="7" velocity="3"/>
        <dynamics damping="0.4" friction="0.1"/>
        <safety_controller k_velocity="1"/></joint>
      <transmission name="t"><joint name="j"/></transmission>
      <gazebo reference="arm"><material>Gazebo/Red</material></gazebo>
    </robot>"""
    with pytest.warns(KinetreeWarning) as record:
        model = kt.load_urdf(write(tmp_path, text))
    assert len(record) == 1
    assert len(model.skipped) == 3
    for word in ("transmission", "gazebo", "friction"):
        assert any(word in s for s in model.skipped), word
        assert word in str(record[0].message)
    coordinate = model.coordinates["j"]
    assert coordinate.range == (-0.5, 1.25)
    assert (coordinate.effort_limit, coordinate.velocity_limit) == (7.0, 3.0)
    state = model.get_default_state()
    coordinate.set_speed_value(state, 2.0)
    model.system.realize(state, kt.Stage.ACCELERATION)
    undamped = kt.load_urdf(write(tmp_path, text.replace('damping="0.4"', "")
                                  .replace('friction="0.1"', "")
                                  .replace("<transmission", "<!-- ")
                                  .replace("</transmission>", " -->")
                                  .replace("<gazebo", "<!-- ").replace("</gazebo>", " -->"),
                                  "undamped.urdf"))
    free_state = undamped.get_default_state()
    undamped.coordinates["j"].set_speed_value(free_state, 2.0)
    undamped.system.realize(free_state, kt.Stage.ACCELERATION)
    inertia = 0.02 + 2 * 0.3**2
    assert coordinate.get_acceleration_value(state) == pytest.approx(
        undamped.coordinates["j"].get_acceleration_value(free_state) - 0.4 * 2.0 / inertia,
        rel=1e-12)


def drawn(scene, decoration):
    """(pose in Ground as drawn, the batch's drawing arguments, instance) of a decoration
    on a body, found in the scene's batches by its X_BD."""
    X = decoration.get_transform()
    for batch in scene._batches:
        for i, (R, p) in enumerate(zip(batch.R_BD, batch.p_BD)):
            if (batch.kind == "mesh" and batch.bodies[i] > 0 and np.allclose(p, X.p)
                    and np.allclose(R, X.R.as_matrix())
                    and type(decoration).__name__[10:].lower() in (batch.key[0], "mesh")):
                kwargs = batch.handle.kwargs
                R_GD = kt.Rotation.from_quaternion(kwargs["batched_wxyzs"][i]).as_matrix()
                return hom(R_GD, kwargs["batched_positions"][i]), kwargs, i, batch
    raise AssertionError(f"{decoration!r} is not drawn")


def test_visuals_become_decorations_drawn_where_the_urdf_puts_them(tmp_path):
    """A mesh by package://, by a relative path and by file://, with scale and a colour
    named under <robot>; a box, a cylinder (along z in URDF, y in Simbody) and a sphere;
    in the viewer's scene each sits at X_GL X_LV with its size and colour; a missing
    mesh is skipped with a warning."""
    package = tmp_path / "share" / "my_robot"
    (package / "meshes").mkdir(parents=True)
    trimesh.creation.box([0.1, 0.2, 0.3]).export(package / "meshes" / "box.stl")
    (tmp_path / "urdf").mkdir()
    visuals = {"mesh": ((0.1, 0.0, 0.3), (0.1, -0.4, 0.9)), "box": ((0, 0.2, 0), (0.5, 0, 0)),
               "cylinder": ((0, 0, 0.5), (0, 0.3, 0)), "sphere": ((0, 0, 1), (0, 0, 0))}
    origin = {k: f'<origin xyz="{fmt(*xyz)}" rpy="{fmt(*rpy)}"/>'
              for k, (xyz, rpy) in visuals.items()}
    text = f"""<robot name="seen">
      <material name="orange"><color rgba="1 0.5 0 1"/></material>
      <link name="base"/>
      <link name="arm">
        <inertial><mass value="1"/>
          <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
        <visual>{origin["mesh"]}
          <geometry><mesh filename="package://my_robot/meshes/box.stl" scale="2 1 0.5"/></geometry>
          <material name="orange"/></visual>
        <visual><geometry><mesh filename="../share/my_robot/meshes/box.stl"/></geometry></visual>
        <visual><geometry><mesh filename="file://{package / 'meshes' / 'box.stl'}"/>
          </geometry></visual>
        <visual><geometry><mesh filename="package://my_robot/meshes/missing.stl"/></geometry></visual>
        <visual>{origin["box"]}<geometry><box size="0.1 0.2 0.4"/></geometry>
          <material name="see-through"><color rgba="0 0 1 0.5"/></material></visual>
        <visual>{origin["cylinder"]}
          <geometry><cylinder radius="0.03" length="0.6"/></geometry></visual>
        <visual>{origin["sphere"]}<geometry><sphere radius="0.07"/></geometry></visual>
      </link>
      <joint name="j" type="revolute"><parent link="base"/><child link="arm"/>
        <origin xyz="0 0 0.2" rpy="0 0 0.4"/><axis xyz="0 1 0"/>
        <limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
    </robot>"""
    path = write(tmp_path / "urdf", text)
    with pytest.warns(KinetreeWarning, match="missing.stl"):
        model = kt.load_urdf(path, package_dirs=[tmp_path / "share"])
    assert len(model.skipped) == 1 and "missing.stl" in model.skipped[0]
    with pytest.warns(KinetreeWarning):       # the package's own folder, by name
        same = kt.load_urdf(path, package_dirs={"my_robot": package})
    arm = model.bodies["arm"].get_body()
    assert arm.get_num_decorations() == same.bodies["arm"].get_body().get_num_decorations() == 6
    mesh, relative, absolute, brick, cylinder, sphere = (arm.get_decoration(k) for k in range(6))
    assert type(mesh).__name__ == "DecorativeMesh"
    np.testing.assert_allclose(np.ptp(mesh.get_vertices(), axis=0), [0.1, 0.2, 0.3])
    np.testing.assert_allclose(mesh.get_scale_factors(), [2, 1, 0.5])
    np.testing.assert_allclose(mesh.get_color(), [1, 0.5, 0])
    assert not relative.has_color()
    np.testing.assert_array_equal(relative.get_vertices(), absolute.get_vertices())
    np.testing.assert_allclose(brick.get_half_lengths(), [0.05, 0.1, 0.2])
    np.testing.assert_allclose(brick.get_color(), [0, 0, 1])
    assert brick.get_opacity() == 0.5
    assert (cylinder.get_radius(), cylinder.get_half_height()) == (0.03, 0.3)
    assert sphere.get_radius() == 0.07

    state = model.get_default_state()
    model.coordinates["j"].set_value(state, 0.8)
    T_GL = hom(rpy_matrix((0, 0, 0.4)), (0, 0, 0.2)) @ hom(rodrigues((0, 1, 0), 0.8))
    scene = viz_scene.Scene(rec := Recorder(), model.system, state)
    scene.show(scene.frame_of(state))
    assert rec.up == "+z"                               # against URDF's gravity
    simbody_cylinder = hom(rodrigues((1, 0, 0), math.pi / 2))     # its y along z
    for g, key, extra in ((mesh, "mesh", np.eye(4)), (brick, "box", np.eye(4)),
                          (cylinder, "cylinder", simbody_cylinder),
                          (sphere, "sphere", np.eye(4))):
        xyz, rpy = visuals[key]
        T_GD, kwargs, i, batch = drawn(scene, g)
        np.testing.assert_allclose(T_GD, T_GL @ hom(rpy_matrix(rpy), xyz) @ extra,
                                   atol=1e-12, err_msg=key)
        rgb = np.round(255 * g.get_color()).astype(np.uint8)
        np.testing.assert_array_equal(kwargs["batched_colors"][i], viz_scene.linear_rgb(rgb))
    # The mesh is drawn scaled, D's x twice and z half as long.
    _, _, _, batch = drawn(scene, mesh)
    np.testing.assert_allclose(np.ptp(batch.data[0][0], axis=0), [0.2, 0.2, 0.15])


def test_world_root_is_ground_and_floating_base_frees_the_root(tmp_path):
    rng = np.random.default_rng(3)
    links = [dict(name="base", **random_inertial(rng)), dict(name="tip", **random_inertial(rng))]
    joints = [dict(name="j", type="continuous", parent="base", child="tip", xyz=(0, 0, 0.4),
                   rpy=(0, 0, 0), axis=(0, 0, 1))]
    path = write(tmp_path, robot_xml("r", links, joints))
    welded = kt.load_urdf(path)
    assert type(welded.bodies["base"]).__name__ == "Weld"
    floating = kt.load_urdf(path, floating_base=True)
    assert type(floating.bodies["base"]).__name__ == "Free"
    assert list(floating.coordinates) == ["j"]
    state = floating.get_default_state()
    floating.system.realize(state, kt.Stage.ACCELERATION)
    # Falling freely: every body accelerates at g, the joint not at all.
    for name in ("base", "tip"):
        np.testing.assert_allclose(floating.bodies[name].get_body_origin_acceleration(state),
                                   G, atol=1e-12)
    world = robot_xml("r", [dict(name="world")] + links,
                      [dict(name="fix", type="fixed", parent="world", child="base",
                            xyz=(1, 2, 3), rpy=(0, 0, 0))] + joints)
    on_world = kt.load_urdf(write(tmp_path, world, "world.urdf"))
    assert on_world.bodies["world"] is on_world.matter.Ground()
    state = on_world.get_default_state()
    on_world.system.realize(state, kt.Stage.POSITION)
    np.testing.assert_allclose(on_world.bodies["tip"].get_body_origin_location(state),
                               [1, 2, 3.4])


@pytest.mark.parametrize("k", [0, 1, 2])
def test_mobilizer_frames_turn_onto_any_axis_opposite_ones_included(k):
    from kinetree.io.urdf import rotation_taking_axis

    rng = np.random.default_rng(k)
    e = np.eye(3)[k]
    for axis in (e, -e, unit(rng.normal(size=3)), unit(e + 1e-9 * rng.normal(size=3))):
        R = rotation_taking_axis(k, axis).as_matrix()
        np.testing.assert_allclose(R @ e, axis, atol=1e-15)
        np.testing.assert_allclose(R.T @ R, np.eye(3), atol=1e-15)
    assert rotation_taking_axis(k, e).is_same_rotation(kt.Rotation(), 0.0)


def test_joints_along_negative_axes_move_as_urdf_says(tmp_path):
    """Axes opposite to the mobilizers' own (Pin z, Slider x, Planar z) and a zero-offset
    chain: poses against forward kinematics."""
    rng = np.random.default_rng(5)
    links = [dict(name="base")] + [dict(name=f"l{i}", **random_inertial(rng)) for i in range(3)]
    joints = [dict(name="spin", type="continuous", parent="base", child="l0", xyz=(0, 0, 0.1),
                   rpy=(0.2, 0, 0), axis=(0, 0, -1)),
              dict(name="slide", type="prismatic", parent="l0", child="l1", xyz=(0.2, 0, 0),
                   rpy=(0, 0, 0), axis=(-1, 0, 0), limit=(-1, 1, 1, 1)),
              dict(name="plane", type="planar", parent="l1", child="l2", xyz=(0, 0.3, 0),
                   rpy=(0, 0.5, 0), axis=(0, 0, -1))]
    model = kt.load_urdf(write(tmp_path, robot_xml("r", links, joints)))
    state = model.get_default_state()
    q = {"spin": 0.7, "slide": 0.25, "plane": (0.4, 0.1, -0.2)}
    model.coordinates["spin"].set_value(state, 0.7)
    model.coordinates["slide"].set_value(state, 0.25)
    for suffix, value in zip(("_rz", "_tx", "_ty"), q["plane"]):
        model.coordinates["plane" + suffix].set_value(state, value)
    T, _ = forward_kinematics(links, joints, q)
    assert_poses(model, state, T)


GOOD_LINK = ('<link name="{}"><inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" '
             'izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link>')
REVOLUTE = ('<joint name="{}" type="revolute"><parent link="{}"/><child link="{}"/>'
            '<axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>')


def robot(*parts):
    return '<?xml version="1.0"?>\n<robot name="bad">\n' + "\n".join(parts) + "\n</robot>\n"


BAD_FILES = {
    "missing parent link": (robot(GOOD_LINK.format("a"), REVOLUTE.format("j", "nowhere", "a")),
                            r"line 4, <joint name=\"j\">.*parent link 'nowhere'.*add <link"),
    "two parents": (robot(*(GOOD_LINK.format(n) for n in "abc"), REVOLUTE.format("j1", "a", "c"),
                          REVOLUTE.format("j2", "b", "c")),
                    r"link 'c' has two parents: joint 'j1' \(line 6\) and joint 'j2' \(line 7\)"),
    "loop": (robot(*(GOOD_LINK.format(n) for n in "rabc"), REVOLUTE.format("j0", "r", "a"),
                   REVOLUTE.format("j1", "b", "c"), REVOLUTE.format("j2", "c", "b")),
             r"'j1', 'j2' form a closed loop"),
    "two roots": (robot(GOOD_LINK.format("a"), GOOD_LINK.format("b")), r"one root"),
    "massless moving link": (robot(GOOD_LINK.format("a"), '<link name="b"/>',
                                   REVOLUTE.format("j", "a", "b")),
                             r"moves link 'b', which carries no mass.*<inertial>"),
    "zero mass": (robot(GOOD_LINK.format("a"), GOOD_LINK.format("b").replace('"1"', '"0"'),
                        REVOLUTE.format("j", "a", "b")), r"carries no mass"),
    "negative mass": (robot(GOOD_LINK.format("a").replace('"1"', '"-1"')),
                      r"line 3, <mass>.*is negative"),
    "non-physical inertia": (robot(GOOD_LINK.format("a").replace('izz="0.1"', 'izz="0.3"')),
                             r"<inertia>.*link 'a' is not a physical inertia.*triangle"),
    "doctype": ('<?xml version="1.0"?>\n<!DOCTYPE robot [<!ENTITY big "xxxx">]>\n'
                '<robot name="x">&big;</robot>', r"line 2 declares a DOCTYPE"),
    "xacro": (robot('<xacro:property name="l" value="1"/>', GOOD_LINK.format("a")),
              r"xacro, not URDF.*xacro robot.urdf > robot.urdf"),
    "not xml": ("<robot><link name='a'></robot>", r"not well-formed XML"),
    "not a robot": ('<sdf version="1.6"/>', r"starts with <sdf>, not <robot>"),
    "unknown type": (robot(GOOD_LINK.format("a"), GOOD_LINK.format("b"),
                           REVOLUTE.format("j", "a", "b").replace("revolute", "ball")),
                     r"type='ball'; URDF's joint types are"),
    "no limit": (robot(GOOD_LINK.format("a"), GOOD_LINK.format("b"),
                       '<joint name="j" type="revolute"><parent link="a"/><child link="b"/>'
                       '</joint>'), r"no <limit.*continuous"),
    "zero axis": (robot(GOOD_LINK.format("a"), GOOD_LINK.format("b"),
                        REVOLUTE.format("j", "a", "b").replace('"0 0 1"', '"0 0 0"')),
                  r"zero length"),
    "lower above upper": (robot(GOOD_LINK.format("a"), GOOD_LINK.format("b"),
                                REVOLUTE.format("j", "a", "b").replace('"-1"', '"2"')),
                          r"lower 2.0 > upper 1.0; swap them"),
    "bad numbers": (robot(GOOD_LINK.format("a"), GOOD_LINK.format("b"),
                          REVOLUTE.format("j", "a", "b").replace(
                              "<axis", '<origin xyz="1 2"/><axis')),
                    r"<origin> xyz=\"1 2\": expected 3 finite numbers"),
    "duplicate link": (robot(GOOD_LINK.format("a"), GOOD_LINK.format("a")),
                       r"line 4.*'a' is already defined at line 3"),
    "unknown mimic": (robot(GOOD_LINK.format("a"), GOOD_LINK.format("b"),
                            REVOLUTE.format("j", "a", "b").replace(
                                "</joint>", '<mimic joint="k"/></joint>')),
                      r"follows joint 'k', which is not defined"),
    "mimic circle": (robot(*(GOOD_LINK.format(n) for n in "abc"),
                           REVOLUTE.format("j", "a", "b").replace(
                               "</joint>", '<mimic joint="k"/></joint>'),
                           REVOLUTE.format("k", "a", "c").replace(
                               "</joint>", '<mimic joint="j"/></joint>')),
                     r"j -> k -> j follow each other in a circle"),
}


@pytest.mark.parametrize("case", list(BAD_FILES))
def test_bad_files_are_refused_naming_the_element_and_the_fix(tmp_path, case):
    text, message = BAD_FILES[case]
    error = NonPhysicalError if case == "non-physical inertia" else InvalidArgumentError
    with pytest.raises(error, match=message):
        kt.load_urdf(write(tmp_path, text))


def test_bad_arguments(tmp_path):
    with pytest.raises(InvalidArgumentError, match="no file at"):
        kt.load_urdf(tmp_path / "none.urdf")
    with pytest.raises(InvalidArgumentError, match="write it to a file"):
        kt.load_urdf("<robot name='r'/>")
    with pytest.raises(InvalidArgumentError, match="cannot float"):
        kt.load_urdf(write(tmp_path, robot('<link name="world"/>')), floating_base=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")            # nothing skipped: no warning
        kt.load_urdf(write(tmp_path, robot(GOOD_LINK.format("a")), "fine.urdf"))


BUNDLED_ARM = Path(__file__).resolve().parents[2] / "models" / "urdf" / "arm7.urdf"


def test_the_bundled_arm_loads_and_keeps_its_energy_and_mimic():
    """models/urdf/arm7.urdf: seven revolute joints, a fixed flange and two prismatic
    fingers, the second a mimic of the first. From a bent pose it swings under gravity
    keeping its energy and the fingers' coupling; at rest in the default pose its base
    joint (about the vertical) has no reason to turn."""
    model = kt.load_urdf(BUNDLED_ARM)
    assert [c for c in model.coordinates][:7] == [f"joint{i}" for i in range(1, 8)]
    assert list(model.constraints) == ["finger_right_joint"]
    state = model.get_default_state()
    model.system.realize(state, kt.Stage.ACCELERATION)
    assert model.coordinates["joint1"].get_acceleration_value(state) == pytest.approx(
        0.0, abs=1e-12)
    for i, angle in enumerate((0.3, -0.8, 0.5, -1.2, 0.4, 0.9, -0.2), start=1):
        model.coordinates[f"joint{i}"].set_value(state, angle)
    left, right = model.coordinates["finger_left_joint"], model.coordinates["finger_right_joint"]
    left.set_value(state, 0.02)
    right.set_value(state, 0.02)
    traj = kt.simulate(model.system, state, 0.3, accuracy=1e-8, report_interval=0.01,
                       progress=False)
    energy = traj.columns["energy"]
    assert np.ptp(energy) < 1e-6 * np.abs(energy).max()
    assert np.abs(traj.q[:, left.q_index] - traj.q[:, right.q_index]).max() < 1e-8
    assert np.ptp(traj.q[:, model.coordinates["joint2"].q_index]) > 0.05   # it swung

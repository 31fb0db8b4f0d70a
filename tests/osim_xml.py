"""OpenSim model files written from Python data, for the tests of ``load_osim``: the 4.x
layout (a BodySet, a JointSet whose joints own their offset frames) and the 3.x layout
(each Body holding its Joint, Ground a body named "ground")."""


def fmt(*values) -> str:
    return " ".join(repr(float(v)) for v in values)


# ------------------------------------------------------------------ OpenSim 4.x
def body(name, mass, com, inertia, extra="") -> str:
    """A Body: ``inertia`` the six values xx yy zz xy xz yz about the mass centre."""
    return (f'<Body name="{name}"><mass>{fmt(mass)}</mass><mass_center>{fmt(*com)}'
            f'</mass_center><inertia>{fmt(*inertia)}</inertia>{extra}</Body>')


def offset_frame(name, parent, translation, orientation=(0, 0, 0)) -> str:
    path = "/ground" if parent == "ground" else f"/bodyset/{parent}"
    return (f'<PhysicalOffsetFrame name="{name}"><socket_parent>{path}</socket_parent>'
            f'<translation>{fmt(*translation)}</translation>'
            f'<orientation>{fmt(*orientation)}</orientation></PhysicalOffsetFrame>')


def coordinates(values) -> str:
    """Coordinate elements from (name, default value) pairs."""
    return "".join(f'<Coordinate name="{c}"><default_value>{fmt(v)}</default_value>'
                   '</Coordinate>' for c, v in values)


def joint(kind, name, parent, p_loc, child, c_loc, coords=(), p_ori=(0, 0, 0),
          c_ori=(0, 0, 0), extra="") -> str:
    """A joint of type ``kind`` from ``parent`` (its frame at p_loc, p_ori) to ``child``
    (c_loc, c_ori), with the coordinates ``coords`` (name, default value)."""
    return (f'<{kind} name="{name}"><socket_parent_frame>{name}_p</socket_parent_frame>'
            f'<socket_child_frame>{name}_c</socket_child_frame>'
            f'<coordinates>{coordinates(coords)}</coordinates><frames>'
            f'{offset_frame(name + "_p", parent, p_loc, p_ori)}'
            f'{offset_frame(name + "_c", child, c_loc, c_ori)}</frames>{extra}</{kind}>')


def document(name, bodies, joints, extra="") -> str:
    return ('<?xml version="1.0" encoding="UTF-8" ?>\n<OpenSimDocument Version="40000">'
            f'<Model name="{name}"><gravity>0 -9.80665 0</gravity>'
            f'<BodySet name="bodyset"><objects>{"".join(bodies)}</objects></BodySet>'
            f'<JointSet name="jointset"><objects>{"".join(joints)}</objects></JointSet>'
            f'{extra}</Model></OpenSimDocument>\n')


# ------------------------------------------------------------- linkages
NEUTRAL = (2.0, (0, 0, 0), (0.1, 0.01, 0.105, 0.002, 0.0, 0.001))
"""A split body OpenSim's slave inertia rule gets right: its mass equals the number of
bodies it is split into (2) and its mass centre is at its origin."""
GENERAL = (1.5, (0.03, -0.4, 0.0), (0.09, 0.012, 0.085, 0.0, 0.002, 0.001))


def four_bar(link3=NEUTRAL) -> str:
    """Ground, link1 (crank, 0.4 m), link2 (coupler), link3 (rocker, 0.8 m); pins at
    (0,0) and (1,0) on Ground. Breadth first from Ground, j1 and j4 (level 1), then j2:
    j3 closes the loop, and link3 is split."""
    bodies = [body("link1", 1.0, (0.02, 0.2, 0.01), (0.02, 0.003, 0.021, 0.001, 0, 0)),
              body("link2", 2.0, (0.5, 0.15, -0.02), (0.01, 0.2, 0.205, 0.003, 0.001, 0)),
              body("link3", *link3)]
    joints = [joint("PinJoint", "j1", "ground", (0, 0, 0), "link1", (0, 0, 0), [("q1", 0)]),
              joint("PinJoint", "j2", "link1", (0, 0.4, 0), "link2", (0, 0, 0), [("q2", 0)]),
              joint("PinJoint", "j3", "link2", (1, 0.4, 0), "link3", (0, 0, 0), [("q3", 0)]),
              joint("PinJoint", "j4", "ground", (1, 0, 0), "link3", (0, -0.8, 0),
                    [("q4", 0)])]
    return document("four_bar", bodies, joints)


# ------------------------------------------------------------------ OpenSim 3.x
def body3(name, mass, com, inertia, joint_xml="", extra="") -> str:
    """A 3.x Body holding its Joint: ``inertia`` xx yy zz xy xz yz, as six elements."""
    tags = ("xx", "yy", "zz", "xy", "xz", "yz")
    moments = "".join(f"<inertia_{t}>{fmt(v)}</inertia_{t}>" for t, v in zip(tags, inertia))
    return (f'<Body name="{name}"><mass>{fmt(mass)}</mass><mass_center>{fmt(*com)}'
            f'</mass_center>{moments}<Joint>{joint_xml}</Joint>{extra}</Body>')


def joint3(kind, name, parent, location_in_parent, orientation_in_parent, location,
           orientation, coords=(), reverse=False, extra="") -> str:
    """A 3.x joint (inside its child's Body), its coordinates (name, default value) in a
    CoordinateSet."""
    cs = "".join(f'<Coordinate name="{c}"><motion_type>rotational</motion_type>'
                 f'<default_value>{fmt(v)}</default_value><range>-3 3</range></Coordinate>'
                 for c, v in coords)
    return (f'<{kind} name="{name}"><parent_body>{parent}</parent_body>'
            f'<location_in_parent>{fmt(*location_in_parent)}</location_in_parent>'
            f'<orientation_in_parent>{fmt(*orientation_in_parent)}</orientation_in_parent>'
            f'<location>{fmt(*location)}</location><orientation>{fmt(*orientation)}'
            f'</orientation><CoordinateSet><objects>{cs}</objects><groups /></CoordinateSet>'
            f'<reverse>{"true" if reverse else "false"}</reverse>{extra}</{kind}>')


def transform_axis3(name, axis, coordinate, function_xml) -> str:
    """A 3.x TransformAxis, its function inside a <function> wrapper."""
    return (f'<TransformAxis name="{name}"><coordinates>{coordinate}</coordinates>'
            f'<axis>{fmt(*axis)}</axis><function>{function_xml}</function></TransformAxis>')


def document3(name, bodies, extra="", version=30000) -> str:
    ground = ('<Body name="ground"><mass>0</mass><mass_center>0 0 0</mass_center>'
              '<inertia_xx>0</inertia_xx><inertia_yy>0</inertia_yy><inertia_zz>0</inertia_zz>'
              '<inertia_xy>0</inertia_xy><inertia_xz>0</inertia_xz><inertia_yz>0</inertia_yz>'
              '<Joint /></Body>')
    return ('<?xml version="1.0" encoding="UTF-8" ?>\n'
            f'<OpenSimDocument Version="{version}"><Model name="{name}">'
            '<gravity> 0 -9.80665 0</gravity>'
            f'<BodySet><objects>{ground}{"".join(bodies)}</objects><groups /></BodySet>'
            f'{extra}</Model></OpenSimDocument>\n')


def arm3(extra_forces="", version=30000) -> str:
    """A 3.x arm: upper on a PinJoint from Ground (offsets with more than six significant
    digits, which OpenSim rounds), lower on a CustomJoint (a rotation LinearFunction and
    SimmSpline and LinearFunction translations of one coordinate), hand on a WeldJoint,
    block on a reversed SliderJoint from lower; markers on Ground and three bodies; a
    PointToPointSpring, a disabled one, a BushingForce with offset frames (location and
    orientation on body_1, location on body_2) and a CoordinateActuator."""
    constant = "<Constant><value>0</value></Constant>"

    def linear(slope):
        return f"<LinearFunction><coefficients> {slope} 0</coefficients></LinearFunction>"

    spline = "<SimmSpline><x> -2 -1 0 1 2</x><y> 0 0.01 0.015 0.012 0</y></SimmSpline>"
    elbow = ("<SpatialTransform>"
             + transform_axis3("rotation1", (0, 0, 1), "elbow", linear(1))
             + transform_axis3("rotation2", (1, 0, 0), "", constant)
             + transform_axis3("rotation3", (0, 1, 0), "", constant)
             + transform_axis3("translation1", (1, 0, 0), "elbow", spline)
             + transform_axis3("translation2", (0, 1, 0), "elbow", linear(0.01))
             + transform_axis3("translation3", (0, 0, 1), "", constant)
             + "</SpatialTransform>")
    bodies = [
        body3("upper", 1.5, (0.01, -0.2, 0.02), (0.0123456789, 0.004, 0.012, 0.0003, 0.0001,
                                                  0.0002),
              joint3("PinJoint", "shoulder", "ground", (0.0123456789, 1.1, 0),
                     (0, 0, 0.3141592653), (0, 0.25, 0), (0.1, 0, 0),
                     [("shoulder_angle", 0.2)])),
        body3("lower", 1.0, (0, -0.15, 0), (0.008, 0.002, 0.0075, 0, 0, 0.0001),
              joint3("CustomJoint", "elbow_joint", "upper", (0.02, -0.3, 0), (0, 0, 0),
                     (0, 0.2, 0), (0, 0, 0), [("elbow", 0.5)], extra=elbow)),
        body3("hand", 0.4, (0.01, -0.05, 0), (0.0005, 0.0003, 0.0006, 0, 0, 0),
              joint3("WeldJoint", "wrist", "lower", (0.05, -0.4, 0.01), (0, 0.2, 0),
                     (0, 0, 0), (0, 0, 0))),
        body3("block", 0.7, (0.02, 0.01, 0), (0.001, 0.002, 0.0025, 0, 0, 0),
              joint3("SliderJoint", "slider", "lower", (0, -0.1, 0.1), (0, 0, 0.5),
                     (0.02, 0, 0), (0, 0.3, 0), [("slide", 0.1)], reverse=True)),
    ]
    markers = "".join(
        f'<Marker name="{n}"><body>{b}</body><location> {fmt(*p)}</location>'
        '<fixed>false</fixed></Marker>'
        for n, b, p in [("m_ground", "ground", (0.1, 0, 0)),
                        ("m_upper", "upper", (0.01, -0.1, 0.02)),
                        ("m_hand", "hand", (0.03, -0.02, 0.01)),
                        ("m_block", "block", (0, 0.02, 0.03))])
    forces = (
        '<PointToPointSpring name="spring"><isDisabled>false</isDisabled><body1>upper'
        '</body1><body2>ground</body2><point1>0 -0.2 0</point1><point2>0.3 1 0</point2>'
        '<stiffness>50</stiffness><rest_length>0.2</rest_length></PointToPointSpring>'
        '<PointToPointSpring name="off_spring"><isDisabled>true</isDisabled><body1>hand'
        '</body1><body2>ground</body2><point1>0 0 0</point1><point2>0 0 0</point2>'
        '<stiffness>1000</stiffness><rest_length>0</rest_length></PointToPointSpring>'
        '<BushingForce name="bushing"><isDisabled>false</isDisabled><body_1>ground</body_1>'
        '<body_2>block</body_2><location_body_1>0.1 0.5 0</location_body_1>'
        '<orientation_body_1>0.1234567891 0 0</orientation_body_1>'
        '<location_body_2>0 0 0.01</location_body_2>'
        '<orientation_body_2>0 0 0</orientation_body_2>'
        '<rotational_stiffness>1 2 3</rotational_stiffness>'
        '<translational_stiffness>10 20 30</translational_stiffness>'
        '<rotational_damping>0.1 0.1 0.1</rotational_damping>'
        '<translational_damping>0.5 0.5 0.5</translational_damping></BushingForce>'
        '<CoordinateActuator name="shoulder_motor"><isDisabled>false</isDisabled>'
        '<coordinate>shoulder_angle</coordinate><optimal_force>10</optimal_force>'
        f'</CoordinateActuator>{extra_forces}')
    extra = (f"<ForceSet><objects>{forces}</objects><groups /></ForceSet>"
             f"<MarkerSet><objects>{markers}</objects><groups /></MarkerSet>")
    return document3("arm3", bodies, extra, version)

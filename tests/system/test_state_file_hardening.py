"""State files from others (system/state_file.py, State.load): a bad file is refused with
a StateMismatchError naming the file, the variable and what is wrong, before compiled code
can read past an array or the load can take unbounded memory."""

import io
import json
import re
import tracemalloc
import zipfile

import numpy as np
import pytest
from support import world

import kinetree as kt
from kinetree.errors import StateMismatchError


def model():
    """(system, state): a pendulum on a slider with a spring, a damper and gravity, whose
    force subsystem keeps the elements' parameters in a discrete variable (an array)."""
    system, matter, forces, body = world(inertia=0.05)
    cart = kt.MobilizedBody.Slider(matter.Ground(), kt.Transform(), body, kt.Transform())
    arm = kt.MobilizedBody.Pin(cart, kt.Transform(), body, kt.Transform([0, 0.5, 0]))
    kt.Force.TwoPointLinearSpring(forces, matter.Ground(), [1, 0, 0], arm, [0, 0, 0],
                                  30.0, 0.4)
    damper = kt.Force.MobilityLinearDamper(forces, arm, 0, 0.3)
    state = system.realize_topology()
    cart.set_one_q(state, 0, 0.2)
    arm.set_one_q(state, 0, 0.4)
    arm.set_one_u(state, 0, 1.5)
    damper.set_damping(state, 0.7)
    state.set_time(0.75)
    return system, state


def members_of(path) -> dict:
    with np.load(path) as archive:
        return {name: archive[name] for name in archive.files}


def rewrite(path, change_header=None, **arrays) -> None:
    """Rewrite the State file ``path`` with its header changed by ``change_header`` and
    the members ``arrays`` replaced."""
    members = members_of(path)
    header = json.loads(str(members["header"]))
    if change_header:
        change_header(header)
    members.update(header=np.array(json.dumps(header)), **arrays)
    with open(path, "wb") as f:
        np.savez(f, **members)


def params_member(path) -> str:
    """The member holding the force subsystem's element parameters (its variable 1)."""
    header = json.loads(str(members_of(path)["header"]))
    return header["parts"][1]["discrete"][1][1]["array"]


@pytest.fixture
def saved(tmp_path):
    system, state = model()
    path = tmp_path / "state.npz"
    state.save(path)
    return system, path


@pytest.mark.parametrize("change", [
    lambda p: p[:0], lambda p: p[:2], lambda p: p[:-1], lambda p: np.append(p, 1.0),
    lambda p: p.reshape(1, -1), lambda p: p.astype(np.int64), lambda p: p.astype(np.float32),
    lambda p: p.astype(complex), lambda p: np.full_like(p, np.nan),
    lambda p: np.where(np.arange(p.size) == 4, np.inf, p)],
    ids=["empty", "short", "one-short", "long", "2-d", "int", "float32", "complex", "nan",
         "inf"])
def test_element_parameters_of_another_shape_dtype_or_not_finite_are_refused(saved, change):
    system, path = saved
    name = params_member(path)
    rewrite(path, **{name: change(members_of(path)[name])})
    with pytest.raises(StateMismatchError,
                       match=r"discrete variable 1 of subsystem 'GeneralForceSubsystem'"):
        kt.State.load(path, system)


@pytest.mark.parametrize("flags", [["no", True, True], [1, 1, 1], [True, None, True],
                                   [True, True]])
def test_enabled_flags_must_be_as_many_real_bools(saved, flags):
    system, path = saved

    def change(header):
        header["parts"][1]["discrete"][0][1] = {"list": flags}

    rewrite(path, change)
    with pytest.raises(StateMismatchError, match="discrete variable 0 of subsystem "
                                                 "'GeneralForceSubsystem'"):
        kt.State.load(path, system)


@pytest.mark.parametrize("t", [float("nan"), float("inf"), "0.75", True, None, 10 ** 400],
                         ids=["nan", "inf", "string", "bool", "none", "huge-int"])
def test_a_time_that_is_not_a_finite_number_is_refused(saved, t):
    system, path = saved
    rewrite(path, lambda header: header.update(t=t))
    with pytest.raises(StateMismatchError, match="its time t = .* is not a finite number"):
        kt.State.load(path, system)


@pytest.mark.parametrize("q", [[np.nan, 0.4], [0.2, np.inf], [0.2], [0.2, 0.4, 0.0],
                               np.array([0, 1]), np.zeros((2, 1))],
                         ids=["nan", "inf", "short", "long", "int", "2-d"])
def test_q_must_be_finite_numbers_as_many_as_the_system_has(saved, q):
    system, path = saved
    rewrite(path, p0_q=np.asarray(q))
    with pytest.raises(StateMismatchError, match="subsystem 'SimbodyMatterSubsystem'"):
        kt.State.load(path, system)


def test_a_variable_of_another_stage_is_refused(saved):
    system, path = saved
    rewrite(path, lambda header: header["parts"][0]["discrete"][0].__setitem__(0, "DYNAMICS"))
    with pytest.raises(StateMismatchError, match="discrete variable 0 of subsystem "
                                                 "'SimbodyMatterSubsystem' is of stage"):
        kt.State.load(path, system)


class Spring(kt.Subsystem):
    """A subsystem whose per-State parameters [stiffness, natural length] have a range:
    it declares it for loaded files as its setter checks it."""

    def realize_topology(self, state):
        self.slot = self.allocate_discrete_variable(state, kt.Stage.DYNAMICS,
                                                    np.array([30.0, 0.4]))

    def check_loaded_discrete_variable(self, state, index, value):
        problem = super().check_loaded_discrete_variable(state, index, value)
        if problem is None and index == self.slot and value[0] < 0:
            return f"its stiffness is {value[0]}; it must be >= 0"
        return problem


def test_a_subsystem_declares_the_ranges_of_its_variables_for_loaded_files(tmp_path):
    system = kt.System()
    spring = Spring(system)
    state = system.realize_topology()
    path = tmp_path / "state.npz"
    spring.set_discrete_variable(state, spring.slot, np.array([-1e6, 0.4]))
    state.save(path)
    with pytest.raises(StateMismatchError, match="subsystem 'Spring': its stiffness is "
                                                 "-1000000.0; it must be >= 0"):
        kt.State.load(path, system)
    spring.set_discrete_variable(state, spring.slot, np.array([1e6, 0.4]))
    state.save(path)
    loaded = kt.State.load(path, system)
    assert spring.get_discrete_variable(loaded, spring.slot).tolist() == [1e6, 0.4]


def test_a_negative_damping_of_a_built_in_element_is_refused(saved):
    system, path = saved
    name = params_member(path)
    params = members_of(path)[name]
    params[-1] = -1e6                   # the damper's c, its setter refuses c < 0
    rewrite(path, **{name: params})
    with pytest.raises(StateMismatchError, match="GeneralForceSubsystem"):
        kt.State.load(path, system)


def test_a_lock_that_is_not_a_lock_is_refused(saved):
    system, path = saved
    rewrite(path, lambda header: header["parts"][0]["discrete"][2][1]["tuple"].__setitem__(
        1, 0.5))
    with pytest.raises(StateMismatchError, match="SimbodyMatterSubsystem"):
        system.realize(kt.State.load(path, system), kt.Stage.ACCELERATION)


def npy_header(shape, descr="<f8") -> bytes:
    """The bytes of a .npy header (version 1.0) declaring ``shape`` of ``descr``."""
    f = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        f, {"descr": descr, "fortran_order": False, "shape": shape})
    return f.getvalue()


def with_member(path, name, write) -> None:
    """Rewrite ``path`` with member ``name`` (an array name) written by ``write(zip)``."""
    members = members_of(path)
    del members[name]
    with open(path, "wb") as f:
        np.savez(f, **members)
    with zipfile.ZipFile(path, "a", compresslevel=1) as archive:
        write(archive)


def test_a_zip_bomb_is_refused_before_it_is_inflated(saved):
    system, path = saved
    n = 8 << 20                      # 64 MiB of zeros, deflated to about 64 kB

    def write(archive):
        info = zipfile.ZipInfo("p0_q.npy")
        info.compress_type = zipfile.ZIP_DEFLATED
        with archive.open(info, "w", force_zip64=True) as f:
            f.write(npy_header((n,)))
            zeros = bytes(1 << 20)
            for _ in range(8 * n >> 20):
                f.write(zeros)

    with_member(path, "p0_q", write)
    assert path.stat().st_size < 1 << 20
    tracemalloc.start()
    try:
        with pytest.raises(StateMismatchError) as refused:
            kt.State.load(path, system)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20
    assert re.search(r"declares 671\d{5} bytes once uncompressed", str(refused.value))


def test_an_array_declaring_a_huge_shape_is_refused_unread(saved):
    system, path = saved
    with_member(path, "p0_q", lambda archive: archive.writestr(
        "p0_q.npy", npy_header((10 ** 12,)) + bytes(8)))
    with pytest.raises(StateMismatchError, match=r"'p0_q.npy' declares a float64 array of "
                                                 r"shape \(1000000000000,\)"):
        kt.State.load(path, system)


@pytest.mark.parametrize("header", [
    np.array('{"format": "kinetree.State", "version": 1, "parts": '
             + "[" * 100_000 + "]" * 100_000 + "}"),
    np.frombuffer(b"\xff\xfe\x00\x01" * 8, dtype="<U1"),
    np.frombuffer(b"\xff\xfe\x00\x01" * 8, dtype="<U8").reshape(()),
    np.array(b'{"format": "kinetree.State", "version": 1}'),
    np.arange(10.0)], ids=["deep", "binary", "binary-0d", "bytes", "numbers"])
def test_a_header_that_is_not_json_text_is_refused(saved, header):
    system, path = saved
    members = members_of(path)
    members["header"] = header
    with open(path, "wb") as f:
        np.savez(f, **members)
    with pytest.raises(StateMismatchError, match=re.escape(str(path))):
        kt.State.load(path, system)


def test_a_value_nested_too_deeply_is_refused(saved):
    system, path = saved
    value = None
    for _ in range(200):
        value = {"list": [value]}

    def change(header):
        header["parts"][0]["discrete"][2][1]["tuple"][0] = value

    rewrite(path, change)
    with pytest.raises(StateMismatchError, match="more than 32 deep"):
        kt.State.load(path, system)


def test_a_genuine_state_file_of_another_system_is_refused_in_one_message(tmp_path):
    system, _ = model()
    other, matter, _, body = world()
    kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), body, kt.Transform())
    path = tmp_path / "other.npz"
    other.realize_topology().save(path)
    with pytest.raises(StateMismatchError) as refused:
        kt.State.load(path, system)
    message = str(refused.value)
    assert message.startswith(f"State.load: {path} was saved from a System with a "
                              f"different topology")
    assert message.count("State.load") == 1 and "damaged" not in message

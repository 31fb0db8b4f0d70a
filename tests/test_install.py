"""Where kinetree's compiled kernels are cached: in the per-user folder, in a sub-folder named
by the source's content, shared by every install of the same source and by processes
starting together; with no writable folder at all the kernels compile uncached, with one
warning.

Each case copies the package (without its caches) into a temporary folder, takes away the
write permission, and imports it from a child process that file permissions bind: as root,
which ignores them, the child runs without the capabilities that let root write anywhere
(setpriv), so the kernel refuses the writes as it would for a user of a site-packages owned
by root. A first run compiles the kernels it uses, under a minute of one core; the
read-only installs' first runs go side by side, two of them on one cache folder.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import kinetree
from kinetree import _compile_cache

PACKAGE = Path(kinetree.__file__).resolve().parent
ROOT_DROPS = ["setpriv", "--inh-caps=-dac_override,-dac_read_search,-fowner",
              "--bounding-set=-dac_override,-dac_read_search,-fowner", "--"]

M1, M2, L1, L2, G = 1.0, 0.5, 1.0, 0.7, 9.81  # point masses (kg) on massless rods (m)
Q, U = (0.5, -0.3), (0.8, -1.1)                 # the Pins' angles (rad) and rates (rad/s)

CHILD = f"""
import json, sys
from numba.core import event

compiled = []
class Count(event.Listener):
    def on_start(self, ev):
        compiled.append(ev.data["dispatcher"].py_func.__qualname__)
    def on_end(self, ev):
        pass
event.register("numba:compile", Count())

import kinetree as kt
from kinetree import _compile_cache

report = {{"file": kt.__file__, "cache_dir": str(_compile_cache.cache_dir)}}
if sys.argv[1:] == ["pendulum"]:
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -{G}, 0])
    ball1 = kt.Body.Rigid(kt.MassProperties({M1}, [0, 0, 0], kt.Inertia(0)))
    ball2 = kt.Body.Rigid(kt.MassProperties({M2}, [0, 0, 0], kt.Inertia(0)))
    upper = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), ball1,
                                 kt.Transform([0, {L1}, 0]))
    kt.MobilizedBody.Pin(upper, kt.Transform(), ball2, kt.Transform([0, {L2}, 0]))
    state = system.realize_topology()
    state.set_q({list(Q)})
    state.set_u({list(U)})
    system.realize(state, kt.Stage.ACCELERATION)
    report["u_dot"] = state.get_u_dot().tolist()
report["compiled"] = len(compiled)
print(json.dumps(report))
"""


def double_pendulum_u_dot() -> list[float]:
    """The Pins' u̇ from the textbook equations of a double pendulum of point masses, in
    absolute angles from the downward vertical (the second Pin's angle is relative)."""
    t1, t2 = Q[0], Q[0] + Q[1]
    w1, w2 = U[0], U[0] + U[1]
    d = 2 * M1 + M2 - M2 * math.cos(2 * t1 - 2 * t2)
    n1 = (-G * (2 * M1 + M2) * math.sin(t1) - M2 * G * math.sin(t1 - 2 * t2)
          - 2 * math.sin(t1 - t2) * M2 * (w2 ** 2 * L2 + w1 ** 2 * L1 * math.cos(t1 - t2)))
    n2 = 2 * math.sin(t1 - t2) * (w1 ** 2 * L1 * (M1 + M2) + G * (M1 + M2) * math.cos(t1)
                                  + w2 ** 2 * L2 * M2 * math.cos(t1 - t2))
    a1, a2 = n1 / (L1 * d), n2 / (L2 * d)
    return [a1, a2 - a1]


def bound_by_permissions() -> list[str]:
    """The command prefix under which a child cannot write where permissions forbid it."""
    if sys.platform == "win32":
        pytest.skip("Windows has no read-only folders by mode bits")
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("root ignores file permissions, and setpriv, which drops that, is missing")
    probe = subprocess.run([*ROOT_DROPS, "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"root ignores file permissions and cannot drop that here: {probe.stderr}")
    return ROOT_DROPS


def set_writable(top: Path, writable: bool) -> None:
    """chmod ``top`` and everything under it to read-only, or back to owner-writable."""
    for path in [top, *top.rglob("*")]:
        mode = 0o755 if path.is_dir() else 0o644
        path.chmod(mode if writable else mode & ~0o222)


def install(where: Path, read_only: bool) -> Path:
    """A copy of the package under ``where`` (for PYTHONPATH), without compiled files."""
    shutil.copytree(PACKAGE, where / "kinetree",
                    ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))
    if read_only:
        set_writable(where, False)
    return where


def start(site: Path, home: Path, xdg: Path | None, *args: str,
          cache_dir: Path | None = None) -> subprocess.Popen:
    """Run CHILD with ``args`` on the install at ``site``, with HOME and XDG_CACHE_HOME (unset
    when None) and NUMBA_CACHE_DIR (unset when None) as given."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME")}
    env.update(HOME=str(home), PYTHONPATH=str(site))
    if xdg is not None:
        env["XDG_CACHE_HOME"] = str(xdg)
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = str(cache_dir)
    return subprocess.Popen([*bound_by_permissions(), sys.executable, "-c", CHILD, *args],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(child: subprocess.Popen) -> tuple[dict, str]:
    """The child's report and its stderr, once it has succeeded."""
    out, err = child.communicate(timeout=900)
    assert child.returncode == 0, err
    return json.loads(out.strip().splitlines()[-1]), err


def files_under(top: Path) -> set[Path]:
    """Every file under ``top``: what a run wrote is the difference of two calls."""
    return {p for p in top.rglob("*") if p.is_file()}


@pytest.fixture(scope="module")
def read_only(tmp_path_factory):
    """Two read-only installs and the first runs of the pendulum on each, started together:
    one with a writable XDG_CACHE_HOME ("user", two processes at once), one where HOME and
    XDG_CACHE_HOME are read-only too ("nowhere"). Yields their folders, reports, stderr and
    files before."""
    runs = {case: {"top": tmp_path_factory.mktemp(case)} for case in ("user", "nowhere")}
    try:
        for case, run in runs.items():
            top = run["top"]
            run.update(site=install(top / "site", read_only=True), home=top / "home",
                       xdg=top / "xdg")
            run["home"].mkdir()
            run["xdg"].mkdir()
            if case == "nowhere":
                set_writable(run["home"], False)
                set_writable(run["xdg"], False)
            run["before"] = files_under(top)
            run["children"] = [start(run["site"], run["home"], run["xdg"], "pendulum")
                               for _ in range(2 if case == "user" else 1)]
        for run in runs.values():
            run["reports"] = [finish(child) for child in run["children"]]
            run["report"], run["stderr"] = run["reports"][0]
        yield runs
    finally:
        for run in runs.values():
            for child in run.get("children", ()):
                child.kill()
            set_writable(run["top"], True)


def source_folder(base: Path) -> Path:
    return base / _compile_cache.source_key()


def test_read_only_install_caches_kernels_in_the_user_folder(read_only):
    """Both processes started together get the analytic u̇ and leave one cache, named by
    the source, that a third run compiles nothing from; the first import says to warm up
    and the first compilation says why the run pauses, once."""
    run = read_only["user"]
    report = run["report"]
    assert Path(report["file"]).is_relative_to(run["site"])
    for other, stderr in run["reports"]:
        assert other["u_dot"] == pytest.approx(double_pendulum_u_dot(), rel=1e-12)
        assert other["compiled"] > 0 and "UncachedKernelsWarning" not in stderr
        assert stderr.count(_compile_cache.COMPILING_NOTICE) == 1
    told = sum(stderr.count(_compile_cache.WARMUP_NOTICE) for _, stderr in run["reports"])
    assert 1 <= told <= 2   # once per version, unless two processes import it at once
    user_cache = source_folder(run["xdg"] / "kinetree" / "numba")
    assert report["cache_dir"] == str(user_cache)
    new = files_under(run["top"]) - run["before"]
    assert new and all(p.is_relative_to(user_cache) for p in new)
    assert any(p.suffix == ".nbi" for p in new)

    again, stderr = finish(start(run["site"], run["home"], run["xdg"], "pendulum"))
    assert again["u_dot"] == report["u_dot"]
    assert again["compiled"] == 0  # every kernel came from the user folder
    assert _compile_cache.COMPILING_NOTICE not in stderr
    assert _compile_cache.WARMUP_NOTICE not in stderr


def test_another_install_of_the_same_source_shares_the_cache(read_only, tmp_path):
    """A writable copy elsewhere, in another folder, compiles nothing: the cache is keyed
    by the source's content, not its path or its files' times."""
    run = read_only["user"]
    site = install(tmp_path / "elsewhere", read_only=False)
    report, _ = finish(start(site, run["home"], run["xdg"], "pendulum"))
    assert report["cache_dir"] == run["report"]["cache_dir"]
    assert report["compiled"] == 0 and report["u_dot"] == run["report"]["u_dot"]


def test_with_no_writable_folder_kernels_compile_uncached_and_one_warning_says_so(read_only):
    run = read_only["nowhere"]
    report = run["report"]
    assert Path(report["file"]).is_relative_to(run["site"])
    assert report["u_dot"] == pytest.approx(double_pendulum_u_dot(), rel=1e-12)
    assert report["cache_dir"] == "None" and report["compiled"] > 0
    assert files_under(run["top"]) == run["before"]
    assert run["stderr"].count("UncachedKernelsWarning") == 1
    assert "recompiled on every run" in run["stderr"] and "NUMBA_CACHE_DIR" in run["stderr"]


def test_the_users_numba_cache_dir_is_the_base_folder(tmp_path):
    site = install(tmp_path / "site", read_only=True)
    try:
        report, _ = finish(start(site, tmp_path, None, cache_dir=tmp_path / "mine"))
    finally:
        set_writable(site, True)
    assert report["cache_dir"] == str(source_folder(tmp_path / "mine"))


def test_the_source_key_changes_with_any_source_file(monkeypatch, tmp_path):
    copy = install(tmp_path, read_only=False) / "kinetree"
    monkeypatch.setattr(_compile_cache, "PACKAGE_DIR", copy)
    key = _compile_cache.source_key()
    assert key == _compile_cache.cache_dir.name     # the same source as the one running
    helper_file = copy / "multibody" / "kernels" / "small.py"
    helper_file.write_text(helper_file.read_text() + "\n# changed\n")
    assert _compile_cache.source_key() != key


def test_user_cache_dir_follows_xdg_cache_home(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert _compile_cache.user_cache_dir() == tmp_path / "kinetree" / "numba"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="~/.cache is Linux's folder")
def test_user_cache_dir_ignores_a_relative_xdg_cache_home(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")  # the XDG spec says to ignore it
    monkeypatch.setenv("HOME", str(tmp_path))
    assert _compile_cache.user_cache_dir() == tmp_path / ".cache" / "kinetree" / "numba"

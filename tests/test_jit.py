"""The helpers of compiled code (``kinetree.jit.helper``): compiled to LLVM code that their
callers link in (no machine code, no Python entry point of their own), they give the same
results inside compiled code as from Python, where a call compiles an ordinary entry on
first use; and a link-only helper's cached code serves a new caller in a later process."""

import os
import subprocess
import sys
import textwrap

import numba
import numpy as np

from kinetree.jit import HelperDispatcher, LinkOnlyLibrary
from kinetree.multibody.kernels import small
from kinetree.multibody.kernels.position import position_step
from kinetree.multibody.mobilizers import ball


@numba.njit
def _cross_through_helper(a, b):
    return small.cross3(small.vec3(a), small.vec3(b))


def test_a_helper_runs_inside_compiled_code():
    a, b = np.array([1.0, 2.0, 3.0]), np.array([-2.0, 0.5, 4.0])
    np.testing.assert_array_equal(_cross_through_helper(a, b), np.cross(a, b))


def test_a_helper_called_from_python_gives_what_compiled_code_gets():
    q = np.array([0.9, 0.1, -0.3, 0.3])
    q /= np.linalg.norm(q)
    R, p = np.empty((3, 3)), np.empty(3)
    ball.x_fm(q, np.zeros(0), R, p)
    w, x, y, z = q  # the rotation matrix of a unit quaternion, written out
    expected = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                         [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                         [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])
    np.testing.assert_allclose(R, expected, atol=1e-15)
    np.testing.assert_array_equal(p, 0.0)
    assert np.array_equal(small.vec3(np.arange(3.0)), (0.0, 1.0, 2.0))


def test_helpers_compile_to_linkable_code_only():
    assert isinstance(position_step, HelperDispatcher)
    assert isinstance(ball.x_fm, HelperDispatcher)
    _cross_through_helper(np.ones(3), np.ones(3))
    (compiled,) = small.cross3.overloads.values()
    assert isinstance(compiled.library, LinkOnlyLibrary)
    assert compiled.library.get_pointer_to_function(compiled.fndesc.llvm_func_name) == 0


_PROGRAM = textwrap.dedent("""
    import numba, numpy as np
    from kinetree.multibody.kernels import small

    @numba.njit
    def caller_{n}(a, b):
        return small.cross3(small.vec3(a), small.vec3(b))

    a, b = np.array([1.0, 2.0, 3.0]), np.array([-2.0, 0.5, 4.0])
    assert np.array_equal(caller_{n}(a, b), np.cross(a, b))
    print(sum(small.cross3.stats.cache_hits.values()))
""")


def test_a_cached_helper_links_into_a_new_caller_in_a_later_process(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    hits = [subprocess.run([sys.executable, "-c", _PROGRAM.format(n=n)], env=env,
                           capture_output=True, text=True, check=True).stdout.split()[-1]
            for n in (1, 2)]
    assert hits == ["0", "1"]  # compiled by the first, loaded from the cache by the second
    assert list(tmp_path.rglob("*cross3*.link.nbi"))

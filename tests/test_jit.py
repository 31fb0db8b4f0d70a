"""The helpers of compiled code (``kinetree.jit.helper``): compiled without a Python entry
point, they work from compiled code and refuse a call from Python with a clear error
instead of crashing the process."""

import numba
import numpy as np
import pytest

from kinetree.jit import CompiledOnlyDispatcher
from kinetree.multibody.kernels import small
from kinetree.multibody.kernels.position import position_step


@numba.njit
def _cross_through_helper(a, b):
    return small.cross3(small.vec3(a), small.vec3(b))


def test_a_helper_runs_inside_compiled_code():
    a, b = np.array([1.0, 2.0, 3.0]), np.array([-2.0, 0.5, 4.0])
    np.testing.assert_array_equal(_cross_through_helper(a, b), np.cross(a, b))


def test_a_helper_called_from_python_raises_and_names_itself():
    with pytest.raises(TypeError, match=r"kernels\.small\.vec3 is a helper of compiled code"):
        small.vec3(np.zeros(3))
    assert np.array_equal(small.vec3.py_func(np.arange(3.0)), (0.0, 1.0, 2.0))


def test_the_sweeps_steps_are_helpers():
    assert isinstance(position_step, CompiledOnlyDispatcher)

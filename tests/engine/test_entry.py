"""Compiled code calling compiled code through its address (engine/entry.py): the callee
runs with the caller's arguments, is not compiled into the caller, and its exceptions
reach Python."""

import numba
import numpy as np
import pytest

from kinetree.engine.entry import call_native, entry_point, native_address


@numba.njit
def scale_into(factor, source, target):
    for i in range(source.shape[0]):
        target[i] = factor * source[i]
    return source.shape[0]


@numba.njit
def shift_into(factor, source, target):
    for i in range(source.shape[0]):
        target[i] = factor + source[i]
    return -1


@numba.njit
def refuse(factor, source, target):
    if factor < 0:
        raise ValueError("a negative factor")
    return 0


@numba.njit
def twice(address, factor, arrays):
    """The callee at ``address`` called twice, its arguments given one by one and from a
    tuple."""
    n = call_native(address, factor, arrays[0], arrays[1])
    return n + call_native(address, factor + 1.0, *arrays)


def arguments():
    return 2.0, (np.arange(4.0), np.zeros(4))


def test_the_callee_runs_on_the_callers_arguments():
    factor, arrays = arguments()
    address = native_address(scale_into, (factor, *arrays))
    assert twice(address, factor, arrays) == 8
    np.testing.assert_array_equal(arrays[1], 3.0 * np.arange(4.0))


def test_one_compiled_caller_calls_whichever_function_it_is_given():
    factor, arrays = arguments()
    run = entry_point(twice, (0, factor, arrays))
    assert run(native_address(shift_into, (factor, *arrays)), factor, arrays) == -2
    np.testing.assert_array_equal(arrays[1], 3.0 + np.arange(4.0))
    assert run(native_address(scale_into, (factor, *arrays)), factor, arrays) == 8
    np.testing.assert_array_equal(arrays[1], 3.0 * np.arange(4.0))
    assert len(twice.signatures) == 1


def test_an_exception_in_the_callee_reaches_python():
    _, arrays = arguments()
    address = native_address(refuse, (1.0, *arrays))
    assert twice(address, 1.0, arrays) == 0
    with pytest.raises(ValueError, match="a negative factor"):
        twice(address, -5.0, arrays)

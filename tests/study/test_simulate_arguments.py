"""simulate's arguments are checked with errors that name them: a time that is not a
finite number, a report interval giving more rows than anyone can store, an output that
is not one number."""

import numpy as np
import pytest
from support import world

import kinetree as kt
from kinetree.errors import InvalidArgumentError, SimulationError


def pendulum():
    system, matter, forces, body = world()
    pin = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), body, kt.Transform())
    state = system.realize_topology()
    pin.set_one_q(state, 0, 0.5)
    return system, state


@pytest.mark.parametrize("t_final,match", [
    (float("inf"), "t_final must be a finite time"), (None, "t_final must be a number"),
    ("1", "t_final must be a number"), (1j, "t_final must be a number"),
    (0.0, "is not after the State's time")])
def test_a_final_time_that_is_no_time_is_refused(t_final, match):
    system, state = pendulum()
    with pytest.raises(InvalidArgumentError, match=match):
        kt.simulate(system, state, t_final, progress=False)


def test_a_report_interval_making_too_many_rows_is_refused():
    system, state = pendulum()
    with pytest.raises(InvalidArgumentError, match="rows, more than 1e"):
        kt.simulate(system, state, 1.0, report_interval=1e-300, progress=False)


def test_an_output_that_is_not_one_number_names_its_column():
    system, state = pendulum()
    with pytest.raises(SimulationError, match="output 'tip' returned") as caught:
        kt.simulate(system, state, 0.1, outputs={"tip": lambda s: np.ones(3)},
                    progress=False)
    assert isinstance(caught.value.__cause__, InvalidArgumentError)
    traj = kt.simulate(system, state, 0.1, outputs={"one": lambda s: np.float32(1.0)},
                       progress=False)
    assert (traj.columns["one"] == 1.0).all()

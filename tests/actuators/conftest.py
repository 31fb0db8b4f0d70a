"""What the actuator tests share: the bodies' frames a kind's compiled ``calc`` takes,
for a call from Python (a muscle reads none of them)."""

import numpy as np
import pytest


@pytest.fixture(scope="module")
def frames():
    """R_GB (3 bodies' identity rotations) and p_GB (their origins at Ground's)."""
    return np.ascontiguousarray(np.broadcast_to(np.eye(3), (3, 3, 3))), np.zeros((3, 3))

"""The rigid stepper's warm start (``pgs.warm_start``): each contact starts from its own
impulses of the step before, found by its key whether the contacts come in the same order
or not, the friction impulse turned onto the contact's tangents of this step; a contact new
to the step starts from zero."""

import numpy as np

from kinetree.math import Rotation
from kinetree.multibody.unilateral import pgs


def _frames(n, seed):
    rng = np.random.default_rng(seed)
    return np.array([Rotation.about_z(a).as_matrix() @ Rotation.about_x(b).as_matrix()
                     for a, b in rng.uniform(-np.pi, np.pi, (n, 2))])


def test_each_contact_starts_from_its_own_impulses_in_any_order():
    n = 6
    keys = np.array([40, 3, 17, 8, 100, 55], np.int64)
    frame = _frames(n, 0)
    lam = np.random.default_rng(1).uniform(-1.0, 1.0, (n, 3))
    last = pgs.carried_impulses(keys, frame, lam)
    # the same contacts in the same frames: the impulses as they were
    start = np.zeros((n, 3))
    assert pgs.warm_start(keys, frame, *last, start)
    assert np.allclose(start, lam, rtol=0, atol=1e-14)
    # reordered, one gone and one new, the frames turned: each by its key
    order = np.array([5, 0, 2, 4, 1])
    new_keys = np.append(keys[order], 7)
    turned = _frames(n, 2)
    start = np.zeros((n, 3))
    assert not pgs.warm_start(new_keys, turned, *last, start)
    for c, old in enumerate(order):
        friction_G = lam[old, 1] * frame[old, 1] + lam[old, 2] * frame[old, 2]
        assert start[c, 0] == lam[old, 0]
        assert np.allclose(start[c, 1:], turned[c, 1:] @ friction_G, rtol=0, atol=1e-14)
    assert np.all(start[-1] == 0.0)

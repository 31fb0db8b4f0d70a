"""The coefficients a unilateral contact takes at a step: friction by slip speed and
restitution by impact speed, as Simbody's calcEffectiveCOF and calcEffectiveCOR define
them, for one contact and for arrays of contacts."""

import numpy as np
import pytest

from kinetree.multibody.unilateral import calc_effective_cof, calc_effective_cor


def test_friction_is_static_up_to_the_transition_speed_then_dynamic_plus_viscous():
    mu_s, mu_d, mu_v, vt = 0.8, 0.5, 0.1, 0.01
    assert calc_effective_cof(mu_s, mu_d, mu_v, vt, 0.0) == 0.8
    assert calc_effective_cof(mu_s, mu_d, mu_v, vt, vt) == pytest.approx(0.8 + 0.1 * vt)
    assert calc_effective_cof(mu_s, mu_d, mu_v, vt, 2.0) == pytest.approx(0.5 + 0.2)
    slips = np.array([0.0, 0.005, 0.02, 3.0])
    mu = calc_effective_cof(np.full(4, mu_s), np.full(4, mu_d), 0.0, vt, slips)
    np.testing.assert_array_equal(mu, [0.8, 0.8, 0.5, 0.5])


def test_restitution_is_zero_below_capture_and_min_cor_above_its_speed():
    e = calc_effective_cor(0.5, 0.01, 2.0, np.array([0.005, 1.0, 2.0, 5.0]))
    # between the capture speed and the min-COR speed it falls linearly from 1 toward
    # min_cor: 1 - (1 - 0.5)/2 * 1 = 0.75 at 1 m/s
    np.testing.assert_allclose(e, [0.0, 0.75, 0.5, 0.5], rtol=0, atol=1e-15)
    assert calc_effective_cor(0.5, 0.01, 2.0, 1.0) == pytest.approx(0.75)

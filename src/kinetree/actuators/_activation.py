"""OpenSim's MuscleFirstOrderActivationDynamicModel: a muscle's activation follows its
excitation through a first-order lag whose time constant depends on the activation
(Thelen 2003; Winters 1995), and stays within [minimum activation, 1]."""

from __future__ import annotations

from kinetree.jit import helper


@helper
def clamp_activation(activation, minimum_activation):
    """The activation as the model uses it: ``activation`` clamped to [minimum, 1]."""
    return min(max(activation, minimum_activation), 1.0)


@helper(error_model="numpy")
def activation_rate(activation, excitation, tau_activation, tau_deactivation,
                    minimum_activation):
    """da/dt (1/s): (u - a) / tau with a clamped to [minimum, 1], tau the activation
    time constant (s) times (0.5 + 1.5 a) while the excitation u exceeds a, else the
    deactivation time constant over (0.5 + 1.5 a)."""
    a = clamp_activation(activation, minimum_activation)
    if excitation > a:
        tau = tau_activation * (0.5 + 1.5 * a)
    else:
        tau = tau_deactivation / (0.5 + 1.5 * a)
    return (excitation - a) / tau

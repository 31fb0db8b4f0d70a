"""Integrators: advance a State through time (the paper's §3.2-3.3), one file per method,
all behind the Integrator interface of integrator.py."""

from kinetree.integrators.cpodes import CPodesIntegrator
from kinetree.integrators.explicit_euler import ExplicitEulerIntegrator
from kinetree.integrators.integrator import (
    IntegrationError,
    Integrator,
    SuccessfulStepStatus,
    TerminationReason,
)
from kinetree.integrators.runge_kutta2 import RungeKutta2Integrator
from kinetree.integrators.runge_kutta3 import RungeKutta3Integrator
from kinetree.integrators.runge_kutta4 import RungeKutta4Integrator
from kinetree.integrators.runge_kutta_feldberg import RungeKuttaFeldbergIntegrator
from kinetree.integrators.runge_kutta_merson import RungeKuttaMersonIntegrator
from kinetree.integrators.semi_explicit_euler import SemiExplicitEulerIntegrator
from kinetree.integrators.semi_explicit_euler2 import SemiExplicitEuler2Integrator
from kinetree.integrators.verlet import VerletIntegrator

__all__ = [
    "CPodesIntegrator",
    "ExplicitEulerIntegrator",
    "IntegrationError",
    "Integrator",
    "RungeKutta2Integrator",
    "RungeKutta3Integrator",
    "RungeKutta4Integrator",
    "RungeKuttaFeldbergIntegrator",
    "RungeKuttaMersonIntegrator",
    "SemiExplicitEuler2Integrator",
    "SemiExplicitEulerIntegrator",
    "SuccessfulStepStatus",
    "TerminationReason",
    "VerletIntegrator",
]

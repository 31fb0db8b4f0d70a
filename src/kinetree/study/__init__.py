"""Studies: what drives States through a System (TimeStepper, Assembler, ...)."""

from kinetree.study.assembler import Assembler
from kinetree.study.assembly_condition import AssemblyCondition, QValue
from kinetree.study.ensemble import Ensemble, simulate_ensemble
from kinetree.study.markers import Markers
from kinetree.study.observed_point_fitter import ObservedPointFitter
from kinetree.study.simulate import simulate
from kinetree.study.time_stepper import TimeStepper
from kinetree.study.trajectory import Trajectory

__all__ = ["Assembler", "AssemblyCondition", "Ensemble", "Markers", "ObservedPointFitter",
           "QValue", "simulate", "simulate_ensemble", "TimeStepper", "Trajectory"]

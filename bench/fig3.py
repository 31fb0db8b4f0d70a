"""The Simbody paper's Fig. 3: CPU time of a simulation against the accuracy α.

The model is the paper's (``fig3_model``: a base on a slider carrying 11 chains of 20
pin-jointed bodies, 221 bodies, gravity), started from the random q and u (seed 0) that
``bench/forward_dynamics.py`` uses, identical in both libraries. For each α it simulates
``--t-final`` seconds (20 by default) with Runge-Kutta-Merson:

- kinetree: ``RungeKuttaMersonIntegrator`` + ``TimeStepper``, ``step_to(t_final)``;
- Simbody through OpenSim (when opensim is installed, ``--no-opensim`` to skip): the same
  model built with OpenSim joints and run by OpenSim's ``Manager`` in this process
  (``IntegratorMethod_RungeKuttaMerson``, ``setIntegratorAccuracy(α)``, storage and
  analyses off so that only the integration is timed). Its step and realization counts
  are read from the Simbody integrator behind the Manager through ctypes.

Timed: CPU seconds (``time.process_time``) of setting up the integrator, initializing
and integrating, the best of ``--repeat`` runs. Printed per α: CPU, steps taken and
realizations for both, the CPU ratio kinetree / OpenSim, and the largest |Δq| between the
two final states and between two at ``--agree-time`` (0.5 s; separate, untimed runs):
over 20 s this tree's motion is chaotic, so the two trajectories part however accurate
each is, while over half a second they agree to about α. The runs of the two libraries
alternate, so that load from other processes falls on both alike. The log-log slope of
CPU against α is fitted for both (the paper finds about -1/4: a fourth-order method's
step grows as α^(1/4)); the plot goes to ``out/bench/fig3.png``.

Run: ``.venv/bin/python bench/fig3.py`` (the ``bench`` and ``validation`` extras; the
full sweep, 20 s at six α and two runs each, takes about ten minutes, nearly all of it
OpenSim's); ``--quick`` for a smoke run (1 s, α = 1e-2 ... 1e-4, one run each).
"""

from __future__ import annotations

import argparse
import ctypes
import glob
import math
import os
import time
from pathlib import Path

import numpy as np
from fig3_model import (
    build_kinetree,
    build_opensim,
    fig3_tree,
    get_opensim_q,
    random_model,
    set_opensim_state,
)

import kinetree as kt

DEFAULT_ALPHAS = (1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7)
DEFAULT_PNG = Path(__file__).resolve().parent.parent / "out" / "bench" / "fig3.png"


# --------------------------------------------------------------------------- kinetree
def run_kinetree(system, state, alpha, t_final):
    """(CPU s, steps taken, realizations, projections, final q)."""
    c0 = time.process_time()
    integ = kt.RungeKuttaMersonIntegrator(system)
    integ.set_accuracy(alpha)
    stepper = kt.TimeStepper(system, integ)
    stepper.initialize(state)
    stepper.step_to(t_final)
    cpu = time.process_time() - c0
    return (cpu, integ.get_num_steps_taken(), integ.get_num_realizations(),
            integ.get_num_projections(), np.array(stepper.get_state().get_q()))


# ---------------------------------------------------------------------------- OpenSim
class SimbodyIntegratorStats:
    """Integrator::getNumStepsTaken / getNumRealizations on the Simbody integrator behind
    an OpenSim Manager (its bindings return it as an opaque pointer), called through ctypes
    on the libSimTKsimbody that opensim has loaded. Counts are nan when unreachable."""

    def __init__(self):
        import opensim as osim
        self._steps = self._realizations = None
        lib_dir = os.path.dirname(osim.__file__)
        for path in sorted(glob.glob(os.path.join(lib_dir, "libSimTKsimbody.so*")),
                           reverse=True):
            try:
                lib = ctypes.CDLL(path, mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
                steps = lib._ZNK5SimTK10Integrator16getNumStepsTakenEv
                realizations = lib._ZNK5SimTK10Integrator18getNumRealizationsEv
            except (OSError, AttributeError):
                continue
            for f in (steps, realizations):
                f.argtypes, f.restype = [ctypes.c_void_p], ctypes.c_int
            self._steps, self._realizations = steps, realizations
            break

    def __call__(self, manager):
        if self._steps is None:
            return math.nan, math.nan
        ptr = int(manager.getIntegrator())
        return self._steps(ptr), self._realizations(ptr)


def run_opensim(model, o_state, alpha, t_final, stats, n):
    """(CPU s, steps taken, realizations, final q in kinetree's order)."""
    import opensim as osim
    c0 = time.process_time()
    manager = osim.Manager(model)
    manager.setIntegratorMethod(osim.Manager.IntegratorMethod_RungeKuttaMerson)
    manager.setIntegratorAccuracy(alpha)
    manager.setWriteToStorage(False)
    manager.setRecordStatesTrajectory(False)
    manager.setPerformAnalyses(False)
    manager.initialize(o_state)
    final = manager.integrate(t_final)
    cpu = time.process_time() - c0
    steps, realizations = stats(manager)
    return cpu, steps, realizations, get_opensim_q(model, final, n)


# ------------------------------------------------------------------------------ main
def fit_slope(alphas, cpu):
    """Slope of log10(CPU) against log10(α)."""
    return float(np.polyfit(np.log10(alphas), np.log10(cpu), 1)[0])


def plot(path, alphas, cpu_kt, cpu_os, slope_kt, slope_os, t_final):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    alphas = np.asarray(alphas)
    fig, ax = plt.subplots(figsize=(6, 4.5))
    series = [("kinetree", cpu_kt, slope_kt, "o", "C0")]
    if cpu_os is not None:
        series.append(("Simbody via OpenSim", cpu_os, slope_os, "s", "C1"))
    for label, cpu, slope, marker, color in series:
        ax.loglog(alphas, cpu, marker, color=color, label=f"{label} (slope {slope:.3f})")
        fit = np.polyfit(np.log10(alphas), np.log10(cpu), 1)
        ax.loglog(alphas, 10 ** np.polyval(fit, np.log10(alphas)), "-", color=color, lw=1)
    ax.set_xlabel("accuracy α")
    ax.set_ylabel("CPU time (s)")
    ax.set_title(f"Fig. 3 model (221 bodies), {t_final:g} s, Runge-Kutta-Merson")
    ax.invert_xaxis()
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--alphas", type=float, nargs="+", default=list(DEFAULT_ALPHAS))
    parser.add_argument("--t-final", type=float, default=20.0)
    parser.add_argument("--repeat", type=int, default=2,
                        help="runs per α and library; the best CPU time is kept")
    parser.add_argument("--no-opensim", action="store_true")
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: 1 s, α = 1e-2, 1e-3, 1e-4, one run each")
    parser.add_argument("--png", type=Path, default=DEFAULT_PNG)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--agree-time", type=float, default=0.5,
                        help="also compare the two q at this time (untimed runs)")
    args = parser.parse_args(argv)
    if args.quick:
        args.t_final, args.alphas, args.repeat = 1.0, [1e-2, 1e-3, 1e-4], 1
    alphas = sorted(args.alphas, reverse=True)

    parents, kinds = fig3_tree()
    n = len(parents)
    frames, bodies, q, u = random_model(parents, args.seed)
    system = build_kinetree(parents, kinds, frames, bodies)
    state = system.realize_topology()
    state.set_q(q)
    state.set_u(u)
    run_kinetree(system, state, 1e-2, 0.05)          # compile and warm the kernels

    with_opensim = not args.no_opensim
    if with_opensim:
        try:
            import opensim  # noqa: F401
        except ImportError:
            print("opensim is not installed: kinetree only")
            with_opensim = False
    if with_opensim:
        model = build_opensim(parents, kinds, frames, bodies)
        o_state = model.initSystem()
        set_opensim_state(model, o_state, q, u)
        stats = SimbodyIntegratorStats()

    print(f"Fig. 3 model: {n} bodies, {args.t_final:g} s, Runge-Kutta-Merson, "
          f"CPU best of {args.repeat}")
    head = f"{'α':>7} {'kinetree s':>10} {'steps':>7} {'realiz.':>8}"
    if with_opensim:
        head += (f" {'OpenSim s':>10} {'steps':>7} {'realiz.':>8} {'ratio':>6}"
                 f" {'|Δq| end':>9} {f'|Δq| {args.agree_time:g} s':>10}")
    print(head, flush=True)
    rows = []
    for alpha in alphas:
        runs_kt, runs_os = [], []
        for _ in range(args.repeat):
            runs_kt.append(run_kinetree(system, state, alpha, args.t_final))
            if with_opensim:
                runs_os.append(run_opensim(model, o_state, alpha, args.t_final, stats, n))
        cpu_kt = min(r[0] for r in runs_kt)
        _, steps_kt, real_kt, _, q_kt = runs_kt[0]
        line = f"{alpha:>7.0e} {cpu_kt:>10.3f} {steps_kt:>7d} {real_kt:>8d}"
        row = dict(alpha=alpha, cpu_kt=cpu_kt, steps_kt=steps_kt, real_kt=real_kt)
        if with_opensim:
            cpu_os = min(r[0] for r in runs_os)
            _, steps_os, real_os, q_os = runs_os[0]
            dq = float(np.abs(q_kt - q_os).max())
            dq_short = math.nan
            if args.agree_time < args.t_final:
                dq_short = float(np.abs(
                    run_kinetree(system, state, alpha, args.agree_time)[-1]
                    - run_opensim(model, o_state, alpha, args.agree_time, stats, n)[-1]).max())
            line += (f" {cpu_os:>10.3f} {steps_os:>7} {real_os:>8} {cpu_kt / cpu_os:>6.3f}"
                     f" {dq:>9.1e} {dq_short:>10.1e}")
            row.update(cpu_os=cpu_os, steps_os=steps_os, real_os=real_os, dq=dq,
                       dq_short=dq_short)
        print(line, flush=True)
        rows.append(row)

    cpu_kt = np.array([r["cpu_kt"] for r in rows])
    slope_kt = fit_slope(alphas, cpu_kt) if len(alphas) > 1 else math.nan
    cpu_os = slope_os = None
    per_real_kt = 1e6 * sum(cpu_kt) / sum(r["real_kt"] for r in rows)
    print(f"log-log slope of CPU against α: kinetree {slope_kt:.3f}", end="")
    if with_opensim:
        cpu_os = np.array([r["cpu_os"] for r in rows])
        slope_os = fit_slope(alphas, cpu_os) if len(alphas) > 1 else math.nan
        ratios = cpu_kt / cpu_os
        print(f", OpenSim {slope_os:.3f}\nCPU ratio kinetree / OpenSim "
              f"{ratios.min():.3f} to {ratios.max():.3f} (target <= 0.5 at every α: "
              f"{'met' if ratios.max() <= 0.5 else 'not met'})")
        real_os = sum(r["real_os"] for r in rows)
        per_real_os = 1e6 * sum(cpu_os) / real_os if real_os == real_os else math.nan
        print(f"CPU per realization, all α: kinetree {per_real_kt:.0f} µs, "
              f"OpenSim {per_real_os:.0f} µs")
    else:
        print(f"\nCPU per realization, all α: kinetree {per_real_kt:.0f} µs")
    if len(alphas) > 1:
        plot(args.png, alphas, cpu_kt, cpu_os, slope_kt, slope_os, args.t_final)
        print(f"plot: {args.png}")
    return rows


if __name__ == "__main__":
    main()

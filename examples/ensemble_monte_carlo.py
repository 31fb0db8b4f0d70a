"""A Monte Carlo over initial conditions: how soon a double pendulum forgets its start.

OpenSim's double_pendulum.osim is two 1 kg point masses on massless 0.5 m rods, hinged
at the shoulder (coordinate q1) and the elbow (q2, relative to the first rod), under
gravity. It is released at rest held out straight and horizontal (q1 = 90°, q2 = 0), by
a hand that knows its angles to 1 mrad: each of 64 members starts at angles drawn from a
normal distribution of standard deviation 1 mrad about that pose, set on its State by
the file's coordinates (``coordinate.set_value``), and ``simulate_ensemble`` runs them
all for 15 s at accuracy 1e-6 on every core. The model is built of built-in elements, so
the members run in threads.

The double pendulum is chaotic: the members' spread in elbow angle grows from 1 mrad to
a tenth of a radian in about 7 s and to radians by 11 s, when the start no longer tells
where the arm is. The run prints the members and failures, the spread of the elbow angle
at the start, at the end and when it first passes 0.1 rad, and checks that every member
starts at the angles drawn for it, that member 0 is bit for bit a lone ``simulate`` of its State,
that every member keeps its energy (nothing dissipates), and that the spread grew a
hundredfold. The members go into one xarray Dataset (member × time), from which the
spread is computed, plotted and written as netCDF.

Run: python examples/ensemble_monte_carlo.py [--out DIR]   (writes
ensemble_monte_carlo.png, the elbow angle of every member and the spread, and
ensemble_monte_carlo.nc, the Dataset, to DIR; to a new temporary folder without it)
"""

import argparse
import math
import tempfile
import warnings
from pathlib import Path

import numpy as np

import kinetree as kt
from kinetree.io import OsimSkippedWarning, load_osim

MODEL = Path(__file__).resolve().parents[1] / "models" / "opensim" / "double_pendulum.osim"
MEMBERS = 64
SIGMA = 1e-3
"""Standard deviation (rad) of the initial shoulder and elbow angles."""
T_FINAL, REPORT, ACCURACY = 15.0, 0.02, 1e-6


def main(out: str | None = None) -> None:
    """Run the 64 releases, check them, and write the plot and the Dataset to ``out``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OsimSkippedWarning)   # its mesh files
        # Gravity alone: the file's two CoordinateActuators have no controls anyway.
        model = load_osim(MODEL, include_forces=False)
    shoulder, elbow = model.coordinates["q1"], model.coordinates["q2"]
    state = model.get_default_state()
    shoulder.set_value(state, math.pi / 2)
    elbow.set_value(state, 0.0)

    rng = np.random.default_rng(2024)
    parameters = {shoulder.set_value: math.pi / 2 + SIGMA * rng.standard_normal(MEMBERS),
                  elbow.set_value: SIGMA * rng.standard_normal(MEMBERS)}
    ensemble = kt.simulate_ensemble(model.system, state, T_FINAL, parameters=parameters,
                                    accuracy=ACCURACY, report_interval=REPORT,
                                    progress=False)

    # One Dataset: a variable per Trajectory column over (member, time), the
    # parameters as coordinates along member.
    data = ensemble.to_xarray()
    angle = data[ensemble[0].q_names[elbow.q_index]]      # the elbow's column, Pin2.q0
    spread = angle.std("member")
    wide = spread.time.values[spread.values > 0.1]
    print(f"{len(ensemble)} members, {len(ensemble.failures)} failed, in "
          f"{ensemble.stats['wall_time_s']:.1f} s on {ensemble.stats['executor']}")
    print(f"spread of the elbow angle: {1e3 * spread[0]:.2f} mrad at t = 0, "
          f"{spread[-1]:.2f} rad at t = {T_FINAL:g} s; first past 0.1 rad at t = "
          f"{wide[0] if wide.size else math.nan:.2f} s")

    assert not ensemble.failures, ensemble.failures
    # Each member starts where its parameters put it (a chain without constraints is not
    # projected); a setter's column is named <coordinate>.set_value.
    for coordinate in (shoulder, elbow):
        start = data[ensemble[0].q_names[coordinate.q_index]].isel(time=0)
        np.testing.assert_array_equal(start, data[f"{coordinate.name}.set_value"])
    # A member is simulate of its State, the same steps wherever it ran.
    first = state.copy()
    shoulder.set_value(first, parameters[shoulder.set_value][0])
    elbow.set_value(first, parameters[elbow.set_value][0])
    alone = kt.simulate(model.system, first, T_FINAL, accuracy=ACCURACY,
                        report_interval=REPORT, progress=False)
    assert alone.q.tobytes() == ensemble[0].q.tobytes(), "member 0 differs from simulate"
    # Nothing dissipates: each member keeps its own energy, to the integrator's accuracy.
    energy = data["energy"]
    drift = float(abs(energy - energy.isel(time=0)).max() / abs(energy).max())
    print(f"energy drift: at most {drift:.1e} of |E| over every member")
    assert drift < 1e-4, "a member's energy drifted"
    assert spread[-1] > 100 * spread[0], "the spread did not grow: no chaos"

    folder = Path(out) if out else Path(tempfile.mkdtemp(prefix="ensemble_monte_carlo-"))
    folder.mkdir(parents=True, exist_ok=True)
    plot(angle, spread, folder / "ensemble_monte_carlo.png")
    data.to_netcdf(folder / "ensemble_monte_carlo.nc", engine="scipy")
    print(f"wrote {folder / 'ensemble_monte_carlo.nc'}")


def plot(angle, spread, path: Path) -> None:
    """Every member's elbow angle against time, and their spread on a log scale."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 3.8))
    a.plot(angle.time, np.degrees(angle.values.T), lw=0.6, alpha=0.5)
    a.set(xlabel="t (s)", ylabel="elbow angle q2 (°)",
          title=f"{angle.sizes['member']} releases from horizontal")
    b.semilogy(spread.time, spread)
    b.axhline(SIGMA, color="grey", ls=":", label="initial σ")
    b.set(xlabel="t (s)", ylabel="standard deviation of q2 (rad)",
          title="Spread over the members")
    b.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    print(f"wrote {path}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("--out", default=None,
                        help="a folder for the plot and the Dataset (default: a new "
                             "temporary folder)")
    main(parser.parse_known_args()[0].out)

"""`python -m kinetree warmup` compiles every kernel once per version of the source: its jobs
cover the engine and every element kind not compiled inline, its models run, and it says
where the compiled kernels went (in this process: slow only on a cold cache)."""

import pytest

import kinetree as kt
from kinetree import _compile_cache, cli, warmup
from kinetree.engine import reports
from kinetree.registry import FAMILIES, INLINE


def test_warmup_command_says_where_the_cache_is_and_marks_it_warm(capsys):
    assert cli.main(["warmup"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(("kinetree warmup: done in ", "kinetree warmup: already done"))
    assert str(_compile_cache.cache_dir) in out
    assert (_compile_cache.cache_dir / _compile_cache.WARMED).exists()


def test_the_jobs_compile_every_kind_that_is_not_inline():
    first, then = warmup.jobs()
    covered = {}
    for _, function, arguments in first:
        if function is warmup._kinds:
            family, codes = arguments
            covered.setdefault(family, set()).update(codes)
    for family, (_, registry) in FAMILIES.items():
        assert covered[family] == {c for n, c in registry.items()
                                   if n not in INLINE.get(family, ())}
    assert first[0][1] is warmup._engine          # the longest first
    assert then[0][1] is warmup._every_mobilizer


def test_warmup_models_simulate_to_the_end_and_take_compiled_reports(monkeypatch):
    taken = []
    take = reports.CompiledReports.take
    monkeypatch.setattr(reports.CompiledReports, "take",
                        lambda fast, *args: taken.append(1) or take(fast, *args))
    runs = warmup.run()
    assert len(runs) == 5
    assert taken              # the last model's: the warm-up compiles run_reports
    for traj in runs:
        assert traj.stats["termination"] == "REACHED_FINAL_TIME"
        assert traj.t[-1] == warmup.SIMULATED_TIME


def test_the_model_of_every_mobilizer_conserves_energy():
    """Under gravity alone the chain of every mobilizer kind keeps its total energy."""
    system, state = warmup.every_mobilizer_model()
    system.realize(state, kt.Stage.DYNAMICS)
    energy = system.calc_energy(state)
    traj = kt.simulate(system, state, 0.05, accuracy=1e-9, progress=False)
    end = traj.states(state)[-1]
    system.realize(end, kt.Stage.DYNAMICS)
    assert system.calc_energy(end) == pytest.approx(energy, abs=1e-7 * max(1.0, abs(energy)))


def test_warmup_without_a_cache_says_how_to_get_one(capsys, monkeypatch):
    monkeypatch.setattr(_compile_cache, "cache_dir", None)
    assert warmup.main() == 1
    assert "set NUMBA_CACHE_DIR to a writable folder" in capsys.readouterr().out

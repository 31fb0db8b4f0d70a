"""`python -m kinetree warmup` runs its models (the loop closed or open, with contact or
without) through realization and a short simulation, and says where the compiled kernels
went (in this process: slow only on a cold cache)."""

from kinetree import _compile_cache, cli, warmup


def test_warmup_command_runs_and_says_where_the_cache_is(capsys):
    assert cli.main(["warmup"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("kinetree warmup: done in ")
    assert str(_compile_cache.cache_dir) in out


def test_warmup_models_simulate_to_the_end():
    runs = warmup.run()
    assert len(runs) == 4
    for traj in runs:
        assert traj.stats["termination"] == "REACHED_FINAL_TIME"
        assert traj.t[-1] == warmup.SIMULATED_TIME


def test_warmup_without_a_cache_says_how_to_get_one(capsys, monkeypatch):
    monkeypatch.setattr(_compile_cache, "cache_dir", None)
    assert warmup.main() == 1
    assert "set NUMBA_CACHE_DIR to a writable folder" in capsys.readouterr().out

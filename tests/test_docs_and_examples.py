"""The README's and docs' Python snippets run, every example runs, and `kinetree demo` passes
its own physics checks."""

import re
import runpy
from pathlib import Path

import pytest

from kinetree import cli

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))


def python_blocks(page: Path) -> str:
    return "\n".join(re.findall(r"```python\n(.*?)```", page.read_text(), flags=re.S))


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_page_snippets_run(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)              # files a snippet writes land here
    (tmp_path / "models").symlink_to(ROOT / "models")   # the bundled models, as in the repo
    code = python_blocks(page)
    exec(compile(code, str(page), "exec"), {"__name__": "snippet"})


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_example_runs(example):
    runpy.run_path(str(example), run_name="__main__")


def test_demo_command_passes_its_physics_checks(tmp_path, capsys):
    assert cli.main(["demo", "--out", str(tmp_path)]) == 0
    assert "physics checks: passed" in capsys.readouterr().out
    assert (tmp_path / "trajectory.csv").stat().st_size > 0
    assert (tmp_path / "final_state.npz").exists()

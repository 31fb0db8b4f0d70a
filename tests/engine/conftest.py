import pytest

import kinetree.engine.plan as plan_module


@pytest.fixture
def compiled_calls(monkeypatch):
    """The (first, last) stages of every compiled realization the plans made from here
    on call."""
    calls = []
    original = plan_module.entry_point

    def spying_entry_point(dispatcher, arguments):
        compiled = original(dispatcher, arguments)

        def spy(first, last, *rest):
            calls.append((first, last))
            return compiled(first, last, *rest)
        return spy

    monkeypatch.setattr(plan_module, "entry_point", spying_entry_point)
    return calls

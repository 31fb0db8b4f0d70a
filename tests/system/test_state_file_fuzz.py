"""A fuzz of State files (system/state_file.py, State.load): 1000 mutations of saved States
(arrays shortened, lengthened, retyped, made non-finite or declared huge; header keys and
values renamed, retyped or deleted; JSON nested deeply; members deleted or duplicated).
Each is refused with a kinetree error, or loads and realizes the original's u̇ bit for
bit; none raises anything else or takes more than 100 MB."""

import tracemalloc

import numpy as np
from file_fuzz import mutated, parsed, states

import kinetree as kt
from kinetree.errors import KinetreeError

N_FILES = 1000


def test_a_thousand_mutated_state_files_are_refused_or_load_as_saved(tmp_path):
    system, originals = states()
    saved, udots = [], []
    for state in originals:
        path = tmp_path / "original.npz"
        state.save(path)
        saved.append(parsed(path.read_bytes()))
        system.realize(state, kt.Stage.ACCELERATION)
        udots.append(state.get_u_dot().tobytes())
    rng = np.random.default_rng(20240633)
    files = [mutated(saved[n % len(saved)], rng) for n in range(N_FILES)]
    path = tmp_path / "mutated.npz"
    outcomes = {"refused": 0, "loaded": 0}
    tracemalloc.start()
    try:
        for n, data in enumerate(files):
            path.write_bytes(data)
            try:
                state = kt.State.load(path, system)
                system.realize(state, kt.Stage.ACCELERATION)
            except KinetreeError:
                outcomes["refused"] += 1
            else:
                assert state.get_u_dot().tobytes() == udots[n % len(saved)], \
                    f"file {n} loaded as another State"
                outcomes["loaded"] += 1
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 100 << 20
    assert outcomes["refused"] > N_FILES // 2 and outcomes["loaded"] > 0

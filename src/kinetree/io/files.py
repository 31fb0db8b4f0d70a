"""Where a model file may read other files from: its own folder, and folders its caller
names. A model from someone else must not reach the rest of the disk (``../../x``, an
absolute path), since what it reads is drawn and written into replays."""

from __future__ import annotations

from pathlib import Path


def within(path: Path, folders) -> bool:
    """Whether ``path``, its links and ``..`` resolved, lies inside one of ``folders``."""
    real = path.resolve()
    return any(real.is_relative_to(Path(folder).resolve()) for folder in folders)

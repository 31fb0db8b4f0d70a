"""What the muscle tests share: a small tree and cache to hand a muscle kind's compiled
``calc`` called from Python (it reads neither; its declared signature takes them)."""

import numpy as np
import pytest

from kinetree.engine.kinds import Kinds
from kinetree.multibody import tree_model


@pytest.fixture(scope="module")
def tree_and_cache():
    tree = tree_model.unpack_tree.py_func(
        np.zeros((3, 7), dtype=np.int64), np.zeros(3 * tree_model._TREE_FLOATS_PER_BODY),
        Kinds("mobilizers"))
    return tree, tree_model.cache_views(*tree_model.allocate_cache(3, 2, 2))

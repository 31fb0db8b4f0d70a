"""Compiled tree algorithms, one module per algorithm (Pinocchio's ``aba``, ``crba``,
``rnea``): each a short sweep over the TreeModel's constant arrays and the State's cache
arrays, with no Python loop over bodies and no allocation per call."""

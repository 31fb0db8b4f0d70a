"""The realization engine of a MultibodySystem: the compiled forward pipeline
(``forward.py``), the per-State plan that runs it between the Python of user code
(``plan.py``), the compiled runs of integration steps over it (``step.py``), and the
direct calls of compiled kernels they share (``entry.py``)."""

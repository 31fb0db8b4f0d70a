"""The realization engine of a MultibodySystem: the compiled forward pipeline
(``forward.py``) over a model's named model and data (``data.py``), the tables of
addresses through which it calls the element kinds compiled apart (``kinds.py``), the
per-State plan that runs it between the Python of user code (``plan.py``), the compiled
runs of integration steps over it (``step.py``), and the direct calls of compiled
kernels they share (``entry.py``)."""

"""The realization engine of a MultibodySystem: the compiled forward pipeline
(``forward.py``) and the per-State plan that runs it between the Python of user code
(``plan.py``)."""

"""kinetree: Simbody's multibody dynamics design in Python, with a compiled core."""

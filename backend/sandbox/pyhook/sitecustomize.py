# loopforge: keeps the figures of a sandboxed program.
#
# The sandbox puts this directory on PYTHONPATH with MPLBACKEND=Agg (no
# display) and LOOPFORGE_FIGURES naming the run directory. Python imports it
# at start-up; it costs nothing until the program imports matplotlib.pyplot,
# then it makes plt.show() save every open figure into the run directory as
# figure-N.png (and close them, as a window being closed would), and saves
# the figures still open when the program ends. A figure the program saved
# itself and did not change afterwards is not saved twice. loopforge collects
# the pictures of the run directory after the run.
#
# Python compiles this file at every start (the sandbox writes no bytecode
# cache), so it stays small: the work is in _loopforge_figures.py, imported
# only by a program that imports matplotlib.pyplot.
import sys


def _install():
    import os

    out = os.environ.get("LOOPFORGE_FIGURES", "")
    if not out:
        return
    try:
        limit = int(os.environ.get("LOOPFORGE_FIGURES_MAX", "8"))
    except ValueError:
        limit = 8

    class PyplotWatcher:
        """Finds matplotlib.pyplot like the other finders and patches it once loaded."""

        def find_spec(self, name, path=None, target=None):
            if name != "matplotlib.pyplot":
                return None
            sys.meta_path.remove(self)  # once, and not for the lookup below
            import _loopforge_figures

            return _loopforge_figures.find_spec(name, out, limit)

    sys.meta_path.insert(0, PyplotWatcher())


_install()
del _install

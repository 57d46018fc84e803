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
            import importlib.util

            spec = importlib.util.find_spec(name)
            if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
                return spec
            run = spec.loader.exec_module

            def exec_module(module):
                run(module)
                try:
                    _patch(module, out, limit)
                except Exception as e:  # never break the program over its figures
                    print("loopforge: figures will not be kept:", e, file=sys.stderr)

            spec.loader.exec_module = exec_module
            return spec

    sys.meta_path.insert(0, PyplotWatcher())


def _patch(plt, out, limit):
    import atexit
    import os

    from matplotlib._pylab_helpers import Gcf
    from matplotlib.figure import Figure

    saved_by_program = Figure.savefig
    state = {"n": 0, "kept": 0}

    def savefig(self, *args, **kwargs):
        result = saved_by_program(self, *args, **kwargs)
        self._loopforge_saved = True
        return result

    Figure.savefig = savefig

    def keep_open_figures():
        for manager in sorted(Gcf.get_all_fig_managers(), key=lambda m: m.num):
            fig = manager.canvas.figure
            # Saved by the program and unchanged since: it is already a file.
            if getattr(fig, "_loopforge_saved", False) and not fig.stale:
                continue
            if state["kept"] >= limit:
                return
            while True:
                state["n"] += 1
                path = os.path.join(out, "figure-%d.png" % state["n"])
                if not os.path.exists(path):
                    break
            try:
                saved_by_program(fig, path, dpi=100)
                state["kept"] += 1
            except Exception as e:
                print("loopforge: could not save figure %s: %s" % (manager.num, e), file=sys.stderr)

    def show(*args, **kwargs):
        keep_open_figures()
        plt.close("all")

    plt.show = show
    # Registered after matplotlib's own exit handler (which closes every
    # figure), so it runs before it.
    atexit.register(keep_open_figures)


_install()
del _install

# loopforge: keeps the figures of a sandboxed program (see sitecustomize.py,
# which imports this module only once the program imports matplotlib.pyplot:
# compiling it costs about a millisecond, at every start of the interpreter,
# as the sandbox writes no bytecode cache).
import sys


def find_spec(name, out, limit):
    """The spec of matplotlib.pyplot, its loader patching it once loaded."""
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

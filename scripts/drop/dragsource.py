#!/usr/bin/env python3
"""A drag source for scripts/drop-test.sh: a small GTK 3 window that offers
one file:// URI as text/uri-list, as a file manager does when a folder is
dragged from it. Usage: dragsource.py URI X Y (where to put the window).
It prints "ready" once shown and "dropped <action>" when a drag ends."""

import sys

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Gdk, Gtk  # noqa: E402


def main() -> None:
    uri, x, y = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    win = Gtk.Window(title="loopforge-drag-source")
    win.set_default_size(200, 120)
    win.move(x, y)
    box = Gtk.EventBox()
    box.add(Gtk.Label(label="drag this folder"))
    win.add(box)
    box.drag_source_set(
        Gdk.ModifierType.BUTTON1_MASK,
        [Gtk.TargetEntry.new("text/uri-list", 0, 0)],
        Gdk.DragAction.COPY,
    )
    box.connect("drag-data-get", lambda _w, _ctx, data, _info, _t: data.set_uris([uri]))
    box.connect("drag-end", lambda _w, ctx: print("dropped", ctx.get_selected_action(), flush=True))
    win.connect("destroy", Gtk.main_quit)
    win.show_all()
    print("ready", flush=True)
    Gtk.main()


if __name__ == "__main__":
    main()

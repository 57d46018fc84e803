#!/usr/bin/env python3
"""Screenshots for scripts/drop-test.sh, with GDK (no ImageMagick needed):
shot.py X Y W H OUT.png [BEFORE.png] saves that rectangle of the X screen as
a PNG and prints how many distinct colours it has (sampled every 4 px: a
window that has not drawn yet has one or two), a digest of its pixels (to
tell when the picture changed or settled) and, given BEFORE, the share of
sampled pixels that differ from it (0 to 1)."""

import hashlib
import sys

import gi

gi.require_version("Gdk", "3.0")
gi.require_version("GdkPixbuf", "2.0")
from gi.repository import Gdk, GdkPixbuf  # noqa: E402


def main() -> None:
    x, y, w, h = (int(v) for v in sys.argv[1:5])
    pb = Gdk.pixbuf_get_from_window(Gdk.get_default_root_window(), x, y, w, h)
    if pb is None:
        sys.exit(f"shot.py: cannot read {w}x{h}+{x}+{y} of the screen")
    pb.savev(sys.argv[5], "png", [], [])
    px, n, stride = pb.get_pixels(), pb.get_n_channels(), pb.get_rowstride()
    samples = [(r * stride + c * n) for r in range(0, h, 4) for c in range(0, w, 4)]
    colours = {px[i : i + 3] for i in samples}
    out = [str(len(colours)), hashlib.sha1(px).hexdigest()]
    if len(sys.argv) > 6:
        old = GdkPixbuf.Pixbuf.new_from_file(sys.argv[6])
        if (old.get_width(), old.get_height(), old.get_n_channels()) != (w, h, n):
            sys.exit("shot.py: the picture to compare with has another size")
        opx = old.get_pixels()
        ostride = old.get_rowstride()
        differ = sum(
            1
            for r in range(0, h, 4)
            for c in range(0, w, 4)
            if px[r * stride + c * n : r * stride + c * n + 3] != opx[r * ostride + c * n : r * ostride + c * n + 3]
        )
        out.append(f"{differ / len(samples):.4f}")
    print(" ".join(out))


if __name__ == "__main__":
    main()

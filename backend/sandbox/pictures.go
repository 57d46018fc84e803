package sandbox

// Pictures (Request.Images): the figures a program draws and the image
// files it writes, kept with its result.
//
// Before the run: a private, read-only hook directory holding
// pyhook/sitecustomize.py (and the module it imports once the program
// imports matplotlib.pyplot) goes on the code's PYTHONPATH, with MPLBACKEND=Agg
// (matplotlib without a display) and a writable MPLCONFIGDIR in the run dir.
// Python runs with -s instead of -I for this (-I ignores PYTHONPATH; the
// environment is ours anyway, and PYTHONSAFEPATH keeps the script's
// directory off sys.path where the interpreter knows it). The hook saves
// matplotlib's open figures into the run dir when plt.show() is called and
// when the program ends.
//
// After the run, with every process of it dead: the run dir's image files
// (png, jpg, gif, svg; hidden directories and symbolic links are skipped)
// are read, oldest first, within the limits below. Each one's bytes must be
// what they claim (the header of a PNG, JPEG or GIF; an SVG must be
// well-formed XML with an <svg> root and no scripts, event handlers or
// external references); anything else is left out and said why in
// Result.ImagesSkipped.

import (
	"bytes"
	"embed"
	"encoding/binary"
	"encoding/xml"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/loopforge/loopforge/backend/event"
)

// Limits of the pictures kept from one run.
const (
	MaxImages      = 8        // pictures kept from one run
	MaxImageBytes  = 2 * mib  // one picture
	MaxImagesBytes = 8 * mib  // all the pictures of one run
	maxImageSide   = 16384    // pixels, either side
	maxImagePixels = 40 << 20 // width × height: what a browser would have to decode
	// imageScanEntries and imageScanDepth bound the walk of the run dir
	// (a program may leave a million files behind).
	imageScanEntries = 4096
	imageScanDepth   = 3
)

// Image is one picture a run left in its run dir.
type Image struct {
	// Name is the file's path relative to the run dir, "/"-separated
	// ("plot.png", "out/chart.svg"); matplotlib figures the hook saved are
	// "figure-1.png", "figure-2.png"…
	Name string
	// MIME is the type its bytes have: image/png, image/jpeg, image/gif or
	// image/svg+xml (whatever the extension said).
	MIME string
	// Width and Height in pixels; 0 for an SVG.
	Width, Height int
	Data          []byte
}

// pyHook is the figure hook: sitecustomize.py, which Python's site module
// imports at start-up, and the module it imports once the program imports
// matplotlib.pyplot.
//
//go:embed pyhook/sitecustomize.py pyhook/_loopforge_figures.py
var pyHook embed.FS

// pyHookFile is the name Python's site module imports at start-up.
const pyHookFile = "sitecustomize.py"

// makeHookDir writes the figure hook into a new private directory next to
// the run dirs; the layers expose it read-only.
func makeHookDir(root, owner string) (string, error) {
	dir, err := os.MkdirTemp(root, tempPattern(kindHook, owner))
	if err != nil {
		return "", fmt.Errorf("sandbox: create the figure hook dir: %w", err)
	}
	files, err := fs.ReadDir(pyHook, "pyhook")
	for _, f := range files {
		var b []byte
		if b, err = pyHook.ReadFile("pyhook/" + f.Name()); err == nil {
			err = os.WriteFile(filepath.Join(dir, f.Name()), b, 0o444)
		}
		if err != nil {
			break
		}
	}
	if err != nil {
		removeWorkdir(dir)
		return "", fmt.Errorf("sandbox: write the figure hook: %w", err)
	}
	return dir, nil
}

// imageEnv is what the code's environment gains for pictures: no secret,
// only where the hook and the run dir are.
func imageEnv(wd, hookDir string) []string {
	return []string{
		"PYTHONPATH=" + hookDir,
		"PYTHONSAFEPATH=1",
		"PYTHONNOUSERSITE=1",
		"MPLBACKEND=Agg",
		"MPLCONFIGDIR=" + filepath.Join(wd, ".matplotlib"),
		"LOOPFORGE_FIGURES=" + wd,
		fmt.Sprintf("LOOPFORGE_FIGURES_MAX=%d", MaxImages),
	}
}

// withHook makes a Python command line honour PYTHONPATH: -I becomes -s
// (no user site-packages), the rest stays.
func (in interpreter) withHook() interpreter {
	args := slices.Clone(in.args)
	for i, a := range args {
		if a == "-I" {
			args[i] = "-s"
		}
	}
	in.args = args
	return in
}

// approxBytes is a size for people: "3.1 MiB", "420 KiB".
func approxBytes(n int64) string {
	switch {
	case n >= mib:
		return fmt.Sprintf("%.1f MiB", float64(n)/mib)
	case n >= kib:
		return fmt.Sprintf("%d KiB", n/kib)
	}
	return fmt.Sprintf("%d bytes", n)
}

// imageFile is a candidate found in the run dir.
type imageFile struct {
	rel  string // "/"-separated, relative to the run dir
	size int64
	mod  time.Time
}

// imageExts are the extensions looked at; the type comes from the bytes.
var imageExts = []string{".png", ".jpg", ".jpeg", ".gif", ".svg"}

// collectImages reads the pictures of the run dir wd within the limits; the
// notes say what was left out and why.
func collectImages(wd string) (imgs []Image, notes []event.ExecNote) {
	files := findImages(wd)
	slices.SortStableFunc(files, func(a, b imageFile) int {
		if c := a.mod.Compare(b.mod); c != 0 {
			return c
		}
		return strings.Compare(a.rel, b.rel)
	})
	var total int64
	for i, f := range files {
		if len(imgs) == MaxImages {
			notes = append(notes, event.NewNote(event.NoteImagesTooMany, "n", strconv.Itoa(len(files)-i), "max", strconv.Itoa(MaxImages)))
			break
		}
		if f.size > MaxImageBytes {
			notes = append(notes, event.NewNote(event.NoteImageTooLarge, "name", f.rel, "bytes", strconv.FormatInt(f.size, 10), "max", strconv.FormatInt(MaxImageBytes, 10)))
			continue
		}
		if total+f.size > MaxImagesBytes {
			notes = append(notes, event.NewNote(event.NoteImagesTotal, "name", f.rel, "max", strconv.FormatInt(MaxImagesBytes, 10)))
			continue
		}
		img, err := readImage(wd, f.rel)
		if err != nil {
			notes = append(notes, event.NewNote(event.NoteImageUnreadable, "name", f.rel, "detail", err.Error()))
			continue
		}
		total += int64(len(img.Data))
		imgs = append(imgs, img)
	}
	return imgs, notes
}

// findImages lists the image files beneath wd: regular files only, no
// symbolic links followed, hidden entries (the hook's .matplotlib) skipped.
func findImages(wd string) []imageFile {
	var out []imageFile
	seen := 0
	var walk func(dir, rel string, depth int)
	walk = func(dir, rel string, depth int) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range entries {
			if seen++; seen > imageScanEntries {
				return
			}
			name := e.Name()
			if strings.HasPrefix(name, ".") {
				continue
			}
			r := path.Join(rel, name)
			switch {
			case e.IsDir():
				if depth < imageScanDepth {
					walk(filepath.Join(dir, name), r, depth+1)
				}
			case e.Type().IsRegular() && slices.Contains(imageExts, strings.ToLower(filepath.Ext(name))):
				if fi, err := e.Info(); err == nil {
					out = append(out, imageFile{rel: r, size: fi.Size(), mod: fi.ModTime()})
				}
			}
		}
	}
	walk(wd, "", 1)
	return out
}

// errNotImage is why a file's bytes were refused.
var errNotImage = errors.New("not a PNG, JPEG, GIF or SVG picture")

// readImage reads one candidate without following a symbolic link (the
// code may have swapped the file for one since the walk) and checks what
// its bytes are.
func readImage(wd, rel string) (Image, error) {
	f, err := os.OpenFile(filepath.Join(wd, filepath.FromSlash(rel)), os.O_RDONLY|imageOpenFlags, 0)
	if err != nil {
		return Image{}, errors.New("cannot be read")
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return Image{}, errors.New("not a regular file")
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxImageBytes+1))
	if err != nil {
		return Image{}, errors.New("cannot be read")
	}
	if len(data) > MaxImageBytes {
		return Image{}, fmt.Errorf("over the %s limit for one picture", formatBytes(MaxImageBytes))
	}
	img, err := sniffImage(data)
	if err != nil {
		return Image{}, err
	}
	img.Name = rel
	return img, nil
}

// sniffImage decides what data is from its bytes alone. The bitmap headers
// are read here rather than with image/png, image/jpeg and image/gif, whose
// package initialisation every start of the shim (which links this
// package) would pay.
func sniffImage(data []byte) (Image, error) {
	var (
		mime string
		w, h int
		ok   bool
	)
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		mime = "image/png"
		w, h, ok = pngSize(data)
	case bytes.HasPrefix(data, []byte{0xff, 0xd8, 0xff}):
		mime = "image/jpeg"
		w, h, ok = jpegSize(data)
	case bytes.HasPrefix(data, []byte("GIF87a")) || bytes.HasPrefix(data, []byte("GIF89a")):
		mime = "image/gif"
		if ok = len(data) >= 13; ok {
			w, h = int(binary.LittleEndian.Uint16(data[6:])), int(binary.LittleEndian.Uint16(data[8:]))
		}
	default:
		if err := checkSVG(data); err != nil {
			return Image{}, err
		}
		return Image{MIME: "image/svg+xml", Data: data}, nil
	}
	if !ok {
		return Image{}, fmt.Errorf("%w: a broken %s header", errNotImage, strings.TrimPrefix(mime, "image/"))
	}
	if w <= 0 || h <= 0 || w > maxImageSide || h > maxImageSide || w*h > maxImagePixels {
		return Image{}, fmt.Errorf("%d×%d pixels, too large to show", w, h)
	}
	return Image{MIME: mime, Width: w, Height: h, Data: data}, nil
}

// pngSize reads the IHDR chunk, which must come first, checksum included.
func pngSize(data []byte) (w, h int, ok bool) {
	const ihdr = 8 // after the signature: length, "IHDR", 13 bytes, CRC
	if len(data) < ihdr+8+13+4 || binary.BigEndian.Uint32(data[ihdr:]) != 13 || string(data[ihdr+4:ihdr+8]) != "IHDR" {
		return 0, 0, false
	}
	if crc32.ChecksumIEEE(data[ihdr+4:ihdr+8+13]) != binary.BigEndian.Uint32(data[ihdr+8+13:]) {
		return 0, 0, false
	}
	return int(binary.BigEndian.Uint32(data[ihdr+8:])), int(binary.BigEndian.Uint32(data[ihdr+12:])), true
}

// jpegSize walks the segments up to the first start-of-frame (SOF0…SOF15
// but DHT, JPG and DAC, which share the range) and reads its size.
func jpegSize(data []byte) (w, h int, ok bool) {
	i := 2 // after SOI
	for i+4 <= len(data) {
		if data[i] != 0xff {
			return 0, 0, false
		}
		m := data[i+1]
		switch {
		case m == 0xff: // fill byte
			i++
			continue
		case m == 0x01 || (m >= 0xd0 && m <= 0xd7): // no length
			i += 2
			continue
		case m == 0xd9 || m == 0xda: // end, or scan data before any frame
			return 0, 0, false
		}
		n := int(binary.BigEndian.Uint16(data[i+2:]))
		if n < 2 || i+2+n > len(data) {
			return 0, 0, false
		}
		if m >= 0xc0 && m <= 0xcf && m != 0xc4 && m != 0xc8 && m != 0xcc {
			if n < 7 {
				return 0, 0, false
			}
			return int(binary.BigEndian.Uint16(data[i+7:])), int(binary.BigEndian.Uint16(data[i+5:])), true
		}
		i += 2 + n
	}
	return 0, 0, false
}

// checkSVG accepts a well-formed UTF-8 XML document whose root is <svg> and
// that holds no active content: no <script> or <foreignObject>, no on…
// event attributes, no entity declarations, and no reference (href, a
// stylesheet) to anything but its own fragments or embedded data: pictures. loopforge
// only ever shows an SVG as an <img>, where none of that would run anyway;
// this keeps such a file out of the exports too.
func checkSVG(data []byte) error {
	head := bytes.TrimLeft(data, "\ufeff \t\r\n")
	if !bytes.HasPrefix(head, []byte("<")) || !utf8.Valid(data) {
		return errNotImage
	}
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = true // and no CharsetReader: a non-UTF-8 encoding is refused
	root := true
	for {
		tok, err := d.Token()
		if err == io.EOF {
			if root {
				return errNotImage
			}
			return nil
		}
		if err != nil {
			if root {
				return errNotImage
			}
			return fmt.Errorf("an SVG that is not well-formed XML")
		}
		switch t := tok.(type) {
		case xml.Directive:
			if bytes.Contains(bytes.ToUpper(t), []byte("ENTITY")) {
				return errors.New("an SVG that declares entities")
			}
		case xml.ProcInst:
			if t.Target != "xml" { // <?xml-stylesheet href=…?> would load a file
				return errors.New("an SVG that refers to other files or addresses")
			}
		case xml.StartElement:
			if root && t.Name.Local != "svg" {
				return errNotImage
			}
			root = false
			if n := strings.ToLower(t.Name.Local); n == "script" || n == "foreignobject" {
				return fmt.Errorf("an SVG with active content (<%s>)", t.Name.Local)
			}
			for _, a := range t.Attr {
				n := strings.ToLower(a.Name.Local)
				v := strings.TrimSpace(a.Value)
				switch {
				case strings.HasPrefix(n, "on"):
					return fmt.Errorf("an SVG with active content (%s)", a.Name.Local)
				case n == "href" && !strings.HasPrefix(v, "#") && !strings.HasPrefix(strings.ToLower(v), "data:image/"):
					return errors.New("an SVG that refers to other files or addresses")
				}
			}
		}
	}
}

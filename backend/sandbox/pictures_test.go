//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// pngPrelude defines png(path, w, h): a valid PNG written with the
// standard library alone (no Pillow, no matplotlib).
const pngPrelude = `import struct, zlib
def png(path, w, h, pad=0):
    def chunk(kind, data):
        c = struct.pack('>I', len(data)) + kind + data
        return c + struct.pack('>I', zlib.crc32(kind + data) & 0xffffffff)
    raw = b''.join(b'\x00' + bytes([200, 40, 40]) * w for _ in range(h))
    data = (b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0))
            + chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b''))
    if pad:
        data += chunk(b'tEXt', b'pad\x00' + b'x' * pad)
    with open(path, 'wb') as f:
        f.write(data)
`

// matplotlibIn reports whether python can import matplotlib, as the
// sandbox's python would (-I: no user site, no environment).
func matplotlibIn(python string) bool {
	return exec.Command(python, "-I", "-c", "import matplotlib").Run() == nil
}

// wantNoHookDirs fails if a run left its figure hook directory behind.
func wantNoHookDirs(t *testing.T, r *Runner) {
	t.Helper()
	r.Wait()
	entries, _ := os.ReadDir(r.tempRoot)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "loopforge-pyhook-") {
			t.Errorf("hook dir %s left behind", e.Name())
		}
	}
}

func names(imgs []Image) []string {
	var out []string
	for _, im := range imgs {
		out = append(out, im.Name)
	}
	return out
}

// TestImagesMatplotlib: a program that draws with matplotlib (no display)
// gets its figures kept, at every level: the one shown with plt.show(), the
// one still open at the end, and the one it saved itself, only once.
func TestImagesMatplotlib(t *testing.T) {
	if p := testRunner(t).Python(); !matplotlibIn(p) {
		t.Skipf("matplotlib is not installed for %s (scripts/setup.sh installs python3-matplotlib)", p)
	}
	code := `import matplotlib.pyplot as plt
plt.plot([1, 2, 3], [1, 4, 9])
plt.title('squares')
plt.savefig('own.png')
plt.show()
plt.figure()
plt.bar(['a', 'b'], [3, 5])
plt.show()
plt.figure()
plt.plot([3, 2, 1])
print('drew three figures')
`
	forEachLevel(t, func(t *testing.T, level string, r *Runner) {
		res, m := runOn(t, r, context.Background(), Request{Code: code, Images: true, Limits: Limits{Timeout: 60 * time.Second}})
		wantStatus(t, res, StatusOK)
		wantNoSurvivors(t, m)
		wantDirEmpty(t, r)
		wantNoHookDirs(t, r)
		if strings.Contains(res.Stderr, "non-interactive") || strings.Contains(res.Stderr, "loopforge:") {
			t.Errorf("stderr: %s", res.Stderr)
		}
		// own.png; the first figure was saved by the program and not
		// changed, so show() did not save it again; the bar chart at the
		// second show(); the last figure when the program ended.
		if got, want := names(res.Images), []string{"own.png", "figure-1.png", "figure-2.png"}; !slices.Equal(got, want) {
			t.Fatalf("images %v, want %v (skipped %v)", got, want, res.ImagesSkipped)
		}
		for _, im := range res.Images {
			if im.MIME != "image/png" || im.Width != 640 || im.Height != 480 || !bytes.HasPrefix(im.Data, []byte("\x89PNG")) {
				t.Errorf("%s: %s %d×%d, %d bytes", im.Name, im.MIME, im.Width, im.Height, len(im.Data))
			}
		}
		if len(res.ImagesSkipped) != 0 {
			t.Errorf("skipped %v", res.ImagesSkipped)
		}
	})
}

// TestImagesFiles: image files a program writes (in subfolders too) come
// back oldest first with the type of their bytes; fakes, oversized files,
// links and anything past the count are left out with a reason.
func TestImagesFiles(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret.png")
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 3, 3))); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(secret, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	code := pngPrelude + `import os, time
def tick():
    time.sleep(0.02)  # distinct modification times: the order is the writing order
png('first.png', 4, 3); tick()
os.makedirs('out/deeper', exist_ok=True)
png('out/chart.PNG', 5, 2); tick()
open('fake.png', 'w').write('this is not a picture'); tick()
png('big.png', 2, 2, pad=3 * 1024 * 1024); tick()
open('drawing.svg', 'w').write('<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>'); tick()
open('evil.svg', 'w').write('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'); tick()
os.symlink('` + secret + `', 'link.png'); tick()
os.makedirs('.hidden', exist_ok=True); png('.hidden/no.png', 2, 2); tick()
open('notes.txt', 'w').write('not looked at'); tick()
for i in range(8):
    png('many-%d.png' % i, 2, 2); tick()
`
	forEachLevel(t, func(t *testing.T, level string, r *Runner) {
		res, m := runOn(t, r, context.Background(), Request{Code: code, Images: true, Limits: Limits{Timeout: 60 * time.Second}})
		wantStatus(t, res, StatusOK)
		wantNoSurvivors(t, m)
		wantDirEmpty(t, r)
		wantNoHookDirs(t, r)
		want := []string{"first.png", "out/chart.PNG", "drawing.svg", "many-0.png", "many-1.png", "many-2.png", "many-3.png", "many-4.png"}
		if got := names(res.Images); !slices.Equal(got, want) {
			t.Fatalf("images %v, want %v\nskipped %q", got, want, res.ImagesSkipped)
		}
		if im := res.Images[1]; im.MIME != "image/png" || im.Width != 5 || im.Height != 2 {
			t.Errorf("chart: %s %d×%d", im.MIME, im.Width, im.Height)
		}
		if im := res.Images[2]; im.MIME != "image/svg+xml" || !bytes.Contains(im.Data, []byte("<rect")) {
			t.Errorf("drawing: %s %q", im.MIME, im.Data)
		}
		skipped := strings.Join(res.ImagesSkipped, "\n")
		for _, s := range []string{
			"fake.png: not a PNG, JPEG, GIF or SVG picture",
			"big.png: 3.0 MiB, over the 2 MiB limit for one picture",
			"evil.svg: an SVG with active content (<script>)",
			"3 more pictures not kept (at most 8 per run)",
		} {
			if !strings.Contains(skipped, s) {
				t.Errorf("skipped notes lack %q:\n%s", s, skipped)
			}
		}
		if strings.Contains(skipped, "link.png") || strings.Contains(skipped, "no.png") || strings.Contains(skipped, "notes.txt") {
			t.Errorf("links, hidden files and other files are not even candidates:\n%s", skipped)
		}
	})
}

// TestImagesTotalLimit: the run's pictures stop at MaxImagesBytes.
func TestImagesTotalLimit(t *testing.T) {
	t.Parallel()
	code := pngPrelude + `import time
for i in range(6):
    png('p%d.png' % i, 2, 2, pad=1900 * 1024)
    time.sleep(0.02)
`
	res := run(t, Request{Code: code, Images: true, Limits: Limits{Timeout: 60 * time.Second}})
	wantStatus(t, res, StatusOK)
	var total int
	for _, im := range res.Images {
		total += len(im.Data)
	}
	if len(res.Images) != 4 || total > MaxImagesBytes {
		t.Errorf("%d images, %d bytes: %v", len(res.Images), total, names(res.Images))
	}
	if len(res.ImagesSkipped) != 2 || !strings.Contains(res.ImagesSkipped[0], "p4.png: not kept, the run's pictures would pass 8 MiB") {
		t.Errorf("skipped %q", res.ImagesSkipped)
	}
}

// TestImagesOff: without Request.Images nothing is collected and the
// program's environment and flags are as before.
func TestImagesOff(t *testing.T) {
	t.Parallel()
	code := pngPrelude + `import os, sys
png('plot.png', 2, 2)
print(os.environ.get('MPLBACKEND'), os.environ.get('PYTHONPATH'), sys.flags.isolated)
`
	res := run(t, Request{Code: code})
	wantStatus(t, res, StatusOK)
	if res.Images != nil || res.ImagesSkipped != nil {
		t.Errorf("images %v skipped %v", names(res.Images), res.ImagesSkipped)
	}
	if res.Stdout != "None None 1\n" {
		t.Errorf("stdout %q", res.Stdout)
	}
	// On, with nothing drawn: nothing.
	res = run(t, Request{Code: `print("no pictures")`, Images: true})
	wantStatus(t, res, StatusOK)
	if res.Images != nil || res.ImagesSkipped != nil {
		t.Errorf("images %v skipped %v", names(res.Images), res.ImagesSkipped)
	}
}

// TestImagesHookReadOnly: the code cannot change the figure hook where the
// level protects files, and its environment names nothing but the hook
// and the run dir.
func TestImagesHookReadOnly(t *testing.T) {
	code := `import os, sitecustomize
hook = os.path.dirname(sitecustomize.__file__)
try:
    open(os.path.join(hook, 'sitecustomize.py'), 'a').write('# changed')
    print('writable')
except OSError:
    print('read-only')
print(sorted(k for k in os.environ if k.startswith(('MPL', 'PYTHON', 'LOOPFORGE_FIG'))))
`
	forEachLevel(t, func(t *testing.T, level string, r *Runner) {
		res, _ := runOn(t, r, context.Background(), Request{Code: code, Images: true})
		wantStatus(t, res, StatusOK)
		first, rest, _ := strings.Cut(res.Stdout, "\n")
		if want := map[bool]string{true: "read-only", false: "writable"}[res.Protections.Files]; first != want {
			t.Errorf("hook %s with file protection %v", first, res.Protections.Files)
		}
		wantEnv := "['LOOPFORGE_FIGURES', 'LOOPFORGE_FIGURES_MAX', 'MPLBACKEND', 'MPLCONFIGDIR', 'PYTHONDONTWRITEBYTECODE', 'PYTHONIOENCODING', 'PYTHONNOUSERSITE', 'PYTHONPATH', 'PYTHONSAFEPATH', 'PYTHONUNBUFFERED']\n"
		if rest != wantEnv {
			t.Errorf("environment %q", rest)
		}
		wantNoHookDirs(t, r)
	})
}

func TestSniffImage(t *testing.T) {
	t.Parallel()
	encode := func(f func(*bytes.Buffer) error) []byte {
		var b bytes.Buffer
		if err := f(&b); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	img := image.NewPaletted(image.Rect(0, 0, 7, 5), []color.Color{color.Black, color.White})
	pngData := encode(func(b *bytes.Buffer) error { return png.Encode(b, img) })
	jpegData := encode(func(b *bytes.Buffer) error { return jpeg.Encode(b, img, nil) })
	gifData := encode(func(b *bytes.Buffer) error { return gif.Encode(b, img, nil) })
	hugePNG := encode(func(b *bytes.Buffer) error {
		return png.Encode(b, image.NewPaletted(image.Rect(0, 0, 20000, 1), []color.Color{color.Black}))
	})
	for _, tc := range []struct {
		name string
		data []byte
		mime string // "" = refused
		err  string
	}{
		{"png", pngData, "image/png", ""},
		{"jpeg", jpegData, "image/jpeg", ""},
		{"gif", gifData, "image/gif", ""},
		{"png header only", pngData[:20], "", "a broken png header"},
		{"png with a bad checksum", append(append([]byte{}, pngData[:29]...), 0, 0, 0, 0), "", "a broken png header"},
		{"jpeg cut short", jpegData[:12], "", "a broken jpeg header"},
		{"jpeg scan before a frame", []byte{0xff, 0xd8, 0xff, 0xda, 0, 2}, "", "a broken jpeg header"},
		{"gif cut short", gifData[:9], "", "a broken gif header"},
		{"wider than a browser takes", hugePNG, "", "20000×1 pixels, too large"},
		{"text", []byte("hello"), "", "not a PNG"},
		{"html", []byte("<html><body>hi</body></html>"), "", "not a PNG"},
		{"empty", nil, "", "not a PNG"},
		{"svg", []byte(`<svg xmlns="http://www.w3.org/2000/svg"><a href="#x"/><image href="data:image/png;base64,AAAA"/></svg>`), "image/svg+xml", ""},
		{"svg with doctype", []byte("<?xml version=\"1.0\" encoding=\"utf-8\" standalone=\"no\"?>\n<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\"\n  \"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\"><use xlink:href=\"#p\"/></svg>"), "image/svg+xml", ""},
		{"svg event handler", []byte(`<svg onload="alert(1)"/>`), "", "active content (onload)"},
		{"svg foreignObject", []byte(`<svg><foreignObject><div/></foreignObject></svg>`), "", "active content (<foreignObject>)"},
		{"svg external image", []byte(`<svg xmlns:xlink="http://www.w3.org/1999/xlink"><image xlink:href="file:///etc/passwd"/></svg>`), "", "refers to other files"},
		{"svg javascript link", []byte(`<svg><a href="javascript:alert(1)"><text>x</text></a></svg>`), "", "refers to other files"},
		{"svg stylesheet", []byte(`<?xml-stylesheet href="http://example.com/x.css"?><svg/>`), "", "refers to other files"},
		{"svg entities", []byte(`<!DOCTYPE svg [<!ENTITY a "aaaa">]><svg>&a;</svg>`), "", "declares entities"},
		{"svg unclosed", []byte(`<svg><g></svg>`), "", "not well-formed"},
		{"svg latin-1", []byte("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><svg/>"), "", "not a PNG"},
		{"not svg root", []byte(`<html><svg/></html>`), "", "not a PNG"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			im, err := sniffImage(tc.data)
			if tc.mime != "" {
				if err != nil || im.MIME != tc.mime {
					t.Fatalf("got %q, %v; want %s", im.MIME, err, tc.mime)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("got %q, %v; want an error with %q", im.MIME, err, tc.err)
			}
		})
	}
	for name, data := range map[string][]byte{"png": pngData, "jpeg": jpegData, "gif": gifData} {
		if im, _ := sniffImage(data); im.Width != 7 || im.Height != 5 {
			t.Errorf("%s size %d×%d, want 7×5", name, im.Width, im.Height)
		}
	}
	if !errors.Is(func() error { _, err := sniffImage([]byte("x")); return err }(), errNotImage) {
		t.Error("a text file is not errNotImage")
	}
}

// TestDoctorWithoutMatplotlib: an interpreter that cannot import it is
// reported with the way to get it.
func TestDoctorWithoutMatplotlib(t *testing.T) {
	t.Parallel()
	if v := matplotlibVersion("/bin/false", doctorEnv); v != "" {
		t.Errorf("version %q from /bin/false", v)
	}
	rep := Report{Interpreters: map[string]string{"python": "/opt/py/bin/python3"}}
	if text := rep.Text(); !strings.Contains(text, "Pictures: matplotlib is not available to /opt/py/bin/python3; image files a program writes are still shown. → install it: sudo apt install python3-matplotlib") {
		t.Errorf("text:\n%s", text)
	}
}

package export

import (
	"archive/zip"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/loopforge/loopforge/backend/store"
)

var (
	picPNG  = []byte("\x89PNG\r\n\x1a\n a figure")
	picErr  = []byte("\x89PNG\r\n\x1a\n drawn before the error")
	picSVG  = []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="4" height="4"/></svg>`)
	picJPEG = []byte("\xff\xd8\xff a photo")
)

// withPictures is the fixture with pictures: claude's failed first
// iteration drew one, its final one a figure and an SVG in a subfolder,
// gemini's only iteration a JPEG.
func withPictures() *Bundle {
	b := fixture()
	b.Images = map[string][]store.Image{
		"run-claude": {
			{RunID: "run-claude", Iteration: 1, Name: "before.png", MIME: "image/png", Width: 4, Height: 3, Size: int64(len(picErr)), Data: picErr},
			{RunID: "run-claude", Iteration: 2, Name: "figure-1.png", MIME: "image/png", Width: 640, Height: 480, Size: int64(len(picPNG)), Data: picPNG},
			{RunID: "run-claude", Iteration: 2, Name: "out/chart.svg", MIME: "image/svg+xml", Size: int64(len(picSVG)), Data: picSVG},
		},
		"run-gemini": {
			{RunID: "run-gemini", Iteration: 1, Name: "photo.jpg", MIME: "image/jpeg", Width: 2, Height: 2, Size: int64(len(picJPEG)), Data: picJPEG},
		},
	}
	return b
}

// dataURL is a picture's data: URL as html/template writes it in an
// attribute ("+" as "&#43;", which the browser reads back).
func dataURL(mime string, data []byte) string {
	return strings.ReplaceAll("data:"+mime+";base64,"+base64.StdEncoding.EncodeToString(data), "+", "&#43;")
}

func TestPicturesInTheHTMLHandout(t *testing.T) {
	_, data := render(t, withPictures(), FormatHTML, "")
	html := string(data)
	for _, want := range []string{
		`<img src="` + dataURL("image/png", picErr) + `" alt="before.png" width="4" height="3"><figcaption>before.png</figcaption>`,
		`<img src="` + dataURL("image/png", picPNG) + `" alt="figure-1.png" width="640" height="480">`,
		`<img src="` + dataURL("image/svg+xml", picSVG) + `" alt="out/chart.svg"><figcaption>out/chart.svg</figcaption>`,
		`<img src="` + dataURL("image/jpeg", picJPEG) + `" alt="photo.jpg"`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the handout lacks %s", want)
		}
	}
	// The SVG is never markup in the page, and html/template let the data:
	// URLs through as they are.
	if strings.Contains(html, "<rect") || strings.Contains(html, "ZgotmplZ") {
		t.Error("an SVG inlined, or a picture URL filtered out")
	}
	if n := strings.Count(html, "<figure>"); n != 4 {
		t.Errorf("%d pictures, want 4", n)
	}
	// Without pictures nothing changes (the golden handouts pin that).
	_, plain := render(t, fixture(), FormatHTML, "")
	if bytes.Contains(plain, []byte(`class="pictures"`)) {
		t.Error("pictures in a handout of a session without any")
	}
}

func TestPicturesInTheMarkdownHandout(t *testing.T) {
	_, data := render(t, withPictures(), FormatMarkdown, "")
	for _, want := range []string{"Pictures: `before.png`.", "Pictures: `figure-1.png`, `out/chart.svg`.", "Pictures: `photo.jpg`."} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("the Markdown handout lacks %q", want)
		}
	}
}

func TestPicturesInTheNotebook(t *testing.T) {
	_, data := render(t, withPictures(), FormatNotebook, "run-claude")
	var nb struct {
		Cells []struct {
			CellType string `json:"cell_type"`
			Outputs  []struct {
				OutputType string                     `json:"output_type"`
				Data       map[string]json.RawMessage `json:"data"`
				Metadata   map[string]any             `json:"metadata"`
			} `json:"outputs"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(data, &nb); err != nil {
		t.Fatal(err)
	}
	outs := nb.Cells[1].Outputs
	var shown []string
	for _, o := range outs {
		if o.OutputType != "display_data" {
			continue
		}
		if o.Metadata == nil || o.Data["text/plain"] == nil {
			t.Errorf("display_data without metadata or text/plain: %+v", o)
		}
		if raw, ok := o.Data["image/png"]; ok {
			var b64 string
			if err := json.Unmarshal(raw, &b64); err != nil {
				t.Fatal(err)
			}
			if b, _ := base64.StdEncoding.DecodeString(b64); !bytes.Equal(b, picPNG) {
				t.Errorf("png output %q", b64)
			}
			shown = append(shown, "png")
		}
		if raw, ok := o.Data["image/svg+xml"]; ok {
			var lines []string
			if err := json.Unmarshal(raw, &lines); err != nil {
				t.Fatal(err)
			}
			if strings.Join(lines, "") != string(picSVG) {
				t.Errorf("svg output %q", lines)
			}
			shown = append(shown, "svg")
		}
	}
	// The final code's last execution only: not the first iteration's picture.
	if strings.Join(shown, ",") != "png,svg" {
		t.Errorf("image outputs %v, want png,svg (after the streams)", shown)
	}
	if outs[0].OutputType != "stream" {
		t.Errorf("first output %s, want the stdout stream", outs[0].OutputType)
	}
}

func TestPicturesInTheZip(t *testing.T) {
	_, data := render(t, withPictures(), FormatZip, "")
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, f := range zr.File {
		rc, _ := f.Open()
		files[f.Name], _ = io.ReadAll(rc)
		rc.Close()
	}
	for name, want := range map[string][]byte{
		"claude-figure-1.png":  picPNG,
		"claude-out-chart.svg": picSVG,
		"gemini-api-photo.jpg": picJPEG,
		"claude.py":            nil,
		"gemini-api.py":        nil,
	} {
		got, ok := files[name]
		if !ok {
			t.Errorf("the zip lacks %s (has %v)", name, keys(files))
		} else if want != nil && !bytes.Equal(got, want) {
			t.Errorf("%s holds %q", name, got)
		}
	}
	if _, ok := files["claude-before.png"]; ok {
		t.Error("a picture of an earlier attempt is in the zip")
	}
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestPicturesRoundTrip(t *testing.T) {
	orig := withPictures()
	_, data := render(t, orig, FormatJSON, "")
	got, err := ReadBundle(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Images, orig.Images) {
		t.Errorf("pictures after the round trip:\n got %+v\nwant %+v", got.Images, orig.Images)
	}
	// A file whose picture is of a type loopforge does not keep is refused.
	bad := bytes.Replace(data, []byte(`"mime": "image/svg+xml"`), []byte(`"mime": "text/html"`), 1)
	if _, err := ReadBundle(bytes.NewReader(bad)); err == nil || !strings.Contains(err.Error(), `picture "out/chart.svg" is of type "text/html"`) {
		t.Errorf("a text/html picture: %v", err)
	}
	stray := bytes.Replace(data, []byte(`"images": {`), []byte(`"images": {"run-nobody": [], `), 1)
	if _, err := ReadBundle(bytes.NewReader(stray)); err == nil || !strings.Contains(err.Error(), "run-nobody") {
		t.Errorf("pictures of an unknown run: %v", err)
	}
}

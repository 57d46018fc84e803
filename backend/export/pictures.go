package export

import (
	"encoding/base64"
	"html/template"
	"strings"

	"github.com/loopforge/loopforge/backend/store"
)

// The pictures of a run's executions (Bundle.Images) in the exports: the
// HTML handout embeds them as data: URLs (its CSP allows img data: and
// nothing else), the notebook as display_data outputs of the final cell,
// the zip as files next to the script, the Markdown handout by name.

// pictureTypes are the types the sandbox lets through; a stored picture of
// any other type (there cannot be one) is not exported.
var pictureTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/svg+xml": true}

// pictures returns the pictures of one iteration of a run, in order.
func (b *Bundle) pictures(runID string, iteration int) []store.Image {
	var out []store.Image
	for _, im := range b.Images[runID] {
		if im.Iteration == iteration && pictureTypes[im.MIME] && len(im.Data) > 0 {
			out = append(out, im)
		}
	}
	return out
}

// pictureView is one picture in the HTML handout.
type pictureView struct {
	Name          string
	Src           template.URL // a data: URL of a checked type
	Width, Height int
}

func pictureViews(imgs []store.Image) []pictureView {
	var out []pictureView
	for _, im := range imgs {
		out = append(out, pictureView{Name: im.Name, Width: im.Width, Height: im.Height,
			// #nosec: the MIME type is one of pictureTypes and the rest is base64.
			Src: template.URL("data:" + im.MIME + ";base64," + base64.StdEncoding.EncodeToString(im.Data))})
	}
	return out
}

// pictureFile is a picture's name in the zip, next to its run's script:
// "<label>-figure-1.png" ("out/chart.svg" becomes "<label>-out-chart.svg").
func pictureFile(label string, im store.Image) string {
	return SafeName(label + "-" + strings.ReplaceAll(im.Name, "/", "-"))
}

// nbDisplay is a display_data output of a notebook cell.
type nbDisplay struct {
	Data       map[string]any `json:"data"`
	Metadata   map[string]any `json:"metadata"`
	OutputType string         `json:"output_type"` // "display_data"
}

// nbPicture is a picture as Jupyter stores it: base64 for bitmaps, the
// text itself (by lines) for SVG, with a text/plain fallback.
func nbPicture(im store.Image) nbDisplay {
	data := map[string]any{"text/plain": []string{"<" + im.Name + ">"}}
	if im.MIME == "image/svg+xml" {
		data[im.MIME] = lines(string(im.Data))
	} else {
		data[im.MIME] = base64.StdEncoding.EncodeToString(im.Data)
	}
	return nbDisplay{Data: data, Metadata: map[string]any{}, OutputType: "display_data"}
}

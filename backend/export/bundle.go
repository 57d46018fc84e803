package export

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/store"
)

// MaxBundleSize bounds what ReadBundle accepts (a session with long streams
// of token events is a few megabytes; this leaves ample room).
const MaxBundleSize = 256 << 20

// encodeBundle writes b as indented JSON in the file format of jsonfile.go:
// Format and Version set, empty collections as [] and {} rather than null,
// and Session.Runs left out (Runs holds them).
func encodeBundle(b *Bundle) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(toFile(b)); err != nil {
		return nil, fmt.Errorf("export: json: %w", err)
	}
	return buf.Bytes(), nil
}

// ReadBundle reads a JSON export (Render with FormatJSON) back and checks
// it: the format marker and version, a session id, unique run ids, and that
// every iteration, message, event and picture belongs to a run of the
// bundle, under its own run id, without repeated numbers (or names), and
// pictures are of the types loopforge keeps. Errors say what the input looks
// like when it is not an export (a notebook, a zip, HTML, other JSON).
//
// The result has non-nil maps, and event payloads compacted (the indented
// export re-indents them; the store keeps them compact).
func ReadBundle(r io.Reader) (*Bundle, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxBundleSize+1))
	if err != nil {
		return nil, fmt.Errorf("import: read: %w", err)
	}
	if len(data) > MaxBundleSize {
		return nil, fmt.Errorf("import: the file is larger than %d MiB; not a loopforge session export", MaxBundleSize>>20)
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a BOM some editors add
	trimmed := bytes.TrimSpace(data)
	switch {
	case len(trimmed) == 0:
		return nil, errors.New("import: the file is empty; expected a loopforge session export (.json)")
	case bytes.HasPrefix(trimmed, []byte("PK\x03\x04")):
		return nil, errors.New("import: this is a zip archive; import the session's .json export instead")
	case trimmed[0] == '<':
		return nil, errors.New("import: this looks like HTML or XML; import the session's .json export instead")
	case trimmed[0] != '{':
		if json.Valid(trimmed) {
			return nil, errors.New("import: expected a JSON object (a loopforge session export), got another kind of JSON value")
		}
		return nil, errors.New("import: not JSON; expected a loopforge session export (.json)")
	}

	var head struct {
		Format   json.RawMessage `json:"format"`
		Version  json.RawMessage `json:"version"`
		NBFormat json.RawMessage `json:"nbformat"`
	}
	if err := json.Unmarshal(trimmed, &head); err != nil {
		return nil, fmt.Errorf("import: not valid JSON: %w", describeJSONError(err, trimmed))
	}
	var format string
	switch {
	case head.Format == nil && head.NBFormat != nil:
		return nil, errors.New("import: this is a Jupyter notebook, not a loopforge session export; export the session as json")
	case head.Format == nil:
		return nil, fmt.Errorf("import: not a loopforge session export (no \"format\": %q field)", FormatName)
	case json.Unmarshal(head.Format, &format) != nil || format != FormatName:
		return nil, fmt.Errorf("import: format %s is not a loopforge session export (want %q)", head.Format, FormatName)
	}
	var version int
	if err := json.Unmarshal(head.Version, &version); err != nil || version < 1 {
		return nil, fmt.Errorf("import: the export has no valid version (got %s)", orNull(head.Version))
	}
	if version > Version {
		return nil, fmt.Errorf("import: the export is version %d, written by a newer loopforge; this one reads version %d", version, Version)
	}

	var f bundleFile
	if err := json.Unmarshal(trimmed, &f); err != nil {
		return nil, fmt.Errorf("import: %w", describeJSONError(err, trimmed))
	}
	b := f.bundle()
	if err := b.check(); err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	for _, evs := range b.Events {
		for i := range evs {
			var c bytes.Buffer
			if err := json.Compact(&c, evs[i].Payload); err == nil {
				evs[i].Payload = c.Bytes()
			}
		}
	}
	return b, nil
}

func orNull(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "nothing"
	}
	return string(raw)
}

// describeJSONError adds the line number to a decoding error.
func describeJSONError(err error, data []byte) error {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
		if te.Field != "" {
			return fmt.Errorf("line %d: field %s: want %s, got a JSON %s", lineAt(data, off), te.Field, te.Type, te.Value)
		}
	}
	if off < 0 {
		return err
	}
	return fmt.Errorf("line %d: %w", lineAt(data, off), err)
}

func lineAt(data []byte, off int64) int {
	off = min(max(off, 0), int64(len(data)))
	return bytes.Count(data[:off], []byte("\n")) + 1
}

// check validates the references inside a bundle.
func (b *Bundle) check() error {
	if b.Session.ID == "" {
		return errors.New("the session has no id")
	}
	runs := map[string]bool{}
	for i, r := range b.Runs {
		switch {
		case r.ID == "":
			return fmt.Errorf("run %d has no id", i+1)
		case runs[r.ID]:
			return fmt.Errorf("run %q appears twice", r.ID)
		case r.SessionID != "" && r.SessionID != b.Session.ID:
			return fmt.Errorf("run %q belongs to session %q, not %q", r.ID, r.SessionID, b.Session.ID)
		}
		runs[r.ID] = true
	}
	for _, err := range []error{
		checkRows(runs, "iterations", b.Iterations, func(it store.Iteration) (string, string, error) {
			return it.RunID, fmt.Sprintf("iteration %d", it.N), nil
		}),
		checkRows(runs, "messages", b.Messages, func(m store.Message) (string, string, error) {
			return m.RunID, fmt.Sprintf("message %d", m.Seq), nil
		}),
		checkRows(runs, "events", b.Events, checkEvent),
		checkRows(runs, "pictures", b.Images, checkPicture),
	} {
		if err != nil {
			return err
		}
	}
	return nil
}

// checkRows checks the rows an export lists under each run: the run is in
// the export, every row names it, and no row appears twice. row gives a
// row's run, its label (unique within the run) and any fault of its own.
// The first fault in the order of the runs' ids is the error.
func checkRows[R any](runs map[string]bool, what string, byRun map[string][]R, row func(R) (runID, label string, err error)) error {
	for _, id := range slices.Sorted(maps.Keys(byRun)) {
		if !runs[id] {
			return fmt.Errorf("%s for run %q, which is not in the export", what, id)
		}
		seen := map[string]bool{}
		for _, r := range byRun[id] {
			runID, label, err := row(r)
			switch {
			case runID != id:
				return fmt.Errorf("%s is listed under run %q but names run %q", label, id, runID)
			case seen[label]:
				return fmt.Errorf("run %q: %s appears twice", id, label)
			case err != nil:
				return fmt.Errorf("run %q: %w", id, err)
			}
			seen[label] = true
		}
	}
	return nil
}

func checkEvent(e event.Event) (string, string, error) {
	label := fmt.Sprintf("event %d", e.Seq)
	switch {
	case e.Type == "":
		return e.RunID, label, fmt.Errorf("%s has no type", label)
	case !json.Valid(e.Payload):
		return e.RunID, label, fmt.Errorf("%s has no valid payload", label)
	}
	return e.RunID, label, nil
}

func checkPicture(im store.Image) (string, string, error) {
	label := fmt.Sprintf("picture %q of iteration %d", im.Name, im.Iteration)
	switch {
	case im.Name == "" || im.Iteration < 1:
		return im.RunID, label, errors.New("a picture without a name or iteration")
	case !pictureTypes[im.MIME]:
		return im.RunID, label, fmt.Errorf("picture %q is of type %q, not one loopforge keeps", im.Name, im.MIME)
	}
	return im.RunID, label, nil
}

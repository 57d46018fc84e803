package export

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
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
	known := func(what, id string) error {
		if !runs[id] {
			return fmt.Errorf("%s for run %q, which is not in the export", what, id)
		}
		return nil
	}
	for _, id := range slices.Sorted(maps.Keys(b.Iterations)) {
		if err := known("iterations", id); err != nil {
			return err
		}
		seen := map[int]bool{}
		for _, it := range b.Iterations[id] {
			if it.RunID != id {
				return fmt.Errorf("iteration %d is listed under run %q but names run %q", it.N, id, it.RunID)
			}
			if seen[it.N] {
				return fmt.Errorf("run %q: iteration %d appears twice", id, it.N)
			}
			seen[it.N] = true
		}
	}
	for _, id := range slices.Sorted(maps.Keys(b.Messages)) {
		if err := known("messages", id); err != nil {
			return err
		}
		seen := map[int]bool{}
		for _, m := range b.Messages[id] {
			if m.RunID != id {
				return fmt.Errorf("message %d is listed under run %q but names run %q", m.Seq, id, m.RunID)
			}
			if seen[m.Seq] {
				return fmt.Errorf("run %q: message %d appears twice", id, m.Seq)
			}
			seen[m.Seq] = true
		}
	}
	for _, id := range slices.Sorted(maps.Keys(b.Events)) {
		if err := known("events", id); err != nil {
			return err
		}
		seen := map[int64]bool{}
		for _, e := range b.Events[id] {
			if e.RunID != id {
				return fmt.Errorf("event %d is listed under run %q but names run %q", e.Seq, id, e.RunID)
			}
			if seen[e.Seq] {
				return fmt.Errorf("run %q: event %d appears twice", id, e.Seq)
			}
			if e.Type == "" {
				return fmt.Errorf("run %q: event %d has no type", id, e.Seq)
			}
			if !json.Valid(e.Payload) {
				return fmt.Errorf("run %q: event %d has no valid payload", id, e.Seq)
			}
			seen[e.Seq] = true
		}
	}
	for _, id := range slices.Sorted(maps.Keys(b.Images)) {
		if err := known("pictures", id); err != nil {
			return err
		}
		seen := map[string]bool{}
		for _, im := range b.Images[id] {
			key := fmt.Sprintf("%d/%s", im.Iteration, im.Name)
			switch {
			case im.RunID != id:
				return fmt.Errorf("picture %q is listed under run %q but names run %q", im.Name, id, im.RunID)
			case im.Name == "" || im.Iteration < 1:
				return fmt.Errorf("run %q: a picture without a name or iteration", id)
			case seen[key]:
				return fmt.Errorf("run %q: picture %q of iteration %d appears twice", id, im.Name, im.Iteration)
			case !pictureTypes[im.MIME]:
				return fmt.Errorf("run %q: picture %q is of type %q, not one loopforge keeps", id, im.Name, im.MIME)
			}
			seen[key] = true
		}
	}
	return nil
}

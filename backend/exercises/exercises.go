// Package exercises holds the built-in presets: ready exercises in
// Portuguese and English, each a prompt with the tests that judge its
// programs, so an instructor can try tests in a minute. The seed's
// data-structures prompt is among them, its text kept in backend/loop.
package exercises

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"strings"
	"sync"

	"github.com/loopforge/loopforge/backend/config"
	"github.com/loopforge/loopforge/backend/loop"
	"go.yaml.in/yaml/v3"
)

//go:embed files/*.yml
var files embed.FS

// order is how the list shows them: the seed's first, then by language.
var order = []string{
	"data-structures-pt", "data-structures-en",
	"soma-pt", "media-pt", "palindromo-pt",
	"sum-en", "average-en", "palindrome-en",
}

// All returns the built-in presets, in order. The files are embedded and
// checked by a test, so a broken one is a programming error and panics.
func All() []config.Preset {
	ps := load()
	out := make([]config.Preset, len(ps))
	copy(out, ps)
	return out
}

var load = sync.OnceValue(func() []config.Preset {
	byID := map[string]config.Preset{}
	names, err := fs.Glob(files, "files/*.yml")
	if err != nil {
		panic(err)
	}
	for _, name := range names {
		p, err := parse(name)
		if err != nil {
			panic(err)
		}
		byID[p.ID] = p
	}
	if len(byID) != len(order) {
		panic(fmt.Sprintf("exercises: %d files for %d listed ids", len(byID), len(order)))
	}
	out := make([]config.Preset, 0, len(order))
	for _, id := range order {
		p, ok := byID[id]
		if !ok {
			panic("exercises: no file for " + id)
		}
		out = append(out, p)
	}
	return out
})

func parse(name string) (config.Preset, error) {
	b, err := files.ReadFile(name)
	if err != nil {
		return config.Preset{}, err
	}
	var p config.Preset
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&p); err != nil {
		return p, fmt.Errorf("exercises: %s: %w", name, err)
	}
	if p.Prompt == "" {
		p.Prompt = loop.Preset(p.ID) // the seed's prompts live with the loop
	}
	p.Prompt = strings.TrimSpace(p.Prompt)
	switch {
	case p.ID == "" || p.Title == "" || p.Prompt == "":
		return p, fmt.Errorf("exercises: %s needs an id, a title and a prompt", name)
	case p.Suite() == nil:
		return p, fmt.Errorf("exercises: %s has no tests", name)
	}
	if err := p.Suite().Check(); err != nil {
		return p, fmt.Errorf("exercises: %s: %w", name, err)
	}
	return p, nil
}

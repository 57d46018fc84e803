package config

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/lithammer/fuzzysearch/fuzzy"
	"go.yaml.in/yaml/v3"
)

// nodeTypes gives the shape of fileConfig fields kept as raw yaml.Node (so
// their order can be read), by key path, for unknownKey to check.
var nodeTypes = map[string]reflect.Type{
	"providers": reflect.TypeFor[map[string]fileProfile](),
}

// unknownKey returns an *Error naming the first key in n that the struct
// type t (read through its yaml tags) does not declare, with its line and
// the nearest declared key when one is close. It walks nested structs, lists
// and maps, so a typo in `limits:` or in a provider profile is caught too.
//
// yaml.v3's KnownFields reports the same mistake only as a multi-line
// "yaml: unmarshal errors:" text, and not at all below a yaml.Node.
func unknownKey(path string, n *yaml.Node, t reflect.Type, at string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == reflect.TypeFor[yaml.Node]() {
		nt, ok := nodeTypes[at]
		if !ok {
			return nil
		}
		t = nt
	}
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			if err := unknownKey(path, c, t, at); err != nil {
				return err
			}
		}
	case yaml.SequenceNode:
		if t.Kind() != reflect.Slice && t.Kind() != reflect.Array {
			return nil // a type mismatch: the decoder reports it
		}
		for i, c := range n.Content {
			if err := unknownKey(path, c, t.Elem(), fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
	case yaml.MappingNode:
		return unknownMapKey(path, n, t, at)
	}
	return nil
}

func unknownMapKey(path string, n *yaml.Node, t reflect.Type, at string) error {
	var fields map[string]reflect.Type
	switch t.Kind() {
	case reflect.Struct:
		fields = yamlFields(t)
	case reflect.Map:
	default:
		return nil // free-form (e.g. a tool's JSON Schema) or a type mismatch
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Value == "<<" { // a merge key: its content is checked where it is defined
			continue
		}
		sub := joinPath(at, k.Value)
		if t.Kind() == reflect.Map {
			if err := unknownKey(path, v, t.Elem(), sub); err != nil {
				return err
			}
			continue
		}
		ft, ok := fields[k.Value]
		if !ok {
			return &Error{File: path, Line: k.Line, Msg: unknownKeyMsg(at, k.Value, fields)}
		}
		if err := unknownKey(path, v, ft, sub); err != nil {
			return err
		}
	}
	return nil
}

func unknownKeyMsg(at, key string, fields map[string]reflect.Type) string {
	where := ""
	if at != "" {
		where = " in " + at
	}
	msg := fmt.Sprintf("unknown key %q%s", key, where)
	if s := nearest(key, fields); s != "" {
		return msg + fmt.Sprintf(" (did you mean %s?)", s)
	}
	names := make([]string, 0, len(fields))
	for f := range fields {
		names = append(names, f)
	}
	slices.Sort(names)
	return msg + " (valid keys: " + strings.Join(names, ", ") + ")"
}

// nearest is the declared key closest to key, "" when none is close enough
// to be a likely typo (at most a third of the key's letters differ).
func nearest(key string, fields map[string]reflect.Type) string {
	best, bestD := "", len(key)/3+1
	for f := range fields {
		d := fuzzy.LevenshteinDistance(strings.ToLower(key), f)
		if d < bestD || (d == bestD && best != "" && f < best) {
			best, bestD = f, d
		}
	}
	return best
}

func joinPath(at, key string) string {
	if at == "" {
		return key
	}
	return at + "." + key
}

// yamlFields maps the keys a struct accepts to their types, following
// yaml.v3's rules: the tag's name, else the lower-cased field name; "-" and
// unexported fields are skipped, ",inline" structs are merged.
func yamlFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for f := range t.Fields() {
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("yaml")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if strings.Contains(opts, "inline") && f.Type.Kind() == reflect.Struct {
			for k, v := range yamlFields(f.Type) {
				out[k] = v
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		out[name] = f.Type
	}
	return out
}

package config

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// duplicateKey returns an *Error for the first key given twice in one
// mapping anywhere in n, naming both lines. yaml.v3 checks this only when
// it decodes a mapping into a Go map or struct, never below a yaml.Node
// (providers: a profile given twice was merged, the last value winning),
// and words it differently from unknownKey's errors.
func duplicateKey(path string, n *yaml.Node, at string) error {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			if err := duplicateKey(path, c, at); err != nil {
				return err
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if err := duplicateKey(path, c, fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
	case yaml.MappingNode:
		return duplicateMapKey(path, n, at)
	}
	return nil // scalars; an alias's content is checked where it is defined
}

func duplicateMapKey(path string, n *yaml.Node, at string) error {
	first := map[string]int{} // scalar key -> its line
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode {
			if line, ok := first[k.Value]; ok {
				where := ""
				if at != "" {
					where = " in " + at
				}
				return &Error{File: path, Line: k.Line,
					Msg: fmt.Sprintf("duplicate key %q%s (first at line %d)", k.Value, where, line)}
			}
			first[k.Value] = k.Line
		}
		if err := duplicateKey(path, v, joinPath(at, k.Value)); err != nil {
			return err
		}
	}
	return nil
}

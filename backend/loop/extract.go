package loop

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// structuredAnswer is the JSON shape asked of providers with structured output.
type structuredAnswer struct {
	Explanation string `json:"explanation"`
	Code        string `json:"code"`
}

// answerSchema is the JSON Schema sent with structured requests.
var answerSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"explanation": map[string]any{"type": "string", "description": "one or two sentences about the program"},
		"code":        map[string]any{"type": "string", "description": "the complete program"},
	},
	"required":             []string{"explanation", "code"},
	"additionalProperties": false,
}

// errNoCode is returned when an answer holds nothing runnable; the message is
// shown to the model in the next prompt, so it says exactly what was wrong.
var errNoCode = errors.New("no code found")

var fenceRe = regexp.MustCompile("(?m)^[ \t]*(`{3,}|~{3,})[ \t]*([A-Za-z0-9_+.-]*)[^\n]*\n")

// extractCode pulls the program out of a model's answer: JSON first when the
// answer was structured, then the first fenced block of the language, then
// the first untagged fenced block.
func extractCode(content string, lang Language, structured bool) (string, error) {
	trimmed := strings.TrimSpace(content)
	if trimmed == "" {
		return "", fmt.Errorf("%w: the answer was empty", errNoCode)
	}
	var jsonErr error
	if structured || strings.HasPrefix(trimmed, "{") {
		code, err := fromJSON(trimmed)
		if err == nil {
			return code, nil
		}
		jsonErr = err
	}
	code, err := fromFence(content, lang)
	if err == nil {
		return code, nil
	}
	if jsonErr != nil && structured {
		return "", jsonErr
	}
	return "", err
}

func fromJSON(s string) (string, error) {
	// Some models wrap JSON in a ```json fence despite being asked not to.
	if strings.HasPrefix(s, "```") {
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = strings.TrimSuffix(strings.TrimSpace(s[i+1:]), "```")
		}
	}
	var a structuredAnswer
	if err := json.Unmarshal([]byte(s), &a); err != nil {
		return "", fmt.Errorf("%w: the answer was not valid JSON (%v)", errNoCode, err)
	}
	if strings.TrimSpace(a.Code) == "" {
		return "", fmt.Errorf("%w: the JSON answer had an empty \"code\" field", errNoCode)
	}
	return strings.TrimRight(a.Code, "\n") + "\n", nil
}

type block struct {
	info string
	body string
}

func fromFence(s string, lang Language) (string, error) {
	var blocks []block
	rest := s
	for {
		loc := fenceRe.FindStringSubmatchIndex(rest)
		if loc == nil {
			break
		}
		marker := rest[loc[2]:loc[3]]
		info := strings.ToLower(rest[loc[4]:loc[5]])
		body := rest[loc[1]:]
		end := closingFence(body, marker)
		if end < 0 {
			if len(blocks) == 0 {
				return "", fmt.Errorf("%w: the code block was opened with %s but never closed (was the answer cut off?)", errNoCode, marker)
			}
			break
		}
		blocks = append(blocks, block{info: info, body: body[:end]})
		rest = body[end:]
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			rest = rest[i+1:]
		} else {
			rest = ""
		}
	}
	for _, b := range blocks {
		for _, a := range lang.Aliases {
			if b.info == a {
				return nonEmpty(b.body, lang)
			}
		}
	}
	for _, b := range blocks {
		if b.info == "" {
			return nonEmpty(b.body, lang)
		}
	}
	if len(blocks) > 0 {
		return "", fmt.Errorf("%w: the answer had a ```%s block but no ```%s block", errNoCode, blocks[0].info, lang.Fence)
	}
	return "", fmt.Errorf("%w: the answer had no ```%s fenced code block", errNoCode, lang.Fence)
}

// closingFence finds the line that closes a block opened with marker and
// returns the offset of that line's start in body, or -1.
func closingFence(body, marker string) int {
	off := 0
	for off <= len(body) {
		line := body[off:]
		nl := strings.IndexByte(line, '\n')
		if nl >= 0 {
			line = line[:nl]
		}
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, marker) && strings.Trim(t, marker[:1]) == "" {
			return off
		}
		if nl < 0 {
			return -1
		}
		off += nl + 1
	}
	return -1
}

func nonEmpty(body string, lang Language) (string, error) {
	if strings.TrimSpace(body) == "" {
		return "", fmt.Errorf("%w: the ```%s block was empty", errNoCode, lang.Fence)
	}
	return strings.TrimRight(body, "\n") + "\n", nil
}

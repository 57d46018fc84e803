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

// errNoCode is wrapped by every *FormatError: an answer that holds nothing
// runnable.
var errNoCode = errors.New("no code found")

// The codes of a FormatError (event.GeneratedPayload.FormatCode), which a
// frontend words in its own language (like service.Code); the parameters of
// each follow it.
const (
	FormatEmpty       = "format.empty"        //
	FormatInvalidJSON = "format.invalid_json" // detail
	FormatEmptyField  = "format.empty_field"  //
	FormatUnclosed    = "format.unclosed"     //
	FormatOtherBlock  = "format.other_block"  // found, fence
	FormatNoBlock     = "format.no_block"     // fence
	FormatEmptyBlock  = "format.empty_block"  // fence
)

// FormatError says why an answer held no usable code. Its text goes to the
// model in the next prompt and to the user, so it says exactly what was
// wrong, in prose (no Markdown: a fence in it would show as backticks).
type FormatError struct {
	Code   string            // one of the Format* codes
	Params map[string]string // the code's parameters
	msg    string
}

func (e *FormatError) Error() string { return errNoCode.Error() + ": " + e.msg }
func (e *FormatError) Unwrap() error { return errNoCode }

// Problem is the text without the "no code found" prefix.
func (e *FormatError) Problem() string { return e.msg }

func formatErr(code string, params map[string]string, format string, a ...any) error {
	return &FormatError{Code: code, Params: params, msg: fmt.Sprintf(format, a...)}
}

var fenceRe = regexp.MustCompile("(?m)^[ \t]*(`{3,}|~{3,})[ \t]*([A-Za-z0-9_+.-]*)[^\n]*\n")

// extractCode pulls the program out of a model's answer: JSON first when the
// answer was structured, then the first fenced block of the language, then
// the first untagged fenced block.
func extractCode(content string, lang Language, structured bool) (string, error) {
	trimmed := strings.TrimSpace(content)
	if trimmed == "" {
		return "", formatErr(FormatEmpty, nil, "the answer was empty")
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
		return "", formatErr(FormatInvalidJSON, map[string]string{"detail": err.Error()}, "the answer was not valid JSON (%v)", err)
	}
	if strings.TrimSpace(a.Code) == "" {
		return "", formatErr(FormatEmptyField, nil, "the JSON answer had an empty \"code\" field")
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
				return "", formatErr(FormatUnclosed, nil, "the code block was opened but never closed (was the answer cut off?)")
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
		return "", formatErr(FormatOtherBlock, map[string]string{"found": blocks[0].info, "fence": lang.Fence},
			"the answer had a code block marked %s but none marked %s", blocks[0].info, lang.Fence)
	}
	return "", formatErr(FormatNoBlock, map[string]string{"fence": lang.Fence}, "the answer had no fenced code block marked %s", lang.Fence)
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
		return "", formatErr(FormatEmptyBlock, map[string]string{"fence": lang.Fence}, "the %s code block was empty", lang.Fence)
	}
	return strings.TrimRight(body, "\n") + "\n", nil
}

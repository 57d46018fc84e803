// Package chatstream writes answers the way OpenAI's chat completions API
// streams them (text/event-stream of chat.completion.chunk events), for the
// benchmarks' fake models (bench/fakemodel, bench/classload,
// bench/killstorm). loopforge's own tests have their fakes under
// backend/provider; this is the benchmarks' one copy.
package chatstream

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// Usage is the usage the final chunk reports.
const Usage = `{"prompt_tokens":100,"completion_tokens":40,"total_tokens":140}`

// Answer is code as a model answers it: after intro in a fenced block, or,
// when the request asked for structured output (a response_format that is
// not null), as the {"explanation", "code"} object loopforge asks for.
func Answer(responseFormat json.RawMessage, intro, code string) string {
	if len(responseFormat) > 0 && string(responseFormat) != "null" {
		b, _ := json.Marshal(map[string]string{"explanation": intro, "code": code})
		return string(b)
	}
	return intro + "\n\n```python\n" + code + "```\n"
}

// Stream writes answer as chunk events of step bytes, each after pause,
// then the stop chunk with Usage and [DONE]. It returns false, having
// stopped, when the client went away during a pause.
func Stream(w http.ResponseWriter, r *http.Request, id, answer string, step int, pause time.Duration) bool {
	w.Header().Set("Content-Type", "text/event-stream")
	step = max(1, step)
	for i := 0; i < len(answer); i += step {
		if !Sleep(r, pause) {
			return false
		}
		delta, _ := json.Marshal(answer[i:min(i+step, len(answer))])
		fmt.Fprintf(w, "data: {\"id\":%q,\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"fake\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":%s},\"finish_reason\":null}]}\n\n", id, delta)
		w.(http.Flusher).Flush()
	}
	fmt.Fprintf(w, "data: {\"id\":%q,\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"fake\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],\"usage\":%s}\n\ndata: [DONE]\n\n", id, Usage)
	w.(http.Flusher).Flush()
	return true
}

// Sleep pauses d unless the client goes away first (false).
func Sleep(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

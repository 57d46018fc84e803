// Command fakemodel is an OpenAI-compatible chat-completions server with
// scripted answers and a scripted answering time, for benchmarks that
// drive loopforge and other loops against the same model.
//
//	go run ./bench/fakemodel [-addr 127.0.0.1:0] [-ms 200] [-chunks 10]
//
// It prints "LISTENING <port>" once it accepts connections, then serves
// POST /v1/chat/completions (streaming as server-sent events when the
// request asks for "stream": true, else one JSON answer) until it is
// killed. Every answer is a program: in a ```python fenced block, or the
// {"explanation", "code"} object when the request has a response_format.
//
// The script is in the prompt: "[fail:N]" anywhere in the request makes the
// first N program answers of a conversation fail (ZeroDivisionError) and
// every later one work (it prints RESULT=42); no marker is [fail:0]. A
// conversation's place is the number of assistant messages its request
// carries: each generation adds one to the history in both loopforge and
// the LangGraph peer. Reflection requests carry none and get a failing
// program as their text, which neither loop runs.
//
// Each answer takes -ms: its -chunks chunks are sent -ms/-chunks apart,
// the first after one such pause. GET /_stats reports the requests served
// and the time they took from arrival to the last byte ({"requests": N,
// "busy_ms": M}): a benchmark that runs one loop at a time subtracts the
// difference across a run to get that run's own overhead.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loopforge/loopforge/bench/internal/chatstream"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	total := flag.Duration("ms", 200*time.Millisecond, "how long one answer takes (a duration: 200ms)")
	chunks := flag.Int("chunks", 10, "chunks per streamed answer")
	flag.Parse()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakemodel:", err)
		os.Exit(1)
	}
	s := &server{pause: *total / time.Duration(max(*chunks, 1)), chunks: max(*chunks, 1)}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.complete)
	mux.HandleFunc("GET /_stats", s.stats)
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"object":"list","data":[{"id":"fake","object":"model","owned_by":"bench"}]}`)
	})
	fmt.Printf("LISTENING %d\n", ln.Addr().(*net.TCPAddr).Port)
	if err := http.Serve(ln, mux); err != nil {
		fmt.Fprintln(os.Stderr, "fakemodel:", err)
		os.Exit(1)
	}
}

type server struct {
	pause  time.Duration
	chunks int

	seq atomic.Int64

	mu       sync.Mutex
	requests int
	busy     time.Duration
}

const (
	badCode  = "def ratio(a, b):\n    return a // b\n\nprint(f\"RESULT={ratio(42, 0)}\")\n"
	goodCode = "def ratio(a, b):\n    return a // b if b else a\n\nprint(f\"RESULT={ratio(42, 0)}\")\n"
)

var failMarker = regexp.MustCompile(`\[fail:(\d+)\]`)

type request struct {
	Stream         bool            `json:"stream"`
	ResponseFormat json.RawMessage `json:"response_format"`
	Messages       []struct {
		Role string `json:"role"`
	} `json:"messages"`
}

func (s *server) complete(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	defer func() {
		s.mu.Lock()
		s.requests++
		s.busy += time.Since(start)
		s.mu.Unlock()
	}()
	var raw strings.Builder
	var req request
	if err := json.NewDecoder(io.TeeReader(r.Body, &raw)).Decode(&req); err != nil { // the marker may be in any message
		http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
		return
	}
	fails := 0
	if m := failMarker.FindStringSubmatch(raw.String()); m != nil {
		fails, _ = strconv.Atoi(m[1])
	}
	done := 0
	for _, m := range req.Messages {
		if m.Role == "assistant" {
			done++
		}
	}
	code := goodCode
	if done < fails {
		code = badCode
	}
	answer := chatstream.Answer(req.ResponseFormat, "Here is the program.", code)
	// A completion id of its own: LangGraph's message reducer merges
	// messages that share an id, which would fold the peer's history.
	id := fmt.Sprintf("chatcmpl-%d", s.seq.Add(1))
	if !req.Stream {
		chatstream.Sleep(r, s.pause*time.Duration(s.chunks))
		msg, _ := json.Marshal(answer)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":%q,"object":"chat.completion","created":1,"model":"fake","choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}],"usage":%s}`, id, msg, chatstream.Usage)
		return
	}
	chatstream.Stream(w, r, id, answer, (len(answer)+s.chunks-1)/s.chunks, s.pause)
}

func (s *server) stats(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"requests":%d,"busy_ms":%.3f}`, s.requests, float64(s.busy)/float64(time.Millisecond))
}

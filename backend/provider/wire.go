package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"net/http"
	"strings"
	"time"

	"github.com/tmaxmax/go-sse"
)

// What the HTTP adapters share to speak their APIs' REST wire formats
// directly: a JSON POST through the HTTPCall's client, and the reading of
// a text/event-stream answer.

// maxErrorBody bounds what is read of an error answer.
const maxErrorBody = 64 << 10

// maxEvent bounds one server-sent event. A tool call's arguments can come
// whole in one event (a file written by the model); the official SDKs
// allowed 32 MiB, and so does this.
const maxEvent = 32 << 20

// HTTPStatusError is an HTTP answer other than 200 OK, its body read (up to
// 64 KiB): each adapter words it from its API's error shape.
type HTTPStatusError struct {
	Status int
	Body   []byte
}

func (e *HTTPStatusError) Error() string {
	return fmt.Sprintf("HTTP %d: %s", e.Status, BodyMessage(e.Body))
}

// CapRefused is why a 400 answer refused the answer's token cap, which the
// request carried in field with value; nil when the answer is about
// something else. It reads the API's error object: its param naming field
// (OpenAI's), or else its message naming it (Anthropic's "max_tokens: 99999
// > 64000", Azure's "Unrecognized request argument supplied: ...").
// other is the API's alternative field ("" when it has none); profile
// names the profile to change.
func CapRefused(se *HTTPStatusError, profile, field, other string, value int) *FieldError {
	if se.Status != http.StatusBadRequest || field == "" {
		return nil
	}
	var body struct {
		Error struct {
			Param string `json:"param"`
			Code  any    `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal(se.Body, &body)
	if body.Error.Param != field && !strings.Contains(BodyMessage(se.Body), field) {
		return nil
	}
	return &FieldError{Profile: profile, Field: field, Other: other, Value: value,
		Unsupported: body.Error.Code == "unsupported_parameter"}
}

// PostJSON sends body, encoded as JSON, to url with ctx, through the call's
// http.Client, which watches the limits. setHeader, if not nil, adds the
// API's own headers (its key, its version): a func, so that a client holding
// it never prints the key. A 200 answer is returned open, for the caller to
// read and close. Any other answer is read and closed, and returned as an
// *HTTPStatusError; a body that does not encode, as an *Error of
// KindBadRequest; a failure to send or to read, as the client reported it.
func (c *HTTPCall) PostJSON(ctx context.Context, url string, body any, setHeader func(http.Header)) (*http.Response, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, &Error{Provider: c.provider, Kind: KindBadRequest, Message: err.Error(), Err: err}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if setHeader != nil {
		setHeader(req.Header)
	}
	res, err := c.client.Do(req)
	if err != nil {
		return nil, err
	}
	if res.StatusCode == http.StatusOK {
		return res, nil
	}
	defer res.Body.Close()
	msg, err := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
	if err != nil {
		return nil, err
	}
	return nil, &HTTPStatusError{Status: res.StatusCode, Body: msg}
}

// Finish reads what is left of an answer whose final event has come (at
// most finishLimit bytes, for at most finishWait), so that closing body
// gives its connection back to the pool. An answer closed before its end
// was read closes the connection instead, and the next call pays a new TCP
// (and TLS) handshake: seen on every other call of a loop against a local
// server. After the final event the rest is normally the end of the chunked
// encoding, already on its way; a server that keeps the answer open costs
// finishWait, and its connection is closed as before.
func Finish(body io.ReadCloser) {
	t := time.AfterFunc(finishWait, func() { _ = body.Close() })
	defer t.Stop()
	_, _ = io.Copy(io.Discard, io.LimitReader(body, finishLimit))
}

const (
	finishLimit = 64 << 10
	finishWait  = 250 * time.Millisecond
)

// Event is one server-sent event: its type (the event field; "" when it
// has none) and its data lines joined by "\n".
type Event struct {
	Type string
	Data string
}

// Events yields the events of a text/event-stream body in order, then the
// read error that cut it short, if any. A body that simply ends is no
// error: an incomplete last event is dropped, and each API's own final
// event is how a truncated answer shows. The decoding is go-sse's
// (stdlib-only, the WHATWG rules: comments, CR/LF line ends, multi-line
// data), not an SDK's: linking either SDK for it cost loopforge's start-up
// more than the rest of the provider code together (issue 13).
func Events(body io.Reader) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		for ev, err := range sse.Read(body, &sse.ReadConfig{MaxEventSize: maxEvent}) {
			if !yield(Event{Type: ev.Type, Data: ev.Data}, err) {
				return
			}
		}
	}
}

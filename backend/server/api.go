package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"reflect"
	"strconv"
	"time"

	"github.com/loopforge/loopforge/backend/api"
	"github.com/loopforge/loopforge/backend/config"
	"github.com/loopforge/loopforge/backend/service"
	"github.com/loopforge/loopforge/backend/wire"
)

// routeAPI serves every operation of api.Ops with one handler, then the
// special routes that api.Specials lists.
func (s *Server) routeAPI() {
	if s.opts.Backend == nil {
		return
	}
	for _, op := range api.Ops {
		s.mux.HandleFunc(op.Route(), s.operation(op))
	}
	// Exports download as attachments: an HTML handout holds model output and
	// must never render on this origin.
	s.mux.HandleFunc("GET /api/sessions/{id}/export", s.export)
	s.mux.HandleFunc("GET /api/ws", s.websocket)
}

// operation is the handler of every operation: decode the input, call,
// answer with the operation's status and the output as JSON, or with the
// error's status (service.Classify) and its first line.
func (s *Server) operation(op api.Operation) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !api.Allows(op, roleOf(r)) {
			writeError(w, http.StatusForbidden, coded(service.CodeStudentOnly, "students cannot use "+op.Name(), "operation", op.Name()))
			return
		}
		out, err := op.Invoke(r.Context(), s.opts.Backend, func(in any) error { return bind(w, r, in) })
		var bad *inputError
		var big *http.MaxBytesError
		switch {
		case errors.As(err, &big):
			writeError(w, http.StatusRequestEntityTooLarge, tooLarge(big.Limit))
		case errors.As(err, &bad):
			writeError(w, http.StatusBadRequest, coded(service.CodeBadInput, bad.Error(), "detail", bad.detail))
		case err != nil:
			s.fail(w, err)
		default:
			writeJSON(w, op.Status(), out)
		}
	}
}

func (s *Server) export(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	name, data, err := s.opts.Backend.Export(r.Context(), r.PathValue("id"), q.Get("format"), q.Get("run"), q.Get("lang"), q.Get("tz"))
	if err != nil {
		s.fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": name}))
	_, _ = w.Write(data)
}

// inputError is a request the handler could not read into the operation's
// input: always 400, with its own message (detail is the decoder's); err is
// the decoder's, for errors.As (a body over the limit).
type inputError struct {
	msg, detail string
	err         error
}

func (e *inputError) Error() string { return e.msg }
func (e *inputError) Unwrap() error { return e.err }

// maxBody bounds an operation's JSON body. The largest bodies are runs: a
// prompt of up to config.MaxPromptBytes and an input of up to
// config.MaxStdinBytes, each of which JSON may escape to six bytes a byte
// (\u0001), plus the other fields. A longer prompt is thus refused by
// service.prepare, with the prompt's own size, rather than here.
const maxBody = 6*(config.MaxPromptBytes+config.MaxStdinBytes) + 64<<10

// tooLarge is the answer to a body over limit bytes.
func tooLarge(limit int64) wire.ErrorBody {
	return coded(service.CodeTooLarge, fmt.Sprintf("the request body is larger than %d bytes, the most loopforge accepts", limit),
		"max", strconv.FormatInt(limit, 10))
}

// bind fills the struct in points to from the request. A field tagged
// path:"name" takes the route's {name}, one tagged query:"name" the query
// parameter; the other fields form the JSON body, read only when there are
// any (at most maxBody, unknown fields refused). A query number that does not
// parse reads as 0, which every operation takes as its default.
func bind(w http.ResponseWriter, r *http.Request, in any) error {
	v := reflect.ValueOf(in).Elem()
	if api.FieldsOf(v.Type()).Body {
		dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody))
		dec.DisallowUnknownFields()
		if err := dec.Decode(in); err != nil {
			return &inputError{msg: "invalid JSON body: " + err.Error(), detail: err.Error(), err: err}
		}
	}
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if name := f.Tag.Get("path"); name != "" {
			setString(v.Field(i), r.PathValue(name))
		} else if name := f.Tag.Get("query"); name != "" {
			setString(v.Field(i), r.URL.Query().Get(name))
		}
	}
	return nil
}

// setString stores a parameter in a string or int field; the wire types use
// no other kind for parameters (the api tests check it).
func setString(f reflect.Value, s string) {
	switch f.Kind() {
	case reflect.String:
		f.SetString(s)
	case reflect.Int:
		n, _ := strconv.Atoi(s)
		f.SetInt(int64(n))
	default:
		panic(fmt.Sprintf("server: a parameter field of kind %s", f.Kind()))
	}
}

// httpStatus turns service.Classify's verdict into an HTTP status.
var httpStatus = map[service.Class]int{
	service.ClassInternal:      http.StatusInternalServerError,
	service.ClassInvalid:       http.StatusBadRequest,
	service.ClassNotFound:      http.StatusNotFound,
	service.ClassUnavailable:   http.StatusConflict,
	service.ClassProviderSetup: http.StatusBadRequest,
	service.ClassProvider:      http.StatusBadGateway,
	service.ClassForbidden:     http.StatusForbidden,
	service.ClassQuota:         http.StatusTooManyRequests,
	service.ClassUnauthorized:  http.StatusUnauthorized,
}

// fail answers a domain error with the status of its class, its first line,
// its code and parameters (service.Explain); only internal errors are logged
// (the others are the caller's to fix).
func (s *Server) fail(w http.ResponseWriter, err error) {
	p := service.Explain(err)
	if p.Class == service.ClassInternal {
		s.opts.Logger.Error("api call failed", "err", err)
	}
	if q, ok := errors.AsType[*service.QuotaError](err); ok && !q.RetryAt.IsZero() {
		w.Header().Set("Retry-After", strconv.Itoa(max(1, int(time.Until(q.RetryAt).Seconds()+0.999))))
	}
	writeError(w, httpStatus[p.Class], wire.FromProblem(p))
}

// coded is the wire error of a refusal the server makes itself; kv are the
// parameters, name then value.
func coded(code service.Code, msg string, kv ...string) wire.ErrorBody {
	e := wire.ErrorBody{Error: msg, Code: string(code), Params: map[string]string{}}
	for i := 0; i+1 < len(kv); i += 2 {
		e.Params[kv[i]] = kv[i+1]
	}
	return e
}

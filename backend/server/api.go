package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"github.com/loopforge/loopforge/backend/api"
	"github.com/loopforge/loopforge/backend/service"
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
		out, err := op.Invoke(r.Context(), s.opts.Backend, func(in any) error { return bind(w, r, in) })
		var bad *inputError
		switch {
		case errors.As(err, &bad):
			writeError(w, http.StatusBadRequest, bad.Error())
		case err != nil:
			s.fail(w, err)
		default:
			writeJSON(w, op.Status(), out)
		}
	}
}

func (s *Server) export(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	name, data, err := s.opts.Backend.Export(r.Context(), r.PathValue("id"), q.Get("format"), q.Get("run"))
	if err != nil {
		s.fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": name}))
	_, _ = w.Write(data)
}

// inputError is a request the handler could not read into the operation's
// input: always 400, with its own message.
type inputError struct{ msg string }

func (e *inputError) Error() string { return e.msg }

// bind fills the struct in points to from the request. A field tagged
// path:"name" takes the route's {name}, one tagged query:"name" the query
// parameter; the other fields form the JSON body, read only when there are
// any (at most 1 MiB, unknown fields refused). A query number that does not
// parse reads as 0, which every operation takes as its default.
func bind(w http.ResponseWriter, r *http.Request, in any) error {
	v := reflect.ValueOf(in).Elem()
	if api.FieldsOf(v.Type()).Body {
		dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20))
		dec.DisallowUnknownFields()
		if err := dec.Decode(in); err != nil {
			return &inputError{"invalid JSON body: " + err.Error()}
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
}

// fail answers a domain error with the status of its class and its first
// line; only internal errors are logged (the others are the caller's to fix).
func (s *Server) fail(w http.ResponseWriter, err error) {
	class := service.Classify(err)
	if class == service.ClassInternal {
		s.opts.Logger.Error("api call failed", "err", err)
	}
	msg := err.Error()
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	writeError(w, httpStatus[class], msg)
}

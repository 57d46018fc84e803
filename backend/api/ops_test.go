package api

import (
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var routeParam = regexp.MustCompile(`\{([a-z_]+)\}`)

// TestOpsAreWellFormed checks what the HTTP handler and the generator
// assume of every entry: a unique name and route, a known method, inputs
// that are structs whose {params} have a field, parameters of a kind the
// server can read, and no body on a GET or DELETE.
func TestOpsAreWellFormed(t *testing.T) {
	names, routes := map[string]bool{}, map[string]bool{}
	for _, op := range Ops {
		name, route := op.Name(), op.Route()
		if names[name] || routes[route] {
			t.Errorf("%s (%s): name or route listed twice", name, route)
		}
		names[name], routes[route] = true, true
		method, path, _ := strings.Cut(route, " ")
		if !slices.Contains([]string{"GET", "POST", "PUT", "DELETE"}, method) || !strings.HasPrefix(path, "/api/") {
			t.Errorf("%s: route %q is not METHOD /api/…", name, route)
		}
		if op.Status() < 200 || op.Status() > 299 {
			t.Errorf("%s: success status %d", name, op.Status())
		}
		in := op.In()
		if in.Kind() != reflect.Struct {
			t.Errorf("%s: input %s is not a struct", name, in)
			continue
		}
		paramKinds(t, in)
		fields := FieldsOf(in)
		for _, m := range routeParam.FindAllStringSubmatch(path, -1) {
			if !slices.Contains(fields.Path, m[1]) {
				t.Errorf("%s: no field of %s is tagged path:%q", name, in, m[1])
			}
		}
		if fields.Body && (method == http.MethodGet || method == http.MethodDelete) {
			t.Errorf("%s: a %s whose input %s has body fields", name, method, in)
		}
	}
	for _, s := range Specials {
		if names[s.Name] || (s.Route != "" && routes[s.Route]) {
			t.Errorf("special %s is also an operation", s.Name)
		}
		if (s.Face == Desktop) != (s.Route == "") {
			t.Errorf("special %s: a web route is what a web special has, and only it", s.Name)
		}
	}
}

// paramKinds checks that every path or query parameter of in is a string
// or an int, the kinds the server reads.
func paramKinds(t *testing.T, in reflect.Type) {
	for i := range in.NumField() {
		f := in.Field(i)
		if f.Tag.Get("path") == "" && f.Tag.Get("query") == "" {
			continue
		}
		if k := f.Type.Kind(); k != reflect.String && k != reflect.Int {
			t.Errorf("%s.%s: a parameter is a string or an int, not %s", in, f.Name, k)
		}
		// The frontend (api/http.ts) fills a parameter from the input's
		// field of the same JSON name.
		json, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if p := f.Tag.Get("path") + f.Tag.Get("query"); p != json {
			t.Errorf("%s.%s: parameter %q but JSON name %q", in, f.Name, p, json)
		}
	}
}

func TestLookupPanicsOnAStaleBinding(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	Lookup[struct{}, int]("Providers")
}

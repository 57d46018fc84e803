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
		params, body := fields(t, in)
		for _, m := range routeParam.FindAllStringSubmatch(path, -1) {
			if !slices.Contains(params["path"], m[1]) {
				t.Errorf("%s: no field of %s is tagged path:%q", name, in, m[1])
			}
		}
		if body && (method == http.MethodGet || method == http.MethodDelete) {
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

// fields lists t's path and query parameters by tag and tells whether any
// field is left for a JSON body; a parameter must be a string or an int.
func fields(t *testing.T, in reflect.Type) (params map[string][]string, body bool) {
	params = map[string][]string{}
	for i := range in.NumField() {
		f := in.Field(i)
		found := false
		for _, tag := range []string{"path", "query"} {
			if v := f.Tag.Get(tag); v != "" {
				params[tag] = append(params[tag], v)
				found = true
				if k := f.Type.Kind(); k != reflect.String && k != reflect.Int {
					t.Errorf("%s.%s: a parameter is a string or an int, not %s", in, f.Name, k)
				}
			}
		}
		body = body || !found
	}
	return params, body
}

func TestLookupPanicsOnAStaleBinding(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	Lookup[struct{}, int]("Providers")
}

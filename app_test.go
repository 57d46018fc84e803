//go:build desktop || dev || bindings

package main

import (
	"reflect"
	"testing"

	"github.com/loopforge/loopforge/backend/api"
	"github.com/loopforge/loopforge/backend/wire"
)

// TestAppBindsEveryOperation: each operation of api.Ops is a method of App
// with the same input and output types (no parameter for wire.None), and
// every other exported method is a desktop special that api.Specials lists.
func TestAppBindsEveryOperation(t *testing.T) {
	app := reflect.TypeFor[*App]()
	errType := reflect.TypeFor[error]()
	bound := map[string]bool{}
	for _, op := range api.Ops {
		bound[op.Name()] = true
		m, ok := app.MethodByName(op.Name())
		if !ok {
			t.Errorf("App has no method %s; run go generate", op.Name())
			continue
		}
		var in []reflect.Type
		if op.In() != reflect.TypeFor[wire.None]() {
			in = []reflect.Type{op.In()}
		}
		want := reflect.FuncOf(append([]reflect.Type{app}, in...), []reflect.Type{op.Out(), errType}, false)
		if m.Type != want {
			t.Errorf("App.%s is %s, want %s", op.Name(), m.Type, want)
		}
	}
	for _, s := range api.Specials {
		if s.Face == api.Desktop {
			bound[s.Name] = true
		}
	}
	for i := range app.NumMethod() {
		if name := app.Method(i).Name; !bound[name] {
			t.Errorf("App.%s is bound to the frontend but is neither in api.Ops nor a desktop special of api.Specials", name)
		}
	}
}

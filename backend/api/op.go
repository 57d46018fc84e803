// Package api is the one list of what the frontend can ask loopforge to do:
// Ops in ops.go. Each operation has a name (the desktop binding's method),
// an HTTP route (the web API of `loopforge serve`), an input and an output
// type from backend/wire, and the service call that serves it.
//
// Both faces are built from that list: backend/server registers one route
// per operation with a single generic handler, and `go generate` writes the
// desktop facade's methods (app_ops.go in package main) and the frontend's
// TypeScript types (frontend/src/api/gen). Adding an operation is a service
// method, one entry in Ops, and the UI code that uses it.
package api

import (
	"context"
	"fmt"
	"reflect"
	"slices"

	"github.com/loopforge/loopforge/backend/service"
	"github.com/loopforge/loopforge/backend/wire"
)

// Operation is an entry of Ops with its types erased, for the code that
// handles every operation alike (the HTTP router, the generator, tests).
type Operation interface {
	Name() string
	// Route is the HTTP method and path, as an http.ServeMux pattern; a
	// {name} segment fills the input field tagged path:"name".
	Route() string
	// Status is the HTTP status of a success.
	Status() int
	// Roles are the callers allowed: the instructor always, students only
	// where the entry says so (forStudents).
	Roles() []wire.Role
	In() reflect.Type
	Out() reflect.Type
	// Invoke lets decode fill a new input, then serves it.
	Invoke(ctx context.Context, s *service.Service, decode func(in any) error) (any, error)
}

// Op is one operation with its input and output types.
type Op[In, Out any] struct {
	name, route string
	status      int
	students    bool
	call        func(context.Context, *service.Service, In) (Out, error)
}

func op[In, Out any](name, route string, status int, call func(context.Context, *service.Service, In) (Out, error)) *Op[In, Out] {
	return &Op[In, Out]{name: name, route: route, status: status, call: call}
}

func (o *Op[In, Out]) Name() string  { return o.name }
func (o *Op[In, Out]) Route() string { return o.route }
func (o *Op[In, Out]) Status() int   { return o.status }

func (o *Op[In, Out]) In() reflect.Type  { return reflect.TypeFor[In]() }
func (o *Op[In, Out]) Out() reflect.Type { return reflect.TypeFor[Out]() }

// Roles implements Operation.
func (o *Op[In, Out]) Roles() []wire.Role {
	if o.students {
		return []wire.Role{wire.RoleInstructor, wire.RoleStudent}
	}
	return []wire.Role{wire.RoleInstructor}
}

// forStudents lets students call o too (the service then scopes what they
// see to their own).
func (o *Op[In, Out]) forStudents() *Op[In, Out] {
	o.students = true
	return o
}

// Allows reports whether op may be called by role.
func Allows(op Operation, role wire.Role) bool { return slices.Contains(op.Roles(), role) }

// Call serves one request.
func (o *Op[In, Out]) Call(ctx context.Context, s *service.Service, in In) (Out, error) {
	return o.call(ctx, s, in)
}

// Invoke implements Operation.
func (o *Op[In, Out]) Invoke(ctx context.Context, s *service.Service, decode func(any) error) (any, error) {
	var in In
	if err := decode(&in); err != nil {
		return nil, err
	}
	return o.call(ctx, s, in)
}

// Lookup returns the operation called name. It panics when there is none
// with these types: the generated desktop bindings call it once at start-up,
// so a stale app_ops.go fails at once (and its test fails before that).
func Lookup[In, Out any](name string) *Op[In, Out] {
	for _, o := range Ops {
		if o.Name() != name {
			continue
		}
		if typed, ok := o.(*Op[In, Out]); ok {
			return typed
		}
		panic(fmt.Sprintf("api: operation %s is %s → %s, not %s → %s; run go generate",
			name, o.In(), o.Out(), reflect.TypeFor[In](), reflect.TypeFor[Out]()))
	}
	panic(fmt.Sprintf("api: no operation %s; run go generate", name))
}

// Fields sorts the fields of an input type by how they travel over HTTP:
// a field tagged path:"name" fills the route's {name}, one tagged
// query:"name" the query parameter, and the others form a JSON body.
type Fields struct {
	Path, Query []string // parameter names, in field order
	Body        bool     // some field is neither
}

// FieldsOf sorts the fields of in, a struct.
func FieldsOf(in reflect.Type) Fields {
	var f Fields
	for i := range in.NumField() {
		tag := in.Field(i).Tag
		switch {
		case tag.Get("path") != "":
			f.Path = append(f.Path, tag.Get("path"))
		case tag.Get("query") != "":
			f.Query = append(f.Query, tag.Get("query"))
		default:
			f.Body = true
		}
	}
	return f
}

// Face says where a special case exists.
type Face string

const (
	Web     Face = "web"
	Desktop Face = "desktop"
)

// Special is something a face offers that is not an Operation, wired by
// hand in that face. Route is its HTTP route on the web (none on the
// desktop, where Name is the App method or the runtime event).
type Special struct {
	Name  string
	Face  Face
	Route string
	Why   string
}

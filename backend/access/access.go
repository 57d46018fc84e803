// Package access says who is calling: the instructor (the server's token,
// the desktop window, the CLI) or a student of a class (its cookie). The
// web server puts the Caller in each request's context; the service reads it
// to scope what a student may see and do. A context without one is the
// instructor's: every face but the classroom's web students.
package access

import "context"

// Role is who a caller is.
type Role string

const (
	Instructor Role = "instructor"
	Student    Role = "student"
)

// Caller is one request's caller. StudentID and ClassID are a student's.
type Caller struct {
	Role      Role
	StudentID string
	ClassID   string
}

// IsStudent reports whether c is a student.
func (c Caller) IsStudent() bool { return c.Role == Student }

type key struct{}

// With returns ctx carrying c.
func With(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, key{}, c)
}

// From returns ctx's caller: the instructor when none was set.
func From(ctx context.Context) Caller {
	if c, ok := ctx.Value(key{}).(Caller); ok {
		return c
	}
	return Caller{Role: Instructor}
}

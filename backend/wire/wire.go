// Package wire holds the shapes that cross the edge of loopforge: the
// requests and responses of the web API (backend/server), the arguments and
// results of the desktop bindings (app_ops.go, generated), and the types the
// frontend sees. backend/api/ops.go lists the operations that use them.
//
// Every type here is built from a domain type by an explicit function in
// convert.go, never by marshalling a service or store struct as it is, so
// a field added to the database or the service does not reach clients by
// accident. The frontend's TypeScript types (frontend/src/api/gen/wire.ts)
// are generated from this package by tygo (`go generate` at the repository
// root); a test fails when they are stale.
//
// Slices are never nil on the way out (an empty list is [], not null), so
// the generated `T[]` types tell the truth. A pointer field without
// omitempty is null when absent; its tstype tag says so to TypeScript.
package wire

// None is the input of an operation that takes nothing; the desktop binding
// of such an operation has no parameter.
type None struct{}

// OK answers an operation whose only news is that it worked.
type OK struct {
	OK bool `json:"ok"`
}

// SessionRef names one session (a path parameter on the web).
type SessionRef struct {
	ID string `json:"id" path:"id"`
}

// RunRef names one run (a path parameter on the web).
type RunRef struct {
	ID string `json:"id" path:"id"`
}

// SessionsQuery selects a page of the history. Limit outside 1..500 means
// the default page of 100.
type SessionsQuery struct {
	// Q keeps sessions whose title or prompt contains it, ignoring case.
	Q     string `json:"q" query:"q"`
	Limit int    `json:"limit" query:"limit"`
}

// Workdir is the working directory ("" = none chosen).
type Workdir struct {
	Path string `json:"path"`
}

// FolderQuery asks for the subfolders of Path ("" = the working directory,
// else the home directory).
type FolderQuery struct {
	Path string `json:"path" query:"path"`
}

// Folder is one subfolder in a FolderListing.
type Folder struct {
	Name string `json:"name"`
	Path string `json:"path"`
}

// FolderListing is what the web folder picker shows: a folder, its parent
// and its subfolders (hidden ones left out).
type FolderListing struct {
	// Path is the absolute path listed.
	Path string `json:"path"`
	// Parent is "" at the root.
	Parent  string   `json:"parent"`
	Folders []Folder `json:"folders"`
}

// Endpoint tells a desktop frontend where the event websocket is and which
// token it needs (the `token` query parameter).
type Endpoint struct {
	URL   string `json:"url"`
	Token string `json:"token"`
}

// Health is what GET /api/health answers, with or without a backend.
type Health struct {
	Status  string `json:"status"`
	Version string `json:"version"`
}

// ErrorBody is the body of every failed web request and what a desktop binding
// rejects with: the English text, and the stable code and parameters the
// frontend chooses its own words by (service.Code lists them). Code and
// Params are always present; Params is {} when the code has none.
type ErrorBody struct {
	Error  string            `json:"error"`
	Code   string            `json:"code"`
	Params map[string]string `json:"params"`
}

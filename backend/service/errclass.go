package service

import (
	"errors"

	"github.com/loopforge/loopforge/backend/config"
	"github.com/loopforge/loopforge/backend/export"
	"github.com/loopforge/loopforge/backend/loop"
	"github.com/loopforge/loopforge/backend/provider"
	"github.com/loopforge/loopforge/backend/store"
)

// Class is what kind of failure an error is. Classify is the one place that
// decides it; each face turns a class into its own code (the CLI an exit
// code, the server an HTTP status), so the two never disagree.
type Class int

const (
	// ClassInternal: anything not classified below (a bug, a full disk).
	ClassInternal Class = iota
	// ClassInvalid: the request, a flag or the configuration is wrong
	// (*config.Error, ErrInvalidRequest, an unknown provider name).
	ClassInvalid
	// ClassNotFound: no such session or run.
	ClassNotFound
	// ClassUnavailable: the thing exists but cannot give what was asked,
	// e.g. a script export of a run that produced no code.
	ClassUnavailable
	// ClassProviderSetup: the provider cannot be used as set up on this
	// machine (no API key, a variable the CLI needs not passed, coding CLI
	// not installed). Nothing was sent.
	ClassProviderSetup
	// ClassProvider: the provider refused or failed a call.
	ClassProvider
)

func (c Class) String() string {
	switch c {
	case ClassInvalid:
		return "invalid"
	case ClassNotFound:
		return "not_found"
	case ClassUnavailable:
		return "unavailable"
	case ClassProviderSetup:
		return "provider_setup"
	case ClassProvider:
		return "provider"
	}
	return "internal"
}

// Classify sorts err by the typed errors and sentinels it wraps; never by
// its text. The order matters: a missing key is a *provider.Error too.
func Classify(err error) Class {
	switch {
	case err == nil:
		return ClassInternal
	case errors.Is(err, store.ErrNotFound), errors.Is(err, ErrRunNotFound), errors.Is(err, export.ErrRunNotFound):
		return ClassNotFound
	case isAs[*config.Error](err), errors.Is(err, ErrInvalidRequest), errors.Is(err, provider.ErrUnknownProvider),
		errors.Is(err, loop.ErrInvalidSettings):
		return ClassInvalid
	case errors.Is(err, export.ErrNoCode), errors.Is(err, export.ErrNotRunnable):
		return ClassUnavailable
	case errors.Is(err, provider.ErrMissingKey), errors.Is(err, provider.ErrMissingEnv), errors.Is(err, provider.ErrCLINotFound):
		return ClassProviderSetup
	case isAs[*provider.Error](err), isAs[*provider.ExecutionError](err), isAs[*provider.ParseError](err):
		return ClassProvider
	}
	return ClassInternal
}

func isAs[T error](err error) bool {
	_, ok := errors.AsType[T](err)
	return ok
}

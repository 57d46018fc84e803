//go:build bindings

package main

// wails generates the TypeScript bindings by building this package with the
// `bindings` tag and running it: only wails.Run's reflection over App is
// needed, with no display, no history and no service.
const bindingsBuild = true

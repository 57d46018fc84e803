//go:build !bindings

package main

const bindingsBuild = false

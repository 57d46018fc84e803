#!/bin/sh
# go generate (html.go): copies the chroma definitions the handouts use (four lexers, one style, and
# chroma's licence) from the chroma version go.mod names. highlight_test.go checks they still match.
set -e
d=$(go list -m -f '{{.Dir}}' github.com/alecthomas/chroma/v2)
cd "$(dirname "$0")"
for f in python bash javascript diff; do cp "$d/lexers/embedded/$f.xml" .; done
cp "$d/styles/github.xml" "$d/COPYING" .
chmod 644 ./*.xml COPYING

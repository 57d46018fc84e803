package store

import (
	"crypto/rand"
	"encoding/binary"
	"time"
)

// idAlphabet is Crockford's base32 in lower case: no i, l, o, u, so an id read
// aloud or copied by hand is hard to get wrong, and its ASCII order is its
// numeric order.
const idAlphabet = "0123456789abcdefghjkmnpqrstvwxyz"

// newID returns a 20-character id: 10 characters of Unix milliseconds (50
// bits, ample for millennia) then 10 characters (50 bits) of crypto randomness.
// Ids sort by creation time, which keeps them readable in listings and makes
// inserts into the primary-key index mostly append at the end. 50 random bits
// make a collision within one millisecond negligible for a local history; a
// collision would surface as a primary-key error, never as overwritten data.
func newID() string {
	return newIDAt(time.Now())
}

func newIDAt(t time.Time) string {
	var b [20]byte
	ms := uint64(t.UnixMilli())
	for i := 9; i >= 0; i-- {
		b[i] = idAlphabet[ms&31]
		ms >>= 5
	}
	var r [8]byte
	_, _ = rand.Read(r[:]) // never fails (crypto/rand documents this since Go 1.24)
	x := binary.BigEndian.Uint64(r[:])
	for i := 19; i >= 10; i-- {
		b[i] = idAlphabet[x&31]
		x >>= 5
	}
	return string(b[:])
}

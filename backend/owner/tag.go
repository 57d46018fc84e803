package owner

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"regexp"
	"strings"
)

// idShape is what New makes: the pid, then 12 random bytes in hex.
var idShape = regexp.MustCompile(`^[0-9]+-[0-9a-f]{24}$`)

// Tag names the claim outside its directory, e.g. in the names of the
// temp dirs its process makes in a $TMPDIR that processes with other data
// directories share: the id after a digest of the owners directory. An id
// alone would not do: in another owners directory its lock file is
// missing, which Alive reports as gone.
func (c *Claim) Tag() string { return dirDigest(filepath.Dir(c.path)) + "-" + c.id }

// TagAlive reports whether tag is a Tag of a claim in dir (ours) and, when
// it is, whether its owner is alive. A tag of another owners directory, or
// not made by Tag, is not ours: its owner cannot be known from here.
func TagAlive(dir, tag string) (ours, alive bool, err error) {
	digest, id, ok := strings.Cut(tag, "-")
	if !ok || digest != dirDigest(dir) || !idShape.MatchString(id) {
		return false, false, nil
	}
	alive, err = Alive(dir, id)
	return true, alive, err
}

// dirDigest is short (8 hex digits): it only tells apart the few data
// directories one user has.
func dirDigest(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	sum := sha256.Sum256([]byte(filepath.Clean(dir)))
	return hex.EncodeToString(sum[:4])
}

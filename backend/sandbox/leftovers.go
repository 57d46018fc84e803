package sandbox

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// The prefixes of the directories a Runner makes in its temp root: a run's
// work dir, the figure hook's dir, a warm run's program dir.
const (
	kindRun  = "loopforge-run-"
	kindHook = "loopforge-pyhook-"
	kindProg = "loopforge-prog-"
	// kindZygote is a zygote's runs root (zygote_linux.go).
	kindZygote = "loopforge-zygote-"
)

// ownerShape is what Options.Owner may hold: a name part, nothing that
// reaches out of it.
var ownerShape = regexp.MustCompile(`^[A-Za-z0-9-]*$`)

func checkOwner(owner string) error {
	if !ownerShape.MatchString(owner) || strings.HasPrefix(owner, "-") || strings.HasSuffix(owner, "-") {
		return fmt.Errorf("sandbox: owner %q: want letters, digits and inner dashes only", owner)
	}
	return nil
}

// tempPattern is os.MkdirTemp's pattern for a dir of the kind tagged with
// owner: os.MkdirTemp adds "<random digits>" after it.
func tempPattern(kind, owner string) string {
	if owner == "" {
		return kind
	}
	return kind + owner + "-"
}

// leftoverOwner is the owner tag in the name of a dir a Runner made, "" when
// the name is not one (or carries no tag: made before tags existed, or by a
// Runner given none).
func leftoverOwner(name string) string {
	for _, kind := range []string{kindRun, kindHook, kindProg, kindZygote} {
		rest, ok := strings.CutPrefix(name, kind)
		if !ok {
			continue
		}
		i := strings.LastIndexByte(rest, '-')
		random := rest[i+1:]
		if i <= 0 || random == "" || strings.Trim(random, "0123456789") != "" || checkOwner(rest[:i]) != nil {
			return ""
		}
		return rest[:i]
	}
	return ""
}

// RemoveLeftovers removes from root ("" = os.TempDir()) the directories
// that Runners left behind when their process was killed (SIGKILL, a
// crash: nothing runs to remove them). dead says whether the process of an
// owner tag (Options.Owner) is gone; only tagged directories, owned by this
// user, whose owner dead confirms gone are removed: a live process's, an
// untagged one or one dead cannot answer for stays. It returns how many
// it removed.
func RemoveLeftovers(root string, dead func(owner string) (bool, error)) (int, error) {
	if root == "" {
		root = os.TempDir()
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return 0, fmt.Errorf("sandbox: reading the temp root: %w", err)
	}
	verdict := map[string]bool{} // owner -> dead, asked once per owner
	n := 0
	for _, e := range entries {
		owner := leftoverOwner(e.Name())
		if owner == "" || !e.IsDir() { // IsDir: a symlink is not followed
			continue
		}
		gone, asked := verdict[owner]
		if !asked {
			if gone, err = dead(owner); err != nil {
				gone = false // unknown: leave its dirs
				slog.Warn("sandbox: checking a temp dir's owner", "owner", owner, "err", err)
			}
			verdict[owner] = gone
		}
		path := filepath.Join(root, e.Name())
		if !gone || !ownedByMe(path) {
			continue
		}
		removeWorkdir(path)
		n++
	}
	return n, nil
}

package cliproc

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"unsafe"

	"golang.org/x/sys/windows"
)

// dieWithParent: nothing to add on Windows, where procgroup runs the
// command in a job object that dies with loopforge's handle on it.
func dieWithParent(*exec.Cmd) {}

// npmBin is where `npm install -g` puts name under prefix: the prefix
// itself on Windows, as name.cmd (or another PATHEXT extension).
func npmBin(prefix, name string) string {
	p, err := exec.LookPath(filepath.Join(prefix, name))
	if err != nil {
		return filepath.Join(prefix, name+".cmd")
	}
	return p
}

// runnable reports why the regular file at path would not run, or nil:
// Windows runs by extension (PATHEXT), not mode bits.
func runnable(path string, _ fs.FileInfo) error {
	ext := strings.ToUpper(filepath.Ext(path))
	pathext := os.Getenv("PATHEXT")
	if pathext == "" {
		pathext = ".COM;.EXE;.BAT;.CMD"
	}
	for _, e := range strings.Split(strings.ToUpper(pathext), ";") {
		if e != "" && e == ext {
			return nil
		}
	}
	return fmt.Errorf("%s is not a program (its extension is none of %s)", path, pathext)
}

// ownedByUser reports whether the directory p is owned by this user: its
// owner is the token's user, or the owner the token gives what it creates
// (the Administrators group for an elevated administrator).
func ownedByUser(p string, _ fs.FileInfo) bool {
	sd, err := windows.GetNamedSecurityInfo(p, windows.SE_FILE_OBJECT, windows.OWNER_SECURITY_INFORMATION)
	if err != nil {
		return false
	}
	owner, _, err := sd.Owner()
	if err != nil || owner == nil {
		return false
	}
	tok := windows.GetCurrentProcessToken()
	if u, err := tok.GetTokenUser(); err == nil && owner.Equals(u.User.Sid) {
		return true
	}
	def := tokenOwner(tok)
	return def != nil && owner.Equals(def)
}

// tokenOwner is the token's default owner of new objects (TOKEN_OWNER),
// which x/sys/windows has no getter for.
func tokenOwner(tok windows.Token) *windows.SID {
	n := uint32(64)
	for range 4 {
		b := make([]byte, n)
		err := windows.GetTokenInformation(tok, windows.TokenOwner, &b[0], n, &n)
		if err == nil {
			return (*struct{ Owner *windows.SID })(unsafe.Pointer(&b[0])).Owner
		}
		if err != windows.ERROR_INSUFFICIENT_BUFFER {
			return nil
		}
	}
	return nil
}

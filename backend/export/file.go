package export

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"
)

// untitled is SafeName's answer when nothing usable is left.
const untitled = "untitled"

// maxNameBytes bounds a file name (file systems allow 255 bytes; the rest is
// room for a temporary suffix and for tools that add their own).
const maxNameBytes = 120

// windowsReserved are device names Windows refuses as a file name, with or
// without an extension.
var windowsReserved = map[string]bool{
	"CON": true, "PRN": true, "AUX": true, "NUL": true, "CONIN$": true, "CONOUT$": true,
	"COM1": true, "COM2": true, "COM3": true, "COM4": true, "COM5": true, "COM6": true, "COM7": true, "COM8": true, "COM9": true,
	"COM¹": true, "COM²": true, "COM³": true,
	"LPT1": true, "LPT2": true, "LPT3": true, "LPT4": true, "LPT5": true, "LPT6": true, "LPT7": true, "LPT8": true, "LPT9": true,
	"LPT¹": true, "LPT²": true, "LPT³": true,
}

// SafeName turns s into a file name that is safe on Linux, macOS and
// Windows: never empty ("untitled"), no path separator, no "." or "..", no
// control or invisible formatting character (such as a right-to-left
// override), none of the characters Windows forbids (: * ? " < > |), no
// leading dot, dash or space (no hidden files, nothing read as an option), no
// trailing dot or space, no Windows device name (CON, NUL, COM1…), and at
// most 120 bytes, cut at a character boundary with the extension kept.
// Letters of every script are kept. SafeName(SafeName(s)) == SafeName(s).
func SafeName(s string) string {
	var sb strings.Builder
	replaced := false // the last rune written was a replacement
	space := false    // the last rune written was a space
	for _, r := range s {
		switch {
		case r == utf8.RuneError, r < 0x20, r == 0x7f, unicode.IsControl(r), unicode.Is(unicode.Cf, r),
			r == '\u2028', r == '\u2029', strings.ContainsRune(`/\:*?"<>|`, r):
			if !replaced {
				sb.WriteByte('_')
			}
			replaced, space = true, false
		case unicode.IsSpace(r):
			if !space {
				sb.WriteByte(' ')
			}
			replaced, space = false, true
		default:
			sb.WriteRune(r)
			replaced, space = false, false
		}
	}
	name := trimName(sb.String())
	if len(name) > maxNameBytes {
		ext := filepath.Ext(name)
		if len(ext) > 16 || ext == name {
			ext = ""
		}
		stem := trimName(truncateBytes(strings.TrimSuffix(name, ext), maxNameBytes-len(ext)))
		name = trimName(stem + ext)
	}
	stem, _, _ := strings.Cut(name, ".")
	if windowsReserved[strings.ToUpper(strings.TrimRight(stem, " "))] {
		name = "_" + name
	}
	if name == "" {
		return untitled
	}
	return name
}

func trimName(s string) string {
	s = strings.TrimLeft(s, ". -")
	return strings.TrimRight(s, ". ")
}

// ErrExists is wrapped by WriteFile when it will not replace a file.
var ErrExists = errors.New("already exists")

// WriteFile writes data to dest and returns the path written.
//
// dest is an existing directory (then the file is dest/name) or a file path
// (then exactly that path, in an existing directory; name is only checked).
// "" means the current directory; a dest ending in a separator must be an
// existing directory. name must be a SafeName (Render's names are).
//
// The write is atomic: a temporary file in the same directory, synced, then
// renamed into place, so a reader sees the old file or the whole new one.
// WriteFile never replaces a file it was not pointed at: writing into a
// directory fails with ErrExists when name is taken. Only a regular file at
// the exact path given is replaced. It never follows a symbolic link out of
// the destination: the target may not be a symlink, nothing it creates can
// land outside the directory (the writes go through an os.Root), and the
// directory itself may be a symlink only to a place inside its own parent
// (a link planted in a workdir by generated code cannot redirect an export).
func WriteFile(dest, name string, data []byte) (path string, err error) {
	if name == "" || name != SafeName(name) {
		return "", fmt.Errorf("export: unsafe file name %q (want %q)", name, SafeName(name))
	}
	if dest == "" {
		dest = "."
	}
	dir, file, exact, err := resolveDest(dest, name)
	if err != nil {
		return "", err
	}
	path = filepath.Join(dir, file)
	if err := checkDirLink(dir); err != nil {
		return "", err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return "", fmt.Errorf("export: open directory: %w", err)
	}
	defer root.Close()

	if err := checkTarget(root, file, path, exact); err != nil {
		return "", err
	}
	tmp, err := writeTemp(root, file, data)
	if err != nil {
		return "", fmt.Errorf("export: write %s: %w", path, err)
	}
	defer root.Remove(tmp) // a no-op once renamed; cleans up after a failure
	if exact {
		if err := root.Rename(tmp, file); err != nil {
			return "", fmt.Errorf("export: write %s: %w", path, err)
		}
		return path, nil
	}
	// A hard link fails when the name exists: no window in which another
	// file could appear and be replaced. Some file systems have no hard
	// links; there, check once more and rename.
	switch err := root.Link(tmp, file); {
	case err == nil:
		return path, nil
	case errors.Is(err, fs.ErrExist):
		return "", fmt.Errorf("export: %s %w; choose another name or give that file's path to replace it", path, ErrExists)
	}
	if err := checkTarget(root, file, path, false); err != nil {
		return "", err
	}
	if err := root.Rename(tmp, file); err != nil {
		return "", fmt.Errorf("export: write %s: %w", path, err)
	}
	return path, nil
}

// resolveDest splits dest into the directory to write in and the file name.
func resolveDest(dest, name string) (dir, file string, exact bool, err error) {
	fi, err := os.Stat(dest)
	switch {
	case err == nil && fi.IsDir():
		return filepath.Clean(dest), name, false, nil
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return "", "", false, fmt.Errorf("export: %w", err)
	case err != nil && (strings.HasSuffix(dest, "/") || strings.HasSuffix(dest, string(filepath.Separator))):
		return "", "", false, fmt.Errorf("export: directory %s does not exist", dest)
	}
	// A file path, existing or not (a dangling symlink is caught later).
	clean := filepath.Clean(dest)
	file = filepath.Base(clean)
	if file == "." || file == ".." || file == string(filepath.Separator) || file == filepath.VolumeName(clean)+string(filepath.Separator) {
		return "", "", false, fmt.Errorf("export: %s is not a file path", dest)
	}
	dir = filepath.Dir(clean)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "", "", false, fmt.Errorf("export: directory %s does not exist", dir)
	}
	return dir, file, true, nil
}

// checkDirLink refuses a directory that is a symbolic link to somewhere
// outside its own parent directory.
func checkDirLink(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if fi.Mode()&fs.ModeSymlink == 0 {
		return nil
	}
	target, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	parent, err := filepath.EvalSymlinks(filepath.Dir(dir))
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if rel, err := filepath.Rel(parent, target); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("export: %s is a symbolic link to %s, outside %s; give the real directory instead", dir, target, filepath.Dir(dir))
	}
	return nil
}

// checkTarget refuses a name that is a symlink, not a regular file, or (when
// not exact) taken at all.
func checkTarget(root *os.Root, file, path string, exact bool) error {
	fi, err := root.Lstat(file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("export: %w", err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("export: %s is a symbolic link; refusing to write through it", path)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("export: %s exists and is not a regular file", path)
	case !exact:
		return fmt.Errorf("export: %s %w; choose another name or give that file's path to replace it", path, ErrExists)
	}
	return nil
}

// writeTemp writes data to a new hidden file beside file and returns its name.
func writeTemp(root *os.Root, file string, data []byte) (string, error) {
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	tmp := "." + truncateBytes(file, 100) + ".tmp-" + hex.EncodeToString(rnd[:])
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = root.Remove(tmp)
		return "", err
	}
	return tmp, nil
}

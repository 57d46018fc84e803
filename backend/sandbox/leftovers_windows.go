package sandbox

import "os"

// ownedByMe: %TEMP% is the user's own on Windows (under the profile), so a
// directory there is the user's; it must still be a real directory, not a
// link or junction.
func ownedByMe(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.IsDir()
}

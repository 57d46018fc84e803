package testproc

import (
	"unsafe"

	"golang.org/x/sys/windows"
)

// Wine returns the version of Wine this Windows binary runs under, "" on
// Windows itself. Tests skip what Wine does not implement, and only there.
func Wine() string {
	ntdll := windows.NewLazySystemDLL("ntdll.dll")
	proc := ntdll.NewProc("wine_get_version")
	if proc.Find() != nil {
		return ""
	}
	r, _, _ := proc.Call()
	if r == 0 {
		return "unknown"
	}
	// r points to a static string inside ntdll, not to Go memory.
	return windows.BytePtrToString(*(**byte)(unsafe.Pointer(&r)))
}

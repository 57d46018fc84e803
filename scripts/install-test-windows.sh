#!/usr/bin/env bash
# scripts/install-test-windows.sh [SETUP.exe]: the Windows installer (default: the one in build/release),
# silently, in a fresh wine64 prefix (Windows 10 mode):
#   setup.exe /S  -> exit 0; C:\Program Files\loopforge holds loopforge-desktop.exe and loopforge.exe,
#                    byte-identical to the portable zip's; Start-menu shortcut; an uninstall entry with
#                    this version
#   uninstall.exe /S -> the files, shortcuts and entry are gone; a file of the user's in that folder and
#                    the history folder (%APPDATA%\loopforge) are left alone
# It does not start the binaries (scripts/wine-test.sh --installer does, with a stand-in for the
# bcryptprimitives.dll that wine 8 lacks). Needs wine64 (scripts/wine-test.sh installs it).
set -euo pipefail
[ $# -eq 0 ] || set -- "$(realpath "$1")"
cd "$(dirname "$0")/.."
t0=$SECONDS
fail() { echo "install-test-windows: FAIL: $*" >&2; exit 1; }
step() { echo; echo "=== $1 ($((SECONDS - t0))s)"; }
command -v wine >/dev/null || fail "wine is not installed (apt install wine64)"

setup=${1:-}
if [ -z "$setup" ]; then
  shopt -s nullglob; found=(build/release/loopforge_*_windows_amd64_setup.exe); shopt -u nullglob
  [ ${#found[@]} -eq 1 ] || fail "give the installer to test (build/release has ${#found[@]}; make release makes one)"
  setup=$(realpath "${found[0]}")
fi
zip=${setup%_setup.exe}.zip
name=$(basename "${setup%_setup.exe}")
version=${name#loopforge_}; version=${version%_windows_amd64}

work=$(mktemp -d "${TMPDIR:-/tmp}/loopforge-wine.XXXXXX")
export WINEPREFIX=$work/prefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=" # no Mono or Gecko prompts
cleanup() { wineserver -k 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
wine_() { timeout 300 wine "$@"; }

step "a fresh wine prefix in Windows 10 mode"
wine_ winecfg -v win10; wineserver -w
c=$WINEPREFIX/drive_c dir="$WINEPREFIX/drive_c/Program Files/loopforge"
menu="$c/ProgramData/Microsoft/Windows/Start Menu/Programs/loopforge.lnk"
key='HKLM\Software\Microsoft\Windows\CurrentVersion\Uninstall\loopforge'

step "$(basename "$setup") /S"
rc=0; wine_ "$setup" /S || rc=$?; wineserver -w
[ $rc -eq 0 ] || fail "the installer exited $rc"
ls -l "$dir"
unzip -q -d "$work/zip" "$zip"
for f in loopforge-desktop.exe loopforge.exe; do
  cmp "$dir/$f" "$work/zip/$name/$f" || fail "$f differs from the zip's"
done
echo "loopforge-desktop.exe and loopforge.exe are the zip's"
[ -f "$dir/uninstall.exe" ] || fail "no uninstall.exe"
[ -f "$menu" ] && echo "Start menu: ${menu#"$c/"}" || fail "no Start-menu shortcut"
entry=$(wine_ reg query "$key" 2>&1 | tr -d '\r'); echo "$entry"
grep -qE "DisplayVersion +REG_SZ +$(sed 's/[.+]/\\&/g' <<<"$version")\$" <<<"$entry" || fail "the uninstall entry does not say $version"
grep -q 'QuietUninstallString' <<<"$entry" || fail "no quiet uninstall string"

step "uninstall.exe /S"
appdata="$c/users/$(id -un)/AppData/Roaming/loopforge"   # wine names the profile after the Unix user
mkdir -p "$appdata" && echo history > "$appdata/history.db"
echo mine > "$dir/notes.txt"
rc=0; wine_ "$dir/uninstall.exe" /S || rc=$?; wineserver -w
[ $rc -eq 0 ] || fail "the uninstaller exited $rc"
for f in loopforge-desktop.exe loopforge.exe uninstall.exe; do [ ! -e "$dir/$f" ] || fail "$f is still there"; done
[ ! -e "$menu" ] || fail "the Start-menu shortcut is still there"
! wine_ reg query "$key" >/dev/null 2>&1 || fail "the uninstall entry is still there"
[ -f "$dir/notes.txt" ] || fail "the uninstaller removed a file it did not install"
[ -f "$appdata/history.db" ] || fail "the uninstaller removed the history"
echo "removed: the two programs, uninstall.exe, the shortcuts, the uninstall entry; kept: notes.txt, %APPDATA%\\loopforge"
echo; echo "install-test-windows: OK in $((SECONDS - t0))s"

#!/bin/sh
# A fake coding CLI for tests. Installed under the real CLI's name, it
# records how it was started and replays a captured stdout, misbehaving on
# request. Controlled by environment variables (passed as the profile's env):
#   FAKE_RECORD=prefix   write prefix.argv (NUL-separated), .env (as exec'd),
#                        .cwd, .stdin-src, .stdin, .pid, .name
#   FAKE_VERSION=text    what --version prints
#   FAKE_STDERR=text     printed to stderr first
#   FAKE_IGNORE_TERM=1   ignore SIGTERM (so do the children)
#   FAKE_CHILD=file      start a background `sleep` and write its pid to file
#   FAKE_ESCAPE=file     the same, in a new session (out of the group), holding stdout
#   FAKE_REPLAY=file     print file's lines
#   FAKE_NEED=NAME:file  when variable NAME is empty, print file's lines instead
#                        and exit 1 (a CLI missing a variable its config names)
#   FAKE_INSERT_AT=n, FAKE_INSERT=text   print text before line n
#   FAKE_DIE_AT=n        SIGKILL itself before line n
#   FAKE_HANG_AT=n       hang before line n
#   FAKE_TAIL=text       print text (no newline) after the replay
#   FAKE_HANG=1          hang after the replay
#   FAKE_DIE=1           SIGKILL itself after the replay
#   FAKE_EXIT=n          exit status (default 0)
if [ "$1" = "--version" ]; then
	printf '%s\n' "${FAKE_VERSION:-fake 0.0.0}"
	exit 0
fi
if [ -n "$FAKE_RECORD" ]; then
	: >"$FAKE_RECORD.argv"
	for a in "$@"; do printf '%s\0' "$a" >>"$FAKE_RECORD.argv"; done
	cat /proc/$$/environ >"$FAKE_RECORD.env"
	pwd -P >"$FAKE_RECORD.cwd"
	readlink /proc/$$/fd/0 >"$FAKE_RECORD.stdin-src"
	cat >"$FAKE_RECORD.stdin"
	echo $$ >"$FAKE_RECORD.pid"
	basename "$0" >"$FAKE_RECORD.name"
fi
[ -n "$FAKE_STDERR" ] && printf '%s\n' "$FAKE_STDERR" >&2
[ -n "$FAKE_IGNORE_TERM" ] && trap '' TERM
if [ -n "$FAKE_CHILD" ]; then
	sleep 1000 &
	echo $! >"$FAKE_CHILD"
fi
if [ -n "$FAKE_ESCAPE" ]; then
	setsid sleep 1000 &
	echo $! >"$FAKE_ESCAPE"
fi
if [ -n "$FAKE_NEED" ]; then
	eval "need=\${${FAKE_NEED%%:*}:-}"
	if [ -z "$need" ]; then
		cat "${FAKE_NEED#*:}"
		exit 1
	fi
fi
if [ -n "$FAKE_REPLAY" ]; then
	n=0
	while IFS= read -r line || [ -n "$line" ]; do
		n=$((n + 1))
		[ "$n" = "${FAKE_INSERT_AT:-0}" ] && printf '%s\n' "$FAKE_INSERT"
		[ "$n" = "${FAKE_DIE_AT:-0}" ] && kill -KILL $$
		[ "$n" = "${FAKE_HANG_AT:-0}" ] && sleep 1000
		printf '%s\n' "$line"
	done <"$FAKE_REPLAY"
fi
[ -n "$FAKE_TAIL" ] && printf '%s' "$FAKE_TAIL"
[ -n "$FAKE_HANG" ] && sleep 1000
[ -n "$FAKE_DIE" ] && kill -KILL $$
exit "${FAKE_EXIT:-0}"

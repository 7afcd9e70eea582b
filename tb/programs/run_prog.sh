#!/bin/sh
# run_prog.sh LIBDIR EXPECT STATUS PROG ARGS...
#
# Runs an unmodified program (Debian's binary, not rebuilt) with our
# libibverbs.so.1 from LIBDIR in front of the system's, and checks what it
# printed (stdout and stderr together). EXPECT is a file of extended regular
# expressions, one per line: each must match a line of the output; a line
# starting with '!' is one that must match no line; '#' starts a comment.
# STATUS is the exit status the program must end with.
set -u
lib=$1 expect=$2 status=$3
shift 3
out=$(mktemp)
trap 'rm -f "$out"' EXIT
LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$@" > "$out" 2>&1
rc=$?
echo "== $*: exit $rc"
cat "$out"
echo "=="
ok=1
if [ "$rc" -ne "$status" ]; then
	echo "exit status $rc, expected $status"
	ok=0
fi
# Our library must have served every call: a provider entry point it
# refuses announces itself on stderr.
if grep -q 'not supported by this libibverbs' "$out"; then
	echo "a provider-only entry point was called"
	ok=0
fi
while IFS= read -r re; do
	case $re in
	''|'#'*) continue ;;
	'!'*)
		if grep -Eq -- "${re#!}" "$out"; then
			echo "output has /${re#!}/"
			ok=0
		fi ;;
	*)
		if ! grep -Eq -- "$re" "$out"; then
			echo "output lacks /$re/"
			ok=0
		fi ;;
	esac
done < "$expect"
[ $ok -eq 1 ] && echo PASS || echo FAIL
[ $ok -eq 1 ]

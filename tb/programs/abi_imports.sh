#!/bin/sh
# abi_imports.sh LIB PKG...
#
# Every symbol with an IBVERBS_* version that an ELF file of the Debian
# packages PKG imports (programs, provider libraries, librdmacm, pyverbs
# extension modules: every file that links libibverbs.so.1) must be
# exported by LIB with that version, or the dynamic linker refuses to load
# the file ("version `IBVERBS_PRIVATE_34' not found"; with BIND_NOW every
# symbol must also resolve before main()).
set -u
lib=$1
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
objdump -T "$lib" | awk '$2 != "*UND*" && $3 != "*UND*" && $NF != "" { print $(NF-1), $NF }' |
	tr -d '()' | grep '^IBVERBS' | sort -u > "$tmp/exported"
: > "$tmp/files"
for pkg in "$@"; do
	dpkg -L "$pkg" 2>/dev/null | while IFS= read -r f; do
		[ -f "$f" ] && [ ! -L "$f" ] || continue
		objdump -p "$f" 2>/dev/null | grep -q 'NEEDED.*libibverbs\.so\.1' && echo "$f"
	done >> "$tmp/files"
done
nfiles=$(wc -l < "$tmp/files")
if [ "$nfiles" -eq 0 ]; then
	echo "no file of $* links libibverbs.so.1"
	exit 1
fi
: > "$tmp/imported"
while IFS= read -r f; do
	objdump -T "$f" | awk '$2 == "*UND*" || $3 == "*UND*" { print $(NF-1), $NF }' |
		tr -d '()' | grep '^IBVERBS' | sort -u > "$tmp/one"
	comm -23 "$tmp/one" "$tmp/exported" | sed "s|^|missing for $f: |"
	cat "$tmp/one" >> "$tmp/imported"
done < "$tmp/files" > "$tmp/missing"
sort -u "$tmp/imported" -o "$tmp/imported"
echo "$nfiles files link libibverbs.so.1; they import $(wc -l < "$tmp/imported") IBVERBS_* symbols; $(basename "$lib") exports $(wc -l < "$tmp/exported")"
awk '{ print $1 }' "$tmp/imported" | sort | uniq -c | sed 's/^/  imported /'
if [ -s "$tmp/missing" ]; then
	cat "$tmp/missing"
	echo FAIL
	exit 1
fi
echo PASS

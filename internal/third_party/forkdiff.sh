#!/bin/sh
# forkdiff.sh prints how the copies in this folder differ from the upstream
# releases they were taken from (`make forks` runs it). Each copy's README
# says why it is a copy and what each change is for; this shows the changes
# themselves, so a reviewer can check the list and a maintainer can carry
# them onto a newer release.
#
# For each copy: which files differ, which are ours alone (added wholesale,
# named but not shown) and which of upstream's the copy does not carry,
# then a unified diff of the files that differ, upstream first (its import
# paths written as the copy's, so that the diff shows what we changed).
#
# The pristine release comes from the Go module proxy through
# `go mod download` (GOPROXY, GOFLAGS and the module cache apply as for any
# build), so a machine with Go and a POSIX shell with diff needs nothing
# else. It runs in an empty folder, so this module's go.mod and go.sum are
# neither read nor written.
set -eu

GO=${GO:-go}
here=$(cd "$(dirname "$0")" && pwd)
module=$(sed -n 's/^module[[:space:]]*//p' "$here/../../go.mod")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

# fork DIR MODULE VERSION: the copy in ./DIR came from MODULE at VERSION.
fork() {
	name=$1 mod=$2 ver=$3
	ours=$here/$name
	if ! grep -q "$ver" "$ours/README.md"; then
		echo "forkdiff: $name/README.md does not name $ver: which release is the copy from?" >&2
		exit 1
	fi
	if ! json=$(cd "$tmp" && "$GO" mod download -json "$mod@$ver"); then
		echo "$json" >&2
		echo "forkdiff: could not download $mod@$ver" >&2
		exit 1
	fi
	up=$(printf '%s\n' "$json" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p')
	if [ -z "$up" ] || [ ! -d "$up" ]; then
		echo "forkdiff: no folder for $mod@$ver in: $json" >&2
		exit 1
	fi

	(cd "$up" && find . -type f | sed 's|^\./||' | LC_ALL=C sort) >"$tmp/up"
	(cd "$ours" && find . -type f | sed 's|^\./||' | LC_ALL=C sort) >"$tmp/ours"
	: >"$tmp/changed"
	: >"$tmp/same"
	LC_ALL=C comm -13 "$tmp/up" "$tmp/ours" >"$tmp/added"
	LC_ALL=C comm -23 "$tmp/up" "$tmp/ours" >"$tmp/dropped"
	# Upstream's files with its import paths turned into the copy's, as
	# the copy took them: a file that differs only there is as upstream's.
	mkdir -p "$tmp/a/$name"
	LC_ALL=C comm -12 "$tmp/up" "$tmp/ours" | while IFS= read -r f; do
		if [ "$f" = README.md ]; then
			echo "$f (in place of upstream's)" >>"$tmp/added"
			continue
		fi
		mkdir -p "$tmp/a/$name/$(dirname "$f")"
		sed "s|\"$mod/|\"$module/internal/third_party/$name/|g; s|\"$mod\"|\"$module/internal/third_party/$name\"|g" \
			"$up/$f" >"$tmp/a/$name/$f"
		if cmp -s "$tmp/a/$name/$f" "$ours/$f"; then
			echo "$f" >>"$tmp/same"
		else
			echo "$f" >>"$tmp/changed"
		fi
	done

	echo "== internal/third_party/$name: $mod $ver"
	echo "   pristine: $up"
	echo "   $(wc -l <"$tmp/same" | tr -d ' ') files as upstream has them, import paths aside"
	list "changed, diff below" "$tmp/changed"
	list "ours alone, not shown" "$tmp/added"
	list "upstream's, not carried" "$tmp/dropped"
	echo
	while IFS= read -r f; do
		# diff exits 1 when the files differ, which is every file here.
		diff -u -L "a/$name/$f" -L "b/$name/$f" "$tmp/a/$name/$f" "$ours/$f" || [ $? -eq 1 ]
	done <"$tmp/changed"
	echo
}

# list TITLE FILE: the lines of FILE under a title with their count.
list() {
	echo "   $1 ($(wc -l <"$2" | tr -d ' ')):"
	sed 's/^/     /' "$2"
}

fork gopher-lua github.com/yuin/gopher-lua v1.1.2
fork miniredis github.com/alicebob/miniredis/v2 v2.40.0

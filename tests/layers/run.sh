#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The layers of src/ run one way (issue 22 part 2): every #include "..." of
# every file under src/ is read, resolved against the file's own folder, and
# an include into another top folder of src/ must be an arrow the table below
# allows. The table itself must have no circle, and must name every folder of
# src/ (a new folder takes its place here first). The tool's build (the
# Makefile's TOOL_SRCS) takes no source from src/runtime/: code the runtime and
# the tool both use lives in a folder of its own.
#
#   runtime, ptrace -> common <- record -> format <- analysis <- output <- cli
#                                          symbols beside analysis
#
# Includes inside one folder (its subfolders too) are always allowed. No
# program is run: this reads the sources and the Makefile only. Prints ok/FAIL lines.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"
suite layers

# What each folder may include, besides itself. "include" is the public
# header (include/calltrace.h).
declare -A may=(
	[common]=""
	[util]=""
	[arch]="common"
	[format]="common util"
	[symbols]="common util format"
	[analysis]="common util format symbols"
	[output]="common util format symbols analysis"
	[ptrace]="common util arch symbols"
	[kernel]="common util arch format"
	[record]="common util arch format symbols ptrace kernel"
	[cli]="common util format symbols analysis output record ptrace kernel"
	[runtime]="common arch include"
	[plugin]="common symbols"
	[api]="include"
	[wrapper]=""
	[include]=""
)

# Arrows still waiting for a move, each "FILE HEADER" (FILE in src/, HEADER as
# resolved): none may be added, and each goes once its header has moved.
pending=(
)
# Sources under src/runtime/ the tool still compiles, for the same reason.
pending_tool_srcs=""

# includes ROOT: "FROM TO FILE:LINE HEADER" for every include that leaves its
# top folder, HEADER resolved to a path from ROOT.
includes() {
	(cd "$1" && grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' src \
		--include='*.c' --include='*.h' --include='*.S') |
		awk '{
		split($0, part, ":")
		file = part[1]
		inc = $0
		sub(/^[^"]*"/, "", inc)
		sub(/".*$/, "", inc)
		n = split(file, p, "/")
		depth = 0
		for (i = 1; i < n; i++)
			dir[++depth] = p[i]
		m = split(inc, q, "/")
		for (i = 1; i <= m; i++) {
			if (q[i] == "..")
				depth--
			else if (q[i] != "." && q[i] != "")
				dir[++depth] = q[i]
		}
		path = dir[1]
		for (i = 2; i <= depth; i++)
			path = path "/" dir[i]
		from = p[2]
		to = dir[1] == "src" ? dir[2] : dir[1]
		if (from != to)
			print from, to, file ":" part[2], path
	}'
}

# allowed FROM TO FILE HEADER: 0 if the table (or a pending move) allows it
allowed() {
	local a p
	for a in ${may[$1]-}; do
		[ "$a" = "$2" ] && return 0
	done
	for p in "${pending[@]}"; do
		[ "$p" = "$3 $4" ] && return 0
	done
	return 1
}

# ---- the table: every folder of src/ named, no circle ----
missing=
for d in "$ROOT"/src/*/; do
	d=$(basename "$d")
	[ -n "${may[$d]+x}" ] || missing="$missing $d"
done
if [ -n "$missing" ]; then
	bad table "folders of src/ with no place in tests/layers/run.sh's table:$missing"
else
	ok table
fi
# Remove folders whose every arrow points at a removed one; what stays is a circle.
declare -A gone=()
progress=1
while [ $progress = 1 ]; do
	progress=0
	for d in "${!may[@]}"; do
		[ -z "${gone[$d]-}" ] || continue
		left=0
		for a in ${may[$d]}; do
			[ -n "${gone[$a]-}" ] || left=1
		done
		[ $left = 1 ] || { gone[$d]=1 && progress=1; }
	done
done
circle=
for d in "${!may[@]}"; do
	[ -n "${gone[$d]-}" ] || circle="$circle $d"
done
if [ -n "$circle" ]; then
	bad acyclic "the table's arrows make a circle among:$circle"
else
	ok acyclic
fi

# ---- every include of src/, one check per folder ----
list=$(mktemp)
trap 'rm -rf "$list" "$list.d"' EXIT
includes "$ROOT" >"$list"
[ -s "$list" ] || bad includes "no include leaving its folder found under $ROOT/src: the scan is broken"
for d in "$ROOT"/src/*/; do
	d=$(basename "$d")
	wrong=
	while read -r from to where header; do
		[ "$from" = "$d" ] || continue
		allowed "$from" "$to" "${where%%:*}" "$header" && continue
		wrong="$wrong
$where includes $header ($from -> $to)"
	done <"$list"
	if [ -n "$wrong" ]; then
		printf '%s\n' "$wrong" | sed 1d >"$list.d"
		bad "$d" "includes that run the wrong way (allowed: ${may[$d]-none})" "$list.d"
	else
		ok "$d"
	fi
done
# A pending arrow that no longer exists must leave the list.
for p in "${pending[@]}"; do
	set -- $p
	if awk -v f="$1" -v h="$2" '{ split($3, w, ":") } w[1] == f && $4 == h { found = 1 }
		END { exit !found }' "$list"; then
		ok "pending/${1#src/}"
	else
		bad "pending/${1#src/}" "$1 no longer includes $2: remove it from pending in tests/layers/run.sh"
	fi
done

# ---- the scan catches a wrong arrow (a made-up tree) ----
fake=$(mktemp -d)
mkdir -p "$fake/src/symbols/sub" "$fake/src/analysis"
printf '#include "../../analysis/builder.h"\n' >"$fake/src/symbols/sub/x.c"
printf '#include "../format/reader.h"\n' >"$fake/src/analysis/y.c"
got=$(includes "$fake")
rm -rf "$fake"
if [ "$got" = "symbols analysis src/symbols/sub/x.c:1 src/analysis/builder.h
analysis format src/analysis/y.c:1 src/format/reader.h" ] &&
	! allowed symbols analysis src/symbols/sub/x.c src/analysis/builder.h &&
	allowed analysis format src/analysis/y.c src/format/reader.h; then
	ok catches
else
	printf '%s\n' "$got" >"$list.d"
	bad catches "the scan does not see a made-up symbols -> analysis include as wrong" "$list.d"
fi

# ---- the tool's sources: none from src/runtime/ ----
srcs=$(cd "$ROOT" && printf 'ct-print-tool-srcs:\n\t@echo $(TOOL_SRCS)\n' |
	timeout -k 5 60 make --no-print-directory -s -f Makefile -f - ct-print-tool-srcs 2>&1)
if [ -z "$srcs" ] || ! [[ " $srcs " == *" src/cli/"* ]]; then
	printf '%s\n' "$srcs" >"$list.d"
	bad tool-sources "could not read TOOL_SRCS from the Makefile" "$list.d"
else
	wrong=
	for s in $srcs; do
		case $s in
		src/runtime/*) [[ " $pending_tool_srcs " == *" $s "* ]] || wrong="$wrong $s" ;;
		esac
	done
	if [ -n "$wrong" ]; then
		bad tool-sources "the tool compiles runtime sources:$wrong (move what both use out of src/runtime)"
	else
		ok tool-sources
	fi
fi
finish

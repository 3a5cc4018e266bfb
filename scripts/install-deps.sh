#!/bin/sh
# Install what calltrace needs from Debian's packages, only if it is missing.
# Called by `make demo`, and by `make check` with --test (what the tests use as
# well: protoc to decode Perfetto traces, Chromium for the flame graph page).
# Safe to run again.
set -e

need=""
pkg-config --version >/dev/null 2>&1 || need="$need pkg-config"
command -v gcc >/dev/null 2>&1 || need="$need gcc"
command -v g++ >/dev/null 2>&1 || need="$need g++"
command -v make >/dev/null 2>&1 || need="$need make"
pkg-config --exists libdw 2>/dev/null || need="$need libdw-dev"
pkg-config --exists libelf 2>/dev/null || need="$need libelf-dev"
pkg-config --exists libzstd 2>/dev/null || need="$need libzstd-dev"
[ -f /usr/include/Zydis/Zydis.h ] || need="$need libzydis-dev"
command -v clang >/dev/null 2>&1 || need="$need clang"
command -v python3 >/dev/null 2>&1 || need="$need python3"
if [ "${1:-}" = --test ]; then
	command -v protoc >/dev/null 2>&1 || need="$need protobuf-compiler"
	command -v chromium >/dev/null 2>&1 || need="$need chromium"
	command -v zstd >/dev/null 2>&1 || need="$need zstd"
	# libFuzzer and the sanitizers' run-times of clang (tests/fuzz)
	[ -f "$(clang -print-runtime-dir 2>/dev/null)/libclang_rt.fuzzer-x86_64.a" ] ||
		need="$need libclang-rt-dev"
	command -v setcap >/dev/null 2>&1 || need="$need libcap2-bin" # tests/privilege
	command -v setpriv >/dev/null 2>&1 || need="$need util-linux"
	for t in autoconf automake cmake; do command -v $t >/dev/null 2>&1 || need="$need $t"; done
	command -v libtoolize >/dev/null 2>&1 || need="$need libtool" # tests/libtool
	command -v llvm-dwp >/dev/null 2>&1 || need="$need llvm" # DWARF packages (tests/protos)
	command -v man >/dev/null 2>&1 || need="$need man-db"    # man pages (tests/install)
fi

[ -z "$need" ] && exit 0

echo "calltrace: installing:$need" >&2
SUDO=""
if [ "$(id -u)" != 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		SUDO="sudo"
	else
		echo "calltrace: need root to install:$need (apt-get install$need)" >&2
		exit 1
	fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null 2>&1 || true
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $need >/dev/null

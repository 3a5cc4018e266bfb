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
# the instruction decoder for dynamic patching: Zydis on x86-64, Capstone on aarch64
if [ "$(uname -m)" = aarch64 ]; then
	[ -f /usr/include/capstone/capstone.h ] || need="$need libcapstone-dev"
else
	[ -f /usr/include/Zydis/Zydis.h ] || need="$need libzydis-dev"
fi
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

# --aarch64: the cross toolchain, qemu-user to run what it builds, and the arm64
# libraries the cross-built tool links (make ARCH=aarch64, make check ARCH=aarch64)
arm64_libs=""
if [ "${1:-}" = --aarch64 ] && [ "$(uname -m)" != aarch64 ]; then
	command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 || need="$need gcc-aarch64-linux-gnu"
	command -v aarch64-linux-gnu-g++ >/dev/null 2>&1 || need="$need g++-aarch64-linux-gnu"
	[ -d /usr/aarch64-linux-gnu/lib ] || need="$need libc6-dev-arm64-cross"
	command -v qemu-aarch64-static >/dev/null 2>&1 || need="$need qemu-user-static"
	command -v update-binfmts >/dev/null 2>&1 || need="$need binfmt-support"
	for p in libdw-dev libelf-dev libzstd-dev libcapstone-dev libstdc++6; do
		dpkg -s "$p:arm64" >/dev/null 2>&1 || arm64_libs="$arm64_libs $p:arm64"
	done
fi

if [ -z "$need" ] && [ -z "$arm64_libs" ]; then
	[ "${1:-}" = --aarch64 ] && exec "$(dirname "$0")/binfmt-aarch64.sh"
	exit 0
fi

echo "calltrace: installing:$need$arm64_libs" >&2
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
if [ -n "$arm64_libs" ] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
	$SUDO dpkg --add-architecture arm64
fi
$SUDO apt-get update -qq >/dev/null 2>&1 || true
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $need $arm64_libs >/dev/null
[ "${1:-}" = --aarch64 ] && exec "$(dirname "$0")/binfmt-aarch64.sh"
exit 0

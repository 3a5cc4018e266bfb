#!/bin/sh
# Let aarch64 executables run directly on an x86-64 host through qemu-user, exec
# included (the recorder execs the program; the program may exec others).
# Needs root once per boot; a no-op when it already works or on an aarch64 host.
set -e
[ "$(uname -m)" = aarch64 ] && exit 0
[ -r /proc/sys/fs/binfmt_misc/qemu-aarch64 ] &&
	grep -q '^enabled' /proc/sys/fs/binfmt_misc/qemu-aarch64 && exit 0
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
[ -e /proc/sys/fs/binfmt_misc/register ] ||
	$SUDO mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
$SUDO update-binfmts --enable qemu-aarch64
grep -q '^enabled' /proc/sys/fs/binfmt_misc/qemu-aarch64 || {
	echo "calltrace: could not enable qemu-aarch64 in binfmt_misc" >&2
	exit 1
}

/* SPDX-License-Identifier: MIT */
/*
 * A program that gains privileges when it starts (setuid, setgid, file
 * capabilities) cannot be traced by someone it would lift: the loader ignores
 * LD_PRELOAD in it (the kernel marks it AT_SECURE), and under ptrace the
 * kernel runs it without its privileges. Rather than run it untraced, or
 * changed, and blame something else afterwards, record says so before it
 * starts the program.
 */
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "cli.h"

/*
 * What the program gains, in words ("setuid root"), and what a copy lacks
 * ("the setuid bit"); 0 if it gains nothing from this user.
 */
static int ct_gains(const char *path, const struct stat *st, char *what, size_t len,
		    const char **bit)
{
	struct statvfs fs;
	if (statvfs(path, &fs) == 0 && (fs.f_flag & ST_NOSUID))
		return 0; /* the kernel ignores the bits there */
	if ((st->st_mode & S_ISUID) && st->st_uid != getuid()) {
		const struct passwd *pw = getpwuid(st->st_uid);
		if (pw)
			snprintf(what, len, "setuid %s", pw->pw_name);
		else
			snprintf(what, len, "setuid to user %u", (unsigned)st->st_uid);
		*bit = "the setuid bit";
		return 1;
	}
	/* setgid without group execute is a locking mode, not a privilege */
	if ((st->st_mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP) && st->st_gid != getgid()) {
		const struct group *gr = getgrgid(st->st_gid);
		if (gr)
			snprintf(what, len, "setgid %s", gr->gr_name);
		else
			snprintf(what, len, "setgid to group %u", (unsigned)st->st_gid);
		*bit = "the setgid bit";
		return 1;
	}
	/* file capabilities lift anyone but a real root */
	if (getuid() != 0 && getxattr(path, "security.capability", NULL, 0) > 0) {
		snprintf(what, len, "a program with file capabilities");
		*bit = "its capabilities";
		return 1;
	}
	return 0;
}

int ct_privilege_check(const char *cmd, const char *path, int ptrace)
{
	struct stat st;
	char what[300];
	const char *bit = "";

	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) ||
	    !ct_gains(path, &st, what, sizeof(what), &bit))
		return 0;
	if (ptrace) {
		if (geteuid() == 0)
			return 0; /* a tracer with CAP_SYS_PTRACE: the program keeps its privileges */
		ct_error("%s: %s is %s: under --method=ptrace the kernel would run it without its "
			 "privileges for an ordinary user; run calltrace as root, or trace a copy "
			 "without %s",
			 cmd, path, what, bit);
		return -1;
	}
	if (getuid() == 0)
		ct_error("%s: %s is %s: the loader will not preload the runtime into a program "
			 "that changes user or group; use --method=ptrace, or trace a copy without "
			 "%s",
			 cmd, path, what, bit);
	else
		ct_error("%s: %s is %s: the loader will not preload the runtime for an ordinary "
			 "user; run calltrace as root, or trace a copy without %s",
			 cmd, path, what, bit);
	return -1;
}

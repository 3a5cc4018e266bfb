/* SPDX-License-Identifier: MIT */
/*
 * Prototypes of common C library functions, for record -a --libcalls: the
 * C library comes without DWARF. Text as in src/common/proto.h; sorted by
 * name for a binary search.
 */
#include <stdlib.h>
#include <string.h>

#include "../runtime.h"
#include "args.h"

struct ct_builtin {
	const char *name;
	const char *proto;
};

/* clang-format off */
static const struct ct_builtin ct_builtins[] = {
	{ "abort", "|" },
	{ "access", "pathname:s@r0,mode:i4@r1|i4@r0" },
	{ "atof", "nptr:s@r0|f8@x0" },
	{ "atoi", "nptr:s@r0|i4@r0" },
	{ "atol", "nptr:s@r0|i8@r0" },
	{ "calloc", "nmemb:u8@r0,size:u8@r1|p@r0" },
	{ "chdir", "path:s@r0|i4@r0" },
	{ "close", "fd:i4@r0|i4@r0" },
	{ "dup", "oldfd:i4@r0|i4@r0" },
	{ "dup2", "oldfd:i4@r0,newfd:i4@r1|i4@r0" },
	{ "exit", "status:i4@r0|" },
	{ "fclose", "stream:p@r0|i4@r0" },
	{ "fdopen", "fd:i4@r0,mode:s@r1|p@r0" },
	{ "fflush", "stream:p@r0|i4@r0" },
	{ "fgetc", "stream:p@r0|i4@r0" },
	{ "fgets", "s:p@r0,size:i4@r1,stream:p@r2|p@r0" },
	{ "fopen", "pathname:s@r0,mode:s@r1|p@r0" },
	{ "fopen64", "pathname:s@r0,mode:s@r1|p@r0" },
	{ "fprintf", "stream:p@r0,format:s@r1,...|i4@r0" },
	{ "fputc", "c:c@r0,stream:p@r1|i4@r0" },
	{ "fputs", "s:s@r0,stream:p@r1|i4@r0" },
	{ "fread", "ptr:p@r0,size:u8@r1,nmemb:u8@r2,stream:p@r3|u8@r0" },
	{ "free", "ptr:p@r0|" },
	{ "fseek", "stream:p@r0,offset:i8@r1,whence:i4@r2|i4@r0" },
	{ "ftell", "stream:p@r0|i8@r0" },
	{ "fwrite", "ptr:p@r0,size:u8@r1,nmemb:u8@r2,stream:p@r3|u8@r0" },
	{ "getenv", "name:s@r0|s@r0" },
	{ "getpid", "|i4@r0" },
	{ "malloc", "size:u8@r0|p@r0" },
	{ "memchr", "s:p@r0,c:i4@r1,n:u8@r2|p@r0" },
	{ "memcmp", "s1:p@r0,s2:p@r1,n:u8@r2|i4@r0" },
	{ "memcpy", "dest:p@r0,src:p@r1,n:u8@r2|p@r0" },
	{ "memmove", "dest:p@r0,src:p@r1,n:u8@r2|p@r0" },
	{ "memset", "s:p@r0,c:i4@r1,n:u8@r2|p@r0" },
	{ "mkdir", "pathname:s@r0,mode:u4@r1|i4@r0" },
	{ "mmap", "addr:p@r0,length:u8@r1,prot:i4@r2,flags:i4@r3,fd:i4@r4,offset:i8@r5|p@r0" },
	{ "munmap", "addr:p@r0,length:u8@r1|i4@r0" },
	{ "open", "pathname:s@r0,flags:i4@r1,...|i4@r0" },
	{ "open64", "pathname:s@r0,flags:i4@r1,...|i4@r0" },
	{ "opendir", "name:s@r0|p@r0" },
	{ "perror", "s:s@r0|" },
	{ "posix_memalign", "memptr:p@r0,alignment:u8@r1,size:u8@r2|i4@r0" },
	{ "pow", "x:f8@x0,y:f8@x1|f8@x0" },
	{ "printf", "format:s@r0,...|i4@r0" },
	{ "pthread_create", "thread:p@r0,attr:p@r1,start_routine:p@r2,arg:p@r3|i4@r0" },
	{ "pthread_join", "thread:u8@r0,retval:p@r1|i4@r0" },
	{ "pthread_mutex_lock", "mutex:p@r0|i4@r0" },
	{ "pthread_mutex_unlock", "mutex:p@r0|i4@r0" },
	{ "putchar", "c:c@r0|i4@r0" },
	{ "puts", "s:s@r0|i4@r0" },
	{ "qsort", "base:p@r0,nmemb:u8@r1,size:u8@r2,compar:p@r3|" },
	{ "rand", "|i4@r0" },
	{ "read", "fd:i4@r0,buf:p@r1,count:u8@r2|i8@r0" },
	{ "realloc", "ptr:p@r0,size:u8@r1|p@r0" },
	{ "remove", "pathname:s@r0|i4@r0" },
	{ "rename", "oldpath:s@r0,newpath:s@r1|i4@r0" },
	{ "sleep", "seconds:u4@r0|u4@r0" },
	{ "snprintf", "str:p@r0,size:u8@r1,format:s@r2,...|i4@r0" },
	{ "sprintf", "str:p@r0,format:s@r1,...|i4@r0" },
	{ "sqrt", "x:f8@x0|f8@x0" },
	{ "srand", "seed:u4@r0|" },
	{ "sscanf", "str:s@r0,format:s@r1,...|i4@r0" },
	{ "stat", "pathname:s@r0,statbuf:p@r1|i4@r0" },
	{ "strcasecmp", "s1:s@r0,s2:s@r1|i4@r0" },
	{ "strcat", "dest:p@r0,src:s@r1|p@r0" },
	{ "strchr", "s:s@r0,c:c@r1|p@r0" },
	{ "strcmp", "s1:s@r0,s2:s@r1|i4@r0" },
	{ "strcpy", "dest:p@r0,src:s@r1|p@r0" },
	{ "strdup", "s:s@r0|p@r0" },
	{ "strerror", "errnum:i4@r0|s@r0" },
	{ "strlen", "s:s@r0|u8@r0" },
	{ "strncasecmp", "s1:s@r0,s2:s@r1,n:u8@r2|i4@r0" },
	{ "strncat", "dest:p@r0,src:s@r1,n:u8@r2|p@r0" },
	{ "strncmp", "s1:s@r0,s2:s@r1,n:u8@r2|i4@r0" },
	{ "strncpy", "dest:p@r0,src:s@r1,n:u8@r2|p@r0" },
	{ "strndup", "s:s@r0,n:u8@r1|p@r0" },
	{ "strrchr", "s:s@r0,c:c@r1|p@r0" },
	{ "strstr", "haystack:s@r0,needle:s@r1|p@r0" },
	{ "strtod", "nptr:s@r0,endptr:p@r1|f8@x0" },
	{ "strtol", "nptr:s@r0,endptr:p@r1,base:i4@r2|i8@r0" },
	{ "strtoul", "nptr:s@r0,endptr:p@r1,base:i4@r2|u8@r0" },
	{ "system", "command:s@r0|i4@r0" },
	{ "time", "tloc:p@r0|i8@r0" },
	{ "unlink", "pathname:s@r0|i4@r0" },
	{ "usleep", "usec:u4@r0|i4@r0" },
	{ "vfprintf", "stream:p@r0,format:s@r1,ap:p@r2|i4@r0" },
	{ "vprintf", "format:s@r0,ap:p@r1|i4@r0" },
	{ "vsnprintf", "str:p@r0,size:u8@r1,format:s@r2,ap:p@r3|i4@r0" },
	{ "write", "fd:i4@r0,buf:p@r1,count:u8@r2|i8@r0" },
};
/* clang-format on */

static int ct_builtin_cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct ct_builtin *)elem)->name);
}

const char *ct_builtin_proto(const char *raw)
{
	const struct ct_builtin *b = bsearch(raw, ct_builtins, CT_ARRAY_LEN(ct_builtins),
					     sizeof(*b), ct_builtin_cmp);
	return b ? b->proto : NULL;
}

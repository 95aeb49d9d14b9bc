// SPDX-License-Identifier: GPL-2.0-only
/*
 * N system calls that do nearly nothing (getppid), for the cost benchmark's
 * "syscall" case: what a daemon adds to every system call of every task
 * (a syscall tracepoint with a program attached sends all of them through
 * the slow entry and exit path), as CPU time per call.
 *
 * Usage: syscall_loop N   (prints N once done)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned long long n, i;
	char *end;

	if (argc != 2) {
		fprintf(stderr, "usage: %s CALLS\n", argv[0]);
		return 2;
	}
	errno = 0;
	n = strtoull(argv[1], &end, 10);
	if (errno || *end || !n || argv[1][0] == '-') {
		fprintf(stderr, "%s: CALLS must be a positive integer: '%s'\n",
			argv[0], argv[1]);
		return 2;
	}
	/* the raw call: libc may not enter the kernel for getppid() */
	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
	printf("%llu\n", n);
	return 0;
}

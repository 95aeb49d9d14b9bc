// SPDX-License-Identifier: GPL-2.0-only
/* bpftune(8): the daemon is in libbpftune (src/bpftune.c). */
#include <bpftune/daemon.h>

int main(int argc, char **argv)
{
	return bpftune_main(argc, argv);
}

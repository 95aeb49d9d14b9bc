// SPDX-License-Identifier: GPL-2.0-only
/*
 * rx_round CPU LONG_US: watch the NET_RX rounds of CPU (rx_round.bpf.c)
 * and print, whenever they change,
 *	rounds=N long_rounds=N max_round_us=N polls=N work=N
 * where long_rounds counts the rounds of at least LONG_US made of two or
 * more NAPI polls.  The first line, "watching cpu N", says it is attached.
 * Runs until SIGINT or SIGTERM.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/libbpf.h>
#include <linux/types.h>

#include "rx_round.h"
#include "rx_round.skel.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int parse_ulong(const char *s, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 10);
	return errno || end == s || *end ? -1 : 0;
}

static void watch(struct rx_round_bpf *skel)
{
	struct timespec tick = { .tv_nsec = 100 * 1000 * 1000 };
	struct rx_round_stats last = { 0 }, now;

	while (!stop) {
		now = skel->bss->stats;
		if (memcmp(&now, &last, sizeof(now))) {
			printf("rounds=%llu long_rounds=%llu max_round_us=%llu polls=%u work=%u\n",
			       (unsigned long long)now.rounds,
			       (unsigned long long)now.long_rounds,
			       (unsigned long long)now.max_ns / 1000,
			       now.max_polls, now.max_work);
			fflush(stdout);
			last = now;
		}
		nanosleep(&tick, NULL);
	}
}

int main(int argc, char **argv)
{
	struct rx_round_bpf *skel;
	unsigned long cpu, long_us;
	int err;

	if (argc != 3 || parse_ulong(argv[1], &cpu) || parse_ulong(argv[2], &long_us)) {
		fprintf(stderr, "usage: %s CPU LONG_US\n", argv[0]);
		return 2;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	skel = rx_round_bpf__open();
	if (!skel) {
		fprintf(stderr, "rx_round: cannot open the BPF object: %s\n", strerror(errno));
		return 1;
	}
	skel->rodata->cpu = cpu;
	skel->rodata->long_ns = (__u64)long_us * 1000;
	err = rx_round_bpf__load(skel);
	if (!err)
		err = rx_round_bpf__attach(skel);
	if (err) {
		fprintf(stderr, "rx_round: cannot load or attach: %s\n", strerror(-err));
		rx_round_bpf__destroy(skel);
		return 1;
	}
	printf("watching cpu %lu\n", cpu);
	fflush(stdout);
	watch(skel);
	rx_round_bpf__destroy(skel);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * What one function-call IPI costs the task it interrupts: without IRQ
 * time accounting the handler's time is charged to that task, so the
 * cost benchmark's interrupt counts turn into CPU time with this figure.
 *
 * A thread pinned to TARGET does a fixed amount of work and reads its own
 * CPU time; in every other repetition a thread pinned to SENDER calls
 * membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) in a loop meanwhile, one
 * IPI to each CPU running a thread of the process: the target's.  Per pair
 * of repetitions: (CPU with IPIs - CPU without) / calls.
 *
 * Usage: ipi_cost [PAIRS [TARGET SENDER]]   (default 10 pairs, CPUs 1 0)
 * Prints one line per pair: "pair N: quiet MS ms, with IPIs MS ms, CALLS
 * calls: US us per IPI".  The statistics over the pairs are the cost
 * report's (bench/cost_report.py, with bench/stats.py).
 */
#include <errno.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_PAIRS 100
#define WORK 400000000UL

static atomic_int running;
static int sender_cpu;
/* the fixed work's result: a global, so that no compiler drops the loop */
static volatile unsigned long sink;

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static double thread_cpu_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int membarrier(int cmd)
{
	return syscall(__NR_membarrier, cmd, 0, 0);
}

/* while the target works: IPIs to it; returns the calls made */
static void *sender(void *arg)
{
	long *calls = arg;

	if (pin(sender_cpu))
		return NULL;
	while (!atomic_load(&running))
		;
	while (atomic_load(&running)) {
		if (membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0)
			(*calls)++;
	}
	return NULL;
}

/* the target's fixed work, its CPU time in ms; with IPIs if calls */
static double one_rep(long *calls)
{
	pthread_t t;
	double a, b;
	unsigned long i;

	if (calls && pthread_create(&t, NULL, sender, calls))
		return -1;
	a = thread_cpu_ms();
	atomic_store(&running, 1);
	for (i = 0; i < WORK; i++)
		sink += i;
	b = thread_cpu_ms();
	atomic_store(&running, 0);
	if (calls)
		pthread_join(t, NULL);
	return b - a;
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < lo || v > hi)
		return -1;
	*out = (int)v;
	return 0;
}

int main(int argc, char **argv)
{
	int pairs = 10, target = 1, i;

	if (argc != 1 && argc != 2 && argc != 4) {
		fprintf(stderr, "usage: %s [PAIRS [TARGET_CPU SENDER_CPU]]\n", argv[0]);
		return 2;
	}
	sender_cpu = 0;
	if ((argc > 1 && parse_int(argv[1], 2, MAX_PAIRS, &pairs)) ||
	    (argc > 2 && (parse_int(argv[2], 0, CPU_SETSIZE - 1, &target) ||
			  parse_int(argv[3], 0, CPU_SETSIZE - 1, &sender_cpu) ||
			  target == sender_cpu))) {
		fprintf(stderr, "%s: PAIRS must be 2 - %d, the two CPUs distinct numbers\n",
			argv[0], MAX_PAIRS);
		return 2;
	}
	if (pin(target)) {
		fprintf(stderr, "%s: cannot run on CPU %d: %s\n", argv[0], target, strerror(errno));
		return 1;
	}
	if (membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED)) {
		fprintf(stderr, "%s: membarrier: %s\n", argv[0], strerror(errno));
		return 1;
	}
	for (i = 0; i < pairs; i++) {
		long calls = 0;
		double quiet = one_rep(NULL), busy = one_rep(&calls);

		if (quiet < 0 || busy < 0 || calls == 0) {
			fprintf(stderr, "%s: pair %d: no IPI sent (sender on CPU %d)\n",
				argv[0], i + 1, sender_cpu);
			return 1;
		}
		printf("pair %d: quiet %.1f ms, with IPIs %.1f ms, %ld calls: %.2f us per IPI\n",
		       i + 1, quiet, busy, calls, (busy - quiet) * 1e3 / calls);
	}
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Adaptive 1-in-N sampling for hot BPF hooks.
 *
 * The maths is kept in one place and free of kernel or libc types so the
 * BPF programs and the C unit tests use exactly the same code.
 *
 * Each hook owns a struct bpftune_sampler.  Calls are counted in windows of
 * BPFTUNE_SAMPLE_WINDOW_NS; at the end of a window N ("every") is set so
 * that the expected number of samples per second is about target_per_sec.
 * At a low call rate N is 1 and every call is seen.  A call that is not
 * processed costs two cheap helper calls and two compares (see
 * bpftune_sample() in bpftune.bpf.h): no atomic, no store, no clock read.
 */
#ifndef BPFTUNE_SAMPLING_H
#define BPFTUNE_SAMPLING_H

#define BPFTUNE_SAMPLE_WINDOW_NS	100000000ULL	/* 100 ms */
#define BPFTUNE_SAMPLE_TARGET_PER_SEC	200
#define BPFTUNE_SAMPLE_MAX_EVERY	65536

struct bpftune_sampler {
	__u64 calls;		/* calls to the hook: exact while N is 1, then
				 * estimated (each processed call counts N) */
	__u64 sampled;		/* calls that were processed */
	__u64 window_start_ns;
	__u64 window_calls;	/* (estimated) calls in the current window */
	__u64 tick;		/* clock tick (jiffies) of the last window check */
	__u32 every;		/* current N: process about one call in N */
	__u32 max_every;	/* largest N used so far (for the stats) */
	__u32 skip;		/* a call is processed if its random u32 >= skip */
	__u32 pad;
};

/*
 * N for the next window given the calls seen in the window that just ended.
 * Rounds up so the sample rate never exceeds the target, and moves at most a
 * factor of 4 down per window so a short lull does not flood the ring buffer
 * when the burst resumes.
 */
static inline __u32 bpftune_sampling_next_every(__u64 window_calls,
						__u64 window_ns,
						__u32 target_per_sec,
						__u32 cur_every)
{
	__u64 target, every, secs;

	if (!window_ns || !target_per_sec)
		return 1;
	/*
	 * Samples allowed in this window, at least one.  Whole seconds and the
	 * rest are scaled apart and the product saturates: the first window
	 * starts at boot, and target * ns wraps after 2.9 years at 200/s.
	 */
	target = (window_ns % 1000000000ULL) * target_per_sec / 1000000000ULL;
	secs = window_ns / 1000000000ULL;
	if (secs && target_per_sec > (~0ULL - target) / secs)
		target = ~0ULL;
	else
		target += secs * target_per_sec;
	if (!target)
		target = 1;
	every = window_calls / target + (window_calls % target != 0);
	if (every < 1)
		every = 1;
	if (cur_every > 4 && every < cur_every / 4)
		every = cur_every / 4;
	if (every > BPFTUNE_SAMPLE_MAX_EVERY)
		every = BPFTUNE_SAMPLE_MAX_EVERY;
	return (__u32)every;
}

/*
 * The random threshold for one call in @every: a call is processed when a
 * uniform random u32 is >= this, with probability (2^32 - skip) / 2^32,
 * 1/every rounded up.  Random rather than every N-th call: no counter
 * shared between CPUs is written on the path of the calls not processed.
 */
static inline __u32 bpftune_sampling_skip(__u32 every)
{
	if (every <= 1)
		return 0;
	return 0xffffffffU - 0xffffffffU / every;
}

/*
 * Called once per clock tick (the first call of a hook in a new jiffy, on
 * whichever CPU): close the window when it is over and pick N and the
 * threshold for the next one from the calls counted in it.
 */
static inline void bpftune_sampler_tick(struct bpftune_sampler *s, __u64 now)
{
	__u32 every;

	if (now - s->window_start_ns < BPFTUNE_SAMPLE_WINDOW_NS)
		return;
	every = bpftune_sampling_next_every(s->window_calls,
					    now - s->window_start_ns,
					    BPFTUNE_SAMPLE_TARGET_PER_SEC,
					    s->every);
	s->every = every;
	s->skip = bpftune_sampling_skip(every);
	if (every > s->max_every)
		s->max_every = every;
	s->window_start_ns = now;
	s->window_calls = 0;
}

#endif /* BPFTUNE_SAMPLING_H */

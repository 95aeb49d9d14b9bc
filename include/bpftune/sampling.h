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
 * At a low call rate N is 1 and every call is seen.
 */
#ifndef BPFTUNE_SAMPLING_H
#define BPFTUNE_SAMPLING_H

#define BPFTUNE_SAMPLE_WINDOW_NS	100000000ULL	/* 100 ms */
#define BPFTUNE_SAMPLE_TARGET_PER_SEC	200
#define BPFTUNE_SAMPLE_MAX_EVERY	65536

struct bpftune_sampler {
	__u64 calls;		/* every call to the hook */
	__u64 sampled;		/* calls that were processed */
	__u64 window_start_ns;
	__u64 window_calls;
	__u32 every;		/* current N: process one call in N */
	__u32 max_every;	/* largest N used so far (for the stats) */
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

/* Does call number @calls (1-based) get sampled when one in @every is? */
static inline int bpftune_sampling_hit(__u64 calls, __u32 every)
{
	if (every <= 1)
		return 1;
	return (calls % every) == 0;
}

/*
 * Account call number @calls (1-based) seen at @now: close the window when
 * it is over and pick N for the next one.  Returns 1 if this call is to be
 * processed.  Counting @calls and @sampled atomically is the caller's job
 * (bpftune_sample() in bpftune.bpf.h).
 */
static inline int bpftune_sampler_step(struct bpftune_sampler *s, __u64 now,
				       __u64 calls)
{
	if (now - s->window_start_ns >= BPFTUNE_SAMPLE_WINDOW_NS) {
		__u32 every = bpftune_sampling_next_every(s->window_calls,
							  now - s->window_start_ns,
							  BPFTUNE_SAMPLE_TARGET_PER_SEC,
							  s->every);

		s->every = every;
		if (every > s->max_every)
			s->max_every = every;
		s->window_start_ns = now;
		s->window_calls = 0;
	}
	s->window_calls++;
	return bpftune_sampling_hit(calls, s->every);
}

#endif /* BPFTUNE_SAMPLING_H */

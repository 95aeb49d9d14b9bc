// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tuner BPF objects: open the full or legacy image, enable per hook the
 * best program the kernel supports, write the bpftune_* globals, share
 * the one ring buffer, load, attach, and read the sampling counters back.
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include <bpftune/sampling.h>
#include "base/base.h"
#include "loader/loader.h"

#define RINGBUF_MAP	"bpftune_ringbuf"
#define GAUGES_MAP	"bpftune_gauges"
#define OPTIONAL_PREFIX	"opt_"

static int shared_ringbuf_fd = -1;

int bpftune_ringbuf_fd(void)
{
	return shared_ringbuf_fd;
}

/* the telemetry gauges map, shared the same way; -1 until one is loaded */
static _Atomic int shared_gauges_fd = -1;

int bpftune_gauges_fd(void)
{
	return shared_gauges_fd;
}

void bpftune_ringbuf_close(void)
{
	int fd = shared_gauges_fd;

	if (shared_ringbuf_fd >= 0)
		close(shared_ringbuf_fd);
	shared_ringbuf_fd = -1;
	shared_gauges_fd = -1;
	if (fd >= 0)
		close(fd);
}

int bpftune_bpf_open(const struct bpftune_bpf_image *image, const char *name,
		     bool legacy, void **skelp, struct bpf_object **objp,
		     char *why, size_t why_len)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts);
	const char *variant = legacy ? "legacy" : "full";
	const void *bytes;
	char btf_path[64];
	size_t size = 0;
	int btf_fd = -1, err;
	void *skel;

	*skelp = NULL;
	*objp = NULL;
	if (!image->open || !image->object || !image->load || !image->destroy ||
	    !image->configure || !image->read || !image->bytes) {
		snprintf(why, why_len, "no %s BPF skeleton", variant);
		return -ENOENT;
	}
	/* CO-RE against the types the object needs, not the whole kernel BTF */
	bytes = image->bytes(&size);
	err = bytes && size ? bpftune_bpf_min_btf(bytes, size, btf_path,
						  sizeof(btf_path), &btf_fd) : -ENOENT;
	if (!err) {
		opts.btf_custom_path = btf_path;
		bpftune_log(LOG_DEBUG, "%s: %s object relocated against a minimal BTF",
			    name, variant);
	} else if (err != -ENOENT)
		bpftune_log(LOG_DEBUG, "%s: no minimal BTF (%s): libbpf reads the kernel's",
			    name, strerror(-err));
	/* the skeleton's own object name: its global data maps are named after it */
	skel = image->open(&opts);
	if (!skel) {
		err = -errno;
		if (btf_fd >= 0)
			close(btf_fd);
		snprintf(why, why_len, "cannot open %s BPF object: %s", variant,
			 strerror(-err));
		return err ? err : -EINVAL;
	}
	*skelp = skel;
	*objp = image->object(skel);
	bpftune_bpf_min_btf_keep(*objp, btf_fd);
	return 0;
}

void bpftune_bpf_close(const struct bpftune_bpf_obj *o)
{
	if (o->skel)
		o->image->destroy(o->skel);
}

/*
 * Is [@start, @end) inside one private, read-only mapping of a file?
 * Only there does MADV_DONTNEED lose nothing: the pages come back from
 * the file when touched again.
 */
static bool in_readonly_file(uintptr_t start, uintptr_t end)
{
	unsigned long lo, hi, ino;
	char perms[5], line[512];
	FILE *f = fopen("/proc/self/maps", "re");
	bool ok = false;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %4s %*s %*s %lu", &lo, &hi, perms,
			   &ino) != 4)
			continue;
		if (start >= lo && end <= hi) {
			ok = ino && perms[1] == '-' && perms[3] == 'p';
			break;
		}
	}
	fclose(f);
	return ok;
}

/*
 * A plugin's ELF images (full and legacy: hundreds of kB of its .rodata
 * for the bigger tuners) are read at open and load, never after: libbpf
 * copies what it keeps.  Once loaded, the pages they were read into are
 * dropped from the daemon's page tables, so they stop counting in its
 * resident memory for as long as it runs; a later open (a restart of the
 * plugin) reads them from the file again.  Only whole pages inside the
 * image, and only if it lies in a read-only file mapping (a plugin's
 * .rodata, where BPFTUNE_SKEL_GLUE puts it): anywhere else, nothing.
 * MADV_DONTNEED rather than MADV_PAGEOUT: the latter cannot reclaim
 * tmpfs pages without swap (plugins copied to /run).
 */
static void image_release(const struct bpftune_bpf_image *image)
{
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t start, end;
	const void *bytes;
	size_t size = 0;

	if (!image->bytes || page <= 0)
		return;
	bytes = image->bytes(&size);
	if (!bytes || !size)
		return;
	start = ((uintptr_t)bytes + page - 1) & ~((uintptr_t)page - 1);
	end = ((uintptr_t)bytes + size) & ~((uintptr_t)page - 1);
	if (end > start && in_readonly_file(start, end))
		madvise((void *)start, end - start, MADV_DONTNEED);
}

void bpftune_bpf_images_release(const struct bpftune_tuner_ops *ops)
{
	image_release(&ops->full);
	image_release(&ops->legacy);
}

int bpftune_bpf_read_config(const struct bpftune_bpf_obj *o,
			    struct bpftune_bpf_config *c, uint64_t *lost)
{
	uint64_t dummy;

	memset(c, 0, sizeof(*c));
	if (!o->skel)
		return -ENOENT;
	o->image->read(o->skel, c, lost ? lost : &dummy);
	return 0;
}

bool bpftune_bpf_prefer_legacy(const struct bpftune_support *s)
{
	return !s->ok[BPFTUNE_FEAT_FENTRY] && s->ok[BPFTUNE_FEAT_RAW_TP];
}

/* The hook type a program needs; BPFTUNE_FEAT_MAX if it needs nothing special. */
static enum bpftune_feature prog_feature(const struct bpf_program *prog)
{
	switch (bpf_program__type(prog)) {
	case BPF_PROG_TYPE_TRACING:
		switch (bpf_program__expected_attach_type(prog)) {
		case BPF_TRACE_RAW_TP:
		case BPF_TRACE_ITER:
			return BPFTUNE_FEAT_TP_BTF;
		default:
			return BPFTUNE_FEAT_FENTRY;
		}
	case BPF_PROG_TYPE_LSM:
		return BPFTUNE_FEAT_FENTRY;
	case BPF_PROG_TYPE_KPROBE:
		return BPFTUNE_FEAT_KPROBE;
	case BPF_PROG_TYPE_RAW_TRACEPOINT:
		return BPFTUNE_FEAT_RAW_TP;
	case BPF_PROG_TYPE_TRACEPOINT:
		return BPFTUNE_FEAT_TRACEPOINT;
	case BPF_PROG_TYPE_CGROUP_SYSCTL:
		return BPFTUNE_FEAT_CGROUP_SYSCTL;
	case BPF_PROG_TYPE_SOCK_OPS:
		return BPFTUNE_FEAT_SOCKOPS;
	default:
		return BPFTUNE_FEAT_MAX;
	}
}

/*
 * A raw_tp program with no tracepoint in its section (SEC("raw_tp")) is
 * loaded but never attached: the daemon runs it when it chooses, in its
 * own thread's context (bpftune_bpf_prog_run()).  It is no hook.
 */
static bool run_only(const struct bpf_program *prog)
{
	const char *sec = bpf_program__section_name(prog);

	return bpf_program__type(prog) == BPF_PROG_TYPE_RAW_TRACEPOINT &&
	       sec && !strchr(sec, '/');
}

int bpftune_bpf_prog_run(const struct bpf_program *prog)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	int err;

	if (!run_only(prog) || bpf_program__fd(prog) < 0)
		return -EINVAL;
	/* no BPF_F_TEST_RUN_ON_CPU: it runs in the calling task (>= 5.10) */
	err = bpf_prog_test_run_opts(bpf_program__fd(prog), &opts);
	return err ? -errno : (int)opts.retval;
}

/* Preference among alternatives for one hook: lower is better. */
static int feature_rank(enum bpftune_feature f)
{
	switch (f) {
	case BPFTUNE_FEAT_FENTRY:
		return 0;
	case BPFTUNE_FEAT_TP_BTF:
		return 1;
	case BPFTUNE_FEAT_KPROBE:
		return 2;
	case BPFTUNE_FEAT_RAW_TP:
		return 3;
	case BPFTUNE_FEAT_TRACEPOINT:
		return 4;
	default:
		return 5;
	}
}

static bool feature_ok(const struct bpftune_support *s, enum bpftune_feature f)
{
	return f == BPFTUNE_FEAT_MAX || s->ok[f];
}

/* Length of the hook group name: the part before "__", or all of it. */
static size_t group_len(const char *name)
{
	const char *sep = strstr(name, "__");

	return sep ? (size_t)(sep - name) : strlen(name);
}

static bool same_group(const char *a, const char *b)
{
	size_t la = group_len(a);

	return la == group_len(b) && !strncmp(a, b, la);
}

/*
 * Does the running kernel have the tracepoint @prog attaches to?  One added
 * in a later kernel must make that program unavailable, not fail the whole
 * object's load.  Looked up in the kernel's BTF, then in tracefs for
 * tracepoints of modules; when neither can tell, the load decides.
 * Function hooks are left to the load (module functions are not in the
 * kernel's BTF).
 */
static bool target_exists(int in_btf, const struct bpf_program *prog)
{
	static const char *const events[] = {
		"/sys/kernel/tracing/events", "/sys/kernel/debug/tracing/events",
	};
	const char *sec = bpf_program__section_name(prog);
	const char *target = sec ? strchr(sec, '/') : NULL;
	enum bpftune_feature f = prog_feature(prog);
	bool checked = false;
	char name[160];
	unsigned int i;
	glob_t g;

	if (!target || (f != BPFTUNE_FEAT_TP_BTF && f != BPFTUNE_FEAT_RAW_TP))
		return true;
	target++;
	if (in_btf > 0)
		return true;
	for (i = 0; i < BPFTUNE_ARRAY_SIZE(events); i++) {
		if (access(events[i], X_OK))
			continue;
		checked = true;
		snprintf(name, sizeof(name), "%s/*/%s", events[i], target);
		if (!glob(name, GLOB_NOSORT, NULL, &g)) {
			globfree(&g);
			return true;
		}
		globfree(&g);
	}
	return in_btf < 0 && !checked;
}

/*
 * Per program: 1 if the kernel's BTF has its tracepoint, 0 if not, -1 if
 * that cannot be told (no BTF; not a tracepoint program).  One lookup for
 * the whole object.  NULL on allocation failure.
 */
static int *tracepoints_in_btf(struct bpf_object *obj)
{
	const char **tps;
	struct bpf_program *prog;
	unsigned int n = 0, i = 0;
	bool *exists;
	int *in_btf;

	bpf_object__for_each_program(prog, obj)
		n++;
	in_btf = calloc(n ? n : 1, sizeof(*in_btf));
	tps = calloc(n ? n : 1, sizeof(*tps));
	exists = calloc(n ? n : 1, sizeof(*exists));
	if (!in_btf || !tps || !exists) {
		free(tps);
		free(exists);
		free(in_btf);
		return NULL;
	}
	bpf_object__for_each_program(prog, obj) {
		const char *sec = bpf_program__section_name(prog);
		enum bpftune_feature f = prog_feature(prog);
		const char *target = sec ? strchr(sec, '/') : NULL;

		tps[i++] = (target && (f == BPFTUNE_FEAT_TP_BTF || f == BPFTUNE_FEAT_RAW_TP)) ?
			   target + 1 : "";
	}
	if (bpftune_kernel_tracepoints(tps, n, exists))
		for (i = 0; i < n; i++)
			in_btf[i] = -1;
	else
		for (i = 0; i < n; i++)
			in_btf[i] = tps[i][0] ? exists[i] : -1;
	free(tps);
	free(exists);
	return in_btf;
}

static int prog_index(struct bpf_object *obj, const struct bpf_program *prog)
{
	struct bpf_program *p;
	int i = 0;

	bpf_object__for_each_program(p, obj) {
		if (p == prog)
			return i;
		i++;
	}
	return -1;
}

static void log_choice(const struct bpf_program *prog)
{
	const char *name = bpf_program__name(prog);
	const char *type = bpftune_feature_name(prog_feature(prog));

	if (run_only(prog))
		bpftune_log(LOG_DEBUG, "program %s: %s, run by the daemon, never attached",
			    name, type);
	else
		bpftune_log(LOG_DEBUG, "hook %.*s: using %s program %s",
			    (int)group_len(name), name, type, name);
}

int bpftune_bpf_select_programs(struct bpf_object *obj,
				const struct bpftune_support *s, char *why,
				size_t why_len)
{
	struct bpf_program *prog, *other, *best;
	int *in_btf = tracepoints_in_btf(obj);
	int enabled = 0, programs = 0, err = 0;

	if (!in_btf) {
		snprintf(why, why_len, "out of memory");
		return -ENOMEM;
	}

	bpf_object__for_each_program(prog, obj) {
		bpf_program__set_autoload(prog, false);
		programs++;
	}

	bpf_object__for_each_program(prog, obj) {
		const char *name = bpf_program__name(prog);
		char needs[256] = "";
		bool first = true;

		/* handle each group once, at its first program */
		bpf_object__for_each_program(other, obj) {
			if (other == prog)
				break;
			if (same_group(bpf_program__name(other), name))
				first = false;
		}
		if (!first)
			continue;
		best = NULL;
		bpf_object__for_each_program(other, obj) {
			enum bpftune_feature f = prog_feature(other);

			if (!same_group(bpf_program__name(other), name))
				continue;
			if (feature_ok(s, f) &&
			    !target_exists(in_btf[prog_index(obj, other)], other)) {
				snprintf(needs + strlen(needs), sizeof(needs) - strlen(needs),
					 "%s%s (this kernel has no %s)", needs[0] ? " or " : "",
					 bpftune_feature_name(f),
					 bpf_program__section_name(other));
				continue;
			}
			if (feature_ok(s, f)) {
				if (!best || feature_rank(f) <
					     feature_rank(prog_feature(best)))
					best = other;
				continue;
			}
			snprintf(needs + strlen(needs), sizeof(needs) - strlen(needs),
				 "%s%s (%s)", needs[0] ? " or " : "",
				 bpftune_feature_name(f), s->why[f]);
		}
		if (best) {
			bpf_program__set_autoload(best, true);
			enabled++;
			log_choice(best);
			continue;
		}
		if (!strncmp(name, OPTIONAL_PREFIX, strlen(OPTIONAL_PREFIX))) {
			bpftune_log(LOG_INFO, "optional hook %.*s unavailable: needs %s",
				    (int)group_len(name), name, needs);
			continue;
		}
		snprintf(why, why_len, "hook %.*s needs %s", (int)group_len(name),
			 name, needs);
		err = -EOPNOTSUPP;
		break;
	}
	/* a plugin without programs (perf counters) needs no hook */
	if (!err && !enabled && programs) {
		snprintf(why, why_len, "no hook this kernel supports");
		err = -EOPNOTSUPP;
	}
	free(in_btf);
	return err;
}

static int share_ringbuf(struct bpf_object *obj)
{
	struct bpf_map *map = bpf_object__find_map_by_name(obj, RINGBUF_MAP);
	int err;

	if (!map)
		return -ENOENT;
	if (shared_ringbuf_fd < 0)
		return 0;
	err = bpf_map__reuse_fd(map, shared_ringbuf_fd);
	if (err)
		return err;
	/* objects built with older headers have no gauges: nothing to share */
	map = bpf_object__find_map_by_name(obj, GAUGES_MAP);
	if (!map || shared_gauges_fd < 0)
		return 0;
	return bpf_map__reuse_fd(map, shared_gauges_fd);
}

/* the ring buffer and gauges of the first object loaded, kept to share */
static int keep_shared(struct bpf_object *obj)
{
	struct bpf_map *map;

	if (shared_ringbuf_fd < 0) {
		shared_ringbuf_fd = dup(bpf_map__fd(
			bpf_object__find_map_by_name(obj, RINGBUF_MAP)));
		if (shared_ringbuf_fd < 0)
			return -errno;
	}
	if (shared_gauges_fd < 0) {
		map = bpf_object__find_map_by_name(obj, GAUGES_MAP);
		if (map && bpf_map__fd(map) >= 0)
			shared_gauges_fd = fcntl(bpf_map__fd(map), F_DUPFD_CLOEXEC, 0);
	}
	return 0;
}

static int load(const struct bpftune_bpf_obj *o,
		const struct bpftune_bpf_config *config)
{
	int err;

	/* typed, through the plugin's skeleton (its rodata) */
	o->image->configure(o->skel, config);
	err = share_ringbuf(o->obj);
	if (err) {
		bpftune_log(LOG_ERR, "tuner %s: cannot share the ring buffer: %s",
			    o->name, strerror(-err));
		return err;
	}
	/* the skeleton's load also maps its data sections */
	bpftune_cap_raise();
	err = o->image->load(o->skel);
	bpftune_cap_lower();
	bpftune_bpf_min_btf_done(o->obj);
	if (err) {
		bpftune_log(LOG_ERR, "tuner %s: BPF load failed: %s%s",
			    o->name, strerror(-err),
			    bpftune_log_debug_enabled() ? "" : " (-d shows the verifier log)");
		return err;
	}
	return keep_shared(o->obj);
}

int bpftune_bpf_load_attach(const struct bpftune_bpf_obj *o,
			    const struct bpftune_bpf_config *config,
			    int cgroup_fd, struct bpf_link ***linksp,
			    unsigned int *nump)
{
	struct bpf_program *prog;
	struct bpf_link **links;
	unsigned int n = 0;
	int err;

	*linksp = NULL;
	*nump = 0;
	err = load(o, config);
	if (err)
		return err;
	bpf_object__for_each_program(prog, o->obj)
		n += bpf_program__autoload(prog) && !run_only(prog);
	links = calloc(n ? n : 1, sizeof(*links));
	if (!links)
		return -ENOMEM;
	*linksp = links;
	bpftune_cap_raise();
	bpf_object__for_each_program(prog, o->obj) {
		enum bpftune_feature f = prog_feature(prog);
		struct bpf_link *link;

		if (!bpf_program__autoload(prog) || run_only(prog))
			continue;
		if (f == BPFTUNE_FEAT_CGROUP_SYSCTL || f == BPFTUNE_FEAT_SOCKOPS)
			link = bpf_program__attach_cgroup(prog, cgroup_fd);
		else
			link = bpf_program__attach(prog);
		if (!link) {
			err = -errno;
			bpftune_log(LOG_ERR, "tuner %s: cannot attach %s: %s",
				    o->name, bpf_program__name(prog),
				    strerror(errno));
			break;
		}
		links[(*nump)++] = link;
	}
	bpftune_cap_lower();
	if (err)
		bpftune_bpf_detach(linksp, nump);
	return err;
}

void bpftune_bpf_detach(struct bpf_link ***linksp, unsigned int *nump)
{
	bpftune_links_destroy(*linksp, *nump);
	free(*linksp);
	*linksp = NULL;
	*nump = 0;
}

static void print_sampler(const char *name, const char *type,
			  const void *data, size_t size, void *ctx)
{
	const struct bpftune_bpf_obj *o = ctx;
	struct bpftune_sampler smp;

	if (strcmp(type, "bpftune_sampler") || size != sizeof(smp))
		return;
	memcpy(&smp, data, sizeof(smp));
	bpftune_log(LOG_INFO, "sampling: tuner %s hook %s: %llu calls, %llu sampled, 1 in %u now, 1 in %u at most",
		    o->name, name, (unsigned long long)smp.calls,
		    (unsigned long long)smp.sampled,
		    smp.every ? smp.every : 1,
		    smp.max_every ? smp.max_every : 1);
}

/*
 * Print every bpftune_sampler of the object, and ring buffer losses.
 * Samplers are globals a plugin author names as they like, any number of
 * them: the library cannot know them through a typed skeleton, so
 * bpftune_bpf_vars() finds them by their BTF type.
 */
void bpftune_bpf_print_stats(const struct bpftune_bpf_obj *o)
{
	struct bpftune_bpf_config config;
	uint64_t lost = 0;

	if (!bpftune_bpf_read_config(o, &config, &lost) && lost)
		bpftune_log(LOG_WARNING, "tuner %s: %llu events lost (ring buffer full)",
			    o->name, (unsigned long long)lost);
	bpftune_bpf_vars(o->obj, ".bss", print_sampler, (void *)o);
}

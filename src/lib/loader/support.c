// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the running kernel lets us do.  Probed once at start-up by loading
 * and attaching one trivial program per hook type; the result decides,
 * per program, which alternative a tuner uses (bpf_load.c) and what
 * bpftune -S prints.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "base/base.h"
#include "btf/kbtf.h"
#include "loader/cgroup.h"
#include "loader/loader.h"
#include "support_probe.skel.h"

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif

static struct bpftune_support support;

/* Each hook type's name and the probe program that tests it, if any. */
static const struct {
	const char *name;
	const char *probe;
} features[BPFTUNE_FEAT_MAX] = {
	[BPFTUNE_FEAT_FENTRY] = { "fentry", "probe_fentry" },
	[BPFTUNE_FEAT_TP_BTF] = { "tp_btf", "probe_tp_btf" },
	[BPFTUNE_FEAT_KPROBE] = { "kprobe", "probe_kprobe" },
	[BPFTUNE_FEAT_RAW_TP] = { "raw_tp", "probe_raw_tp" },
	[BPFTUNE_FEAT_TRACEPOINT] = { "tracepoint", "probe_tracepoint" },
	[BPFTUNE_FEAT_CGROUP_SYSCTL] = { "cgroup/sysctl", "probe_cgroup_sysctl" },
	[BPFTUNE_FEAT_SOCKOPS] = { "sockops", "probe_sockops" },
	[BPFTUNE_FEAT_RINGBUF] = { "ringbuf", NULL },
	[BPFTUNE_FEAT_NETNS_COOKIE] = { "netns cookie", NULL },
};

const char *bpftune_feature_name(enum bpftune_feature f)
{
	return f < BPFTUNE_FEAT_MAX ? features[f].name : "?";
}

const char *bpftune_support_level_name(enum bpftune_support_level l)
{
	switch (l) {
	case BPFTUNE_SUPPORT_FULL:
		return "full";
	case BPFTUNE_SUPPORT_LEGACY:
		return "legacy";
	case BPFTUNE_SUPPORT_TRACEPOINT_ONLY:
		return "tracepoint-only";
	default:
		return "unsupported";
	}
}

int bpftune_support_level_exit(enum bpftune_support_level l)
{
	switch (l) {
	case BPFTUNE_SUPPORT_FULL:
		return BPFTUNE_EXIT_FULL;
	case BPFTUNE_SUPPORT_LEGACY:
		return BPFTUNE_EXIT_LEGACY;
	case BPFTUNE_SUPPORT_TRACEPOINT_ONLY:
		return BPFTUNE_EXIT_TRACEPOINT_ONLY;
	default:
		return BPFTUNE_EXIT_UNSUPPORTED;
	}
}

const struct bpftune_support *bpftune_support(void)
{
	return &support;
}

static void set_why(enum bpftune_feature f, const char *fmt, int err)
{
	snprintf(support.why[f], sizeof(support.why[f]), fmt, strerror(err),
		 err);
}

static bool kprobes_configured(void)
{
	return !access("/sys/bus/event_source/devices/kprobe", F_OK) ||
	       !access("/sys/kernel/tracing/kprobe_events", F_OK) ||
	       !access("/sys/kernel/debug/tracing/kprobe_events", F_OK);
}

/*
 * fentry and tp_btf: load "return 0" against the kernel BTF id found by the
 * in-place reader and attach it; through libbpf the attach target would
 * cost a parse of the whole kernel BTF.  0 or -errno with the reason set.
 */
static int probe_tracing(enum bpftune_feature f)
{
	const struct bpf_insn ret0[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	bool fentry = f == BPFTUNE_FEAT_FENTRY;
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		    .expected_attach_type = fentry ? BPF_TRACE_FENTRY : BPF_TRACE_RAW_TP);
	struct bpftune_kbtf *k = bpftune_kernel_btf();
	int id, fd, link;

	if (!k) {
		set_why(f, "no kernel BTF: %s (errno %d)", ENOENT);
		return -ENOENT;
	}
	id = fentry ? bpftune_kbtf_find(k, "tcp_sendmsg", BTF_KIND_FUNC) :
		      bpftune_kbtf_find(k, "btf_trace_inet_sock_set_state", BTF_KIND_TYPEDEF);
	if (id < 0) {
		set_why(f, "probe target not in the kernel BTF: %s (errno %d)", -id);
		return id;
	}
	opts.attach_btf_id = id;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, features[f].probe, "GPL", ret0, 2, &opts);
	if (fd < 0) {
		set_why(f, "program load failed: %s (errno %d)", -fd);
		return fd;
	}
	link = fentry ? bpf_link_create(fd, 0, BPF_TRACE_FENTRY, NULL) :
			bpf_raw_tracepoint_open(NULL, fd);
	if (link < 0) {
		link = -errno;
		set_why(f, "attach failed: %s (errno %d)", -link);
		close(fd);
		return link;
	}
	close(link);
	close(fd);
	return 0;
}

/* Load and attach one probe program; 0 or -errno with the reason set. */
static int probe_one(enum bpftune_feature f, int cgroup_fd)
{
	struct support_probe_bpf *skel;
	struct bpf_program *prog;
	struct bpf_link *link = NULL;
	int err;

	skel = support_probe_bpf__open();
	if (!skel) {
		err = -errno;
		set_why(f, "cannot open probe object: %s (errno %d)", -err);
		return err;
	}
	bpf_object__for_each_program(prog, skel->obj)
		bpf_program__set_autoload(prog, !strcmp(bpf_program__name(prog),
							features[f].probe));
	err = support_probe_bpf__load(skel);
	if (err) {
		set_why(f, "program load failed: %s (errno %d)", -err);
		goto out;
	}
	prog = bpf_object__find_program_by_name(skel->obj, features[f].probe);
	if (f == BPFTUNE_FEAT_CGROUP_SYSCTL || f == BPFTUNE_FEAT_SOCKOPS) {
		if (cgroup_fd < 0) {
			err = cgroup_fd;
			set_why(f, "no cgroup v2 hierarchy to attach to: %s (errno %d)",
				-err);
			goto out;
		}
		link = bpf_program__attach_cgroup(prog, cgroup_fd);
	} else {
		link = bpf_program__attach(prog);
	}
	if (!link) {
		err = -errno;
		if (f == BPFTUNE_FEAT_KPROBE && !kprobes_configured())
			snprintf(support.why[f], sizeof(support.why[f]),
				 "kernel has no kprobes (no kprobe PMU, no kprobe_events)");
		else
			set_why(f, "attach failed: %s (errno %d)", -err);
	}
out:
	bpf_link__destroy(link);
	support_probe_bpf__destroy(skel);
	return err;
}

struct cookie_ctx {
	struct bpftune_kbtf *k;
	__u32 member_off;
	bool found;
};

/* a struct net: does it have the member? */
static void net_has_member(__u32 id, const struct btf_type *t, unsigned int which,
			   void *ctx)
{
	struct cookie_ctx *c = ctx;
	const struct btf_member *m;
	int i;

	if (!btf_is_struct(t) || which != 0)
		return;
	t = bpftune_kbtf_type(c->k, id);
	for (i = 0, m = t ? btf_members(t) : NULL; m && i < btf_vlen(t); i++, m++)
		if (m->name_off == c->member_off)
			c->found = true;
}

static void probe_netns_cookie(void)
{
	static const char *const names[] = { "net", "net_cookie" };
	enum bpftune_feature f = BPFTUNE_FEAT_NETNS_COOKIE;
	struct cookie_ctx c = { .found = false };
	uint64_t cookie = 0;
	socklen_t len = sizeof(cookie);
	__u32 offs[2];
	int fd, err;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, &cookie, &len)) {
		set_why(f, "SO_NETNS_COOKIE not supported: %s (errno %d)", errno);
		if (fd >= 0)
			close(fd);
		return;
	}
	close(fd);
	c.k = bpftune_kernel_btf();
	if (!c.k) {
		set_why(f, "no kernel BTF: %s (errno %d)", ENOENT);
		return;
	}
	err = bpftune_kbtf_find_strs(c.k, names, 2, offs);
	c.member_off = offs[1];
	if (!err && offs[0] && offs[1])
		err = bpftune_kbtf_find_types(c.k, offs, 1, net_has_member, &c);
	support.ok[f] = !err && c.found;
	if (!support.ok[f])
		snprintf(support.why[f], sizeof(support.why[f]),
			 "struct net has no net_cookie: netns inode numbers are used instead");
}

#define TRACEFS "/sys/kernel/tracing"
static bool tracefs_mounted;	/* by us: unmounted at exit */

/*
 * Tracepoint programs find their event ids in tracefs, which a minimal
 * system may not have mounted: mount it where the kernel expects it, for
 * as long as the daemon runs (hot plug and strategies attach later).
 */
static void ensure_tracefs(void)
{
	if (tracefs_mounted || !access(TRACEFS "/events", F_OK) ||
	    !access("/sys/kernel/debug/tracing/events", F_OK))
		return;
	if (mount("tracefs", TRACEFS, "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL)) {
		bpftune_log(LOG_DEBUG, "cannot mount tracefs: %s", strerror(errno));
		return;
	}
	tracefs_mounted = true;
	bpftune_log(LOG_INFO, "mounted tracefs on " TRACEFS " (unmounted at exit)");
}

void bpftune_support_fini(void)
{
	if (!tracefs_mounted)
		return;
	tracefs_mounted = false;
	bpftune_cap_raise();
	if (umount2(TRACEFS, UMOUNT_NOFOLLOW))
		bpftune_log(LOG_NOTICE, "tracefs on " TRACEFS ", mounted at start, left mounted: %s",
			    strerror(errno));
	else
		bpftune_log(LOG_INFO, "unmounted tracefs from " TRACEFS);
	bpftune_cap_lower();
}

int bpftune_support_probe(struct bpftune_support *out)
{
	enum bpftune_feature f;
	int cgroup_fd, ret;

	memset(&support, 0, sizeof(support));
	cgroup_fd = bpftune_cgroup_open(NULL);
	bpftune_cap_raise();
	ensure_tracefs();
	for (f = 0; f < BPFTUNE_FEAT_MAX; f++) {
		if (!features[f].probe)
			continue;
		if (f == BPFTUNE_FEAT_FENTRY || f == BPFTUNE_FEAT_TP_BTF)
			support.ok[f] = probe_tracing(f) == 0;
		else
			support.ok[f] = probe_one(f, cgroup_fd) == 0;
		bpftune_log(LOG_DEBUG, "support: %s: %s", features[f].name,
			    support.ok[f] ? "yes" : support.why[f]);
	}
	ret = libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL);
	support.ok[BPFTUNE_FEAT_RINGBUF] = ret == 1;
	if (ret != 1)
		set_why(BPFTUNE_FEAT_RINGBUF, "ring buffer maps unavailable: %s (errno %d)",
			ret < 0 ? -ret : EOPNOTSUPP);
	probe_netns_cookie();
	bpftune_cap_lower();
	if (cgroup_fd >= 0)
		close(cgroup_fd);

	if (!support.ok[BPFTUNE_FEAT_RINGBUF] ||
	    !(support.ok[BPFTUNE_FEAT_TP_BTF] || support.ok[BPFTUNE_FEAT_RAW_TP] ||
	      support.ok[BPFTUNE_FEAT_TRACEPOINT]))
		support.level = BPFTUNE_SUPPORT_NONE;
	else if (support.ok[BPFTUNE_FEAT_FENTRY] && support.ok[BPFTUNE_FEAT_TP_BTF])
		support.level = BPFTUNE_SUPPORT_FULL;
	else if (support.ok[BPFTUNE_FEAT_KPROBE] && support.ok[BPFTUNE_FEAT_RAW_TP])
		support.level = BPFTUNE_SUPPORT_LEGACY;
	else
		support.level = BPFTUNE_SUPPORT_TRACEPOINT_ONLY;
	if (out)
		*out = support;
	return 0;
}

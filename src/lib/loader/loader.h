/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The BPF loader: what the running kernel supports (support.c), a plugin's
 * BPF object opened, its programs chosen, loaded and attached (bpf_load.c),
 * its globals read back (bpf_vars.c), the kernel's BTF while loading
 * (bpf_btf.c), links destroyed (link_destroy.c).  Below the core: it knows
 * no tuner, the core hands it the object and the values it needs.
 */
#ifndef BPFTUNE_LOADER_H
#define BPFTUNE_LOADER_H

#include "base/daemon_api.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <bpftune/libbpftune.h>

struct bpf_link;
struct bpf_object;
struct bpf_program;

/* ---- kernel support (support.c) ---- */
enum bpftune_feature {
	BPFTUNE_FEAT_FENTRY,
	BPFTUNE_FEAT_TP_BTF,
	BPFTUNE_FEAT_KPROBE,
	BPFTUNE_FEAT_RAW_TP,
	BPFTUNE_FEAT_TRACEPOINT,
	BPFTUNE_FEAT_CGROUP_SYSCTL,
	BPFTUNE_FEAT_SOCKOPS,
	BPFTUNE_FEAT_RINGBUF,
	BPFTUNE_FEAT_NETNS_COOKIE,
	BPFTUNE_FEAT_MAX,
};

enum bpftune_support_level {
	BPFTUNE_SUPPORT_FULL,
	BPFTUNE_SUPPORT_LEGACY,
	BPFTUNE_SUPPORT_TRACEPOINT_ONLY,
	BPFTUNE_SUPPORT_NONE,
};

/* Exit status of bpftune -S for each level (documented in the README). */
#define BPFTUNE_EXIT_FULL		0
#define BPFTUNE_EXIT_LEGACY		2
#define BPFTUNE_EXIT_TRACEPOINT_ONLY	3
#define BPFTUNE_EXIT_UNSUPPORTED	4

struct bpftune_support {
	bool ok[BPFTUNE_FEAT_MAX];
	char why[BPFTUNE_FEAT_MAX][160];	/* reason when !ok */
	enum bpftune_support_level level;
};

BPFTUNE_DAEMON const char *bpftune_feature_name(enum bpftune_feature f);
BPFTUNE_DAEMON const char *bpftune_support_level_name(enum bpftune_support_level l);
BPFTUNE_DAEMON int bpftune_support_level_exit(enum bpftune_support_level l);
BPFTUNE_DAEMON int bpftune_support_probe(struct bpftune_support *s);
/* undo what the probe did to the system: a tracefs it mounted */
BPFTUNE_DAEMON void bpftune_support_fini(void);
BPFTUNE_DAEMON const struct bpftune_support *bpftune_support(void);

/* ---- BPF objects (bpf_load.c) ---- */
/* One plugin's BPF object as its owner (the core) holds it. */
struct bpftune_bpf_obj {
	const char *name;			/* the plugin's, in messages */
	const struct bpftune_bpf_image *image;	/* full or legacy */
	void *skel;				/* its skeleton, or NULL */
	struct bpf_object *obj;			/* the skeleton's object */
};

/*
 * Open the skeleton of @image into *@skelp (its object in *@objp); on
 * failure, the reason in @why.
 */
BPFTUNE_DAEMON int bpftune_bpf_open(const struct bpftune_bpf_image *image,
		     const char *name, bool legacy, void **skelp,
		     struct bpf_object **objp, char *why, size_t why_len);
BPFTUNE_DAEMON int bpftune_bpf_select_programs(struct bpf_object *obj,
				const struct bpftune_support *s,
				char *why, size_t why_len);
/*
 * Write @config into @o's globals, share the ring buffer and the gauges,
 * load, and attach each program selected (cgroup ones to @cgroup_fd).
 * The links in *@linksp (*@nump of them); none left on failure.
 */
int bpftune_bpf_load_attach(const struct bpftune_bpf_obj *o,
			    const struct bpftune_bpf_config *config,
			    int cgroup_fd, struct bpf_link ***linksp,
			    unsigned int *nump);
/* destroy and free the links of bpftune_bpf_load_attach() */
void bpftune_bpf_detach(struct bpf_link ***linksp, unsigned int *nump);
/* bpf_link__destroy() of each, concurrently (link_destroy.c) */
void bpftune_links_destroy(struct bpf_link **links, unsigned int num);
/* the skeleton, if any, is destroyed (the object closed with it) */
void bpftune_bpf_close(const struct bpftune_bpf_obj *o);
/* after load: the pages of both ELF images are handed back to the kernel */
void bpftune_bpf_images_release(const struct bpftune_tuner_ops *ops);
/* ring buffer losses and the samplers of @o, logged */
void bpftune_bpf_print_stats(const struct bpftune_bpf_obj *o);
/* bpftune's globals as the kernel has them, through the skeleton; -ENOENT if not loaded */
int bpftune_bpf_read_config(const struct bpftune_bpf_obj *o,
			    struct bpftune_bpf_config *config,
			    uint64_t *ringbuf_lost);
BPFTUNE_DAEMON int bpftune_ringbuf_fd(void);
/*
 * Full objects pay off only where fentry loads; elsewhere the legacy ones
 * attach the same tracepoints as raw_tp, which needs no kernel BTF (and
 * kprobes where the kernel has them).  True: use the legacy objects.
 */
BPFTUNE_DAEMON bool bpftune_bpf_prefer_legacy(const struct bpftune_support *s);
/* the shared gauges map (struct bpftune_gauges by netns cookie), or -1 */
int bpftune_gauges_fd(void);
/* closes the ring buffer and the gauges map */
BPFTUNE_DAEMON void bpftune_ringbuf_close(void);

/*
 * Run @prog, a loaded raw_tp program with no tracepoint (SEC("raw_tp"),
 * never attached), once in the calling thread's context: its return
 * value, or -errno.
 */
int bpftune_bpf_prog_run(const struct bpf_program *prog);

/* ---- BPF global variables of a loaded object (bpf_vars.c) ---- */
/*
 * Call @cb for each variable of section @sec (".bss", ".data", ".rodata")
 * with its current contents, read from the kernel.  @type is the name of
 * its type after typedefs and qualifiers ("bpftune_sampler", "__u64"...).
 */
typedef void (*bpftune_var_cb)(const char *name, const char *type,
			       const void *data, size_t size, void *ctx);
int bpftune_bpf_vars(struct bpf_object *obj, const char *sec,
		     bpftune_var_cb cb, void *ctx);
/*
 * The global @name (@size bytes) of @obj's section @sec, in the memory the
 * kernel's map shares with the daemon (mmapped): writes reach the
 * programs at once.  Before load, in the image the map is created with.
 * NULL if absent, of another size, or loaded but not mmapped.
 */
void *bpftune_bpf_var_ptr(struct bpf_object *obj, const char *sec,
			  const char *name, size_t size);

/* ---- the kernel's BTF while loading (bpf_btf.c) ---- */
struct bpftune_kbtf;
/* the in-place kernel BTF reader, opened on first use; NULL if none */
struct bpftune_kbtf *bpftune_kernel_btf(void);
/* loading is over: free the reader's index (it is rebuilt when needed) */
void bpftune_kernel_btf_release(void);
/*
 * The minimal BTF for @image's CO-RE relocations in a memfd (*@fdp), its
 * /proc/self/fd path in @path for btf_custom_path.  -ENOENT: the object
 * needs none, or there is no kernel BTF; other -errno: use the kernel's.
 */
int bpftune_bpf_min_btf(const void *image, size_t size, char *path,
			size_t path_len, int *fdp);
/* keep @fd open until @obj is loaded (bpftune_bpf_min_btf_done) */
void bpftune_bpf_min_btf_keep(const struct bpf_object *obj, int fd);
void bpftune_bpf_min_btf_done(const struct bpf_object *obj);
/* Which of @n tracepoints the kernel has (its btf_trace_<name> typedef). */
int bpftune_kernel_tracepoints(const char *const *tps, unsigned int n,
			       bool *exists);

#endif /* BPFTUNE_LOADER_H */

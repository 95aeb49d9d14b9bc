// SPDX-License-Identifier: GPL-2.0-only
/*
 * The rollback journal file.  An observer of the tuners: before the first
 * change to a (netns, sysctl) its original value is appended and synced
 * to disk, and the write is vetoed if that fails, so nothing is changed
 * that we could not put back.  Each value we are about to write is
 * appended (and synced) before the write too, so that a restore after a
 * crash at any moment knows it for ours; the admin's take-overs are
 * appended as well.  Restoring (-R at exit, -R at start after a crash,
 * bpftune --restore) reads the file back, trusting only records whose
 * checksum matches, and puts back each original value -- in every netns
 * that still exists, unless someone else has set the sysctl since: the
 * admin wins.  Then the journal is cleared.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ops/journal.h"
#include "core/file_replace.h"
#include "core/observer.h"
#include "core/operate.h"
#include "plugin/plugin.h"
#include "core/sysctl.h"

#define JOURNAL_MAX_SIZE	(16 << 20)	/* read at most this much back */

static char *read_all(size_t *len);

/* A (netns, sysctl) whose original is in the journal already, this run. */
struct jkey {
	struct jkey *next;
	struct bpftune_jrec rec;
};

static int jfd = -1;
static char jpath[PATH_MAX];
static char boot_id[BPFTUNE_BOOT_ID_LEN + 1];
static struct jkey *keys;
static bool observing;
static bool failing;	/* appends fail: logged once until they work again */
static uint64_t vetoed;	/* changes held back meanwhile */

/*
 * Namespaces destroyed since the last compaction: their records are of no
 * use (a restore finds them gone), so the file is rewritten without them
 * once it holds enough of them -- with namespaces coming and going for
 * months, the journal and this run's keys stay bounded.
 */
#define COMPACT_GONE		64
#define COMPACT_MIN_BYTES	(64 << 10)
static uint64_t gone[COMPACT_GONE];
static unsigned int num_gone;
static uint64_t compactions;

static void read_boot_id(void)
{
	char buf[64] = "";
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");

	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = '\0';
	if (strlen(buf) != BPFTUNE_BOOT_ID_LEN)
		snprintf(buf, sizeof(buf), "00000000-0000-0000-0000-000000000000");
	memcpy(boot_id, buf, sizeof(boot_id));
}

int bpftune_journal_open(const char *path)
{
	char dcopy[PATH_MAX], bcopy[PATH_MAX], why[256] = "";
	const char *dir, *base;
	struct stat st;
	int dfd, err;

	if (!path)
		path = BPFTUNE_JOURNAL_DEFAULT;
	if (strlen(path) >= sizeof(jpath) || path[strlen(path) - 1] == '/') {
		bpftune_log(LOG_ERR, "journal: bad path '%s'", path);
		return -EINVAL;
	}
	snprintf(jpath, sizeof(jpath), "%s", path);
	snprintf(dcopy, sizeof(dcopy), "%s", path);
	snprintf(bcopy, sizeof(bcopy), "%s", path);
	dir = dirname(dcopy);
	base = basename(bcopy);
	if (mkdir(dir, 0700) && errno != EEXIST) {
		err = -errno;
		bpftune_log(LOG_ERR, "journal: cannot create %s: %s", dir, strerror(errno));
		return err;
	}
	/* the journal decides what root writes to sysctls: root's alone */
	dfd = bpftune_dir_open_trusted(dir, why, sizeof(why));
	if (dfd < 0) {
		bpftune_log(LOG_ERR, "journal: directory refused: %s", why);
		return dfd;
	}
	jfd = openat(dfd, base, O_RDWR | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC,
		     0600);
	err = jfd < 0 ? -errno : 0;
	/* a journal that was just created must survive a power cut too */
	if (!err && fsync(dfd))
		err = -errno;
	close(dfd);
	if (err) {
		if (jfd >= 0)
			close(jfd);
		jfd = -1;
		bpftune_log(LOG_ERR, "journal: cannot open %s: %s", path, strerror(-err));
		return err;
	}
	if (fstat(jfd, &st) || !S_ISREG(st.st_mode) || st.st_uid != 0 ||
	    (st.st_mode & (S_IWGRP | S_IWOTH))) {
		bpftune_log(LOG_ERR, "journal: %s must be a regular file owned by root and writable only by it",
			    path);
		err = -EPERM;
		goto err;
	}
	if (flock(jfd, LOCK_EX | LOCK_NB)) {
		err = -errno;
		bpftune_log(LOG_ERR, "journal: %s is in use by another bpftune%s", path,
			    err == -EWOULDBLOCK ? " (give this one its own --journal)" : "");
		goto err;
	}
	read_boot_id();
	return 0;
err:
	close(jfd);
	jfd = -1;
	return err;
}

/* Append @n records (one write) and get them onto the disk. */
static int append_n(const struct bpftune_jrec *r, unsigned int n)
{
	char lines[2 * BPFTUNE_JREC_MAX_LINE];
	int len = 0, l;
	unsigned int i;
	ssize_t w;

	if (jfd < 0)
		return -EBADF;
	for (i = 0; i < n; i++) {
		if (len + BPFTUNE_JREC_MAX_LINE > (int)sizeof(lines))
			return -E2BIG;
		l = bpftune_jrec_encode(&r[i], lines + len, sizeof(lines) - len);
		if (l < 0)
			return l;
		len += l;
	}
	/* O_APPEND: one write() of whole lines, or a torn line we detect */
	w = write(jfd, lines, len);
	if (w != len)
		return w < 0 ? -errno : -ENOSPC;
	return fdatasync(jfd) ? -errno : 0;
}

static int append(const struct bpftune_jrec *r)
{
	return append_n(r, 1);
}

static int make_rec(struct bpftune_jrec *r, char type, uint64_t cookie,
		    const char *sysctl, const long *v, unsigned int n)
{
	struct bpftune_netns_id id;
	int err;

	memset(r, 0, sizeof(*r));
	err = bpftune_netns_identify(cookie, &id);
	if (err)
		return err;
	r->type = type;
	memcpy(r->boot_id, boot_id, sizeof(r->boot_id));
	r->scope = id.global ? BPFTUNE_JSCOPE_GLOBAL : BPFTUNE_JSCOPE_NETNS;
	snprintf(r->netns_name, sizeof(r->netns_name), "%s", id.name);
	r->ino = id.ino;
	r->dev = id.dev;
	r->cookie = id.cookie;
	if (strlen(sysctl) >= sizeof(r->sysctl) || n > BPFTUNE_MAX_VALUES)
		return -EINVAL;
	strcpy(r->sysctl, sysctl);
	r->num_values = n;
	if (n)
		memcpy(r->values, v, n * sizeof(*v));
	return 0;
}

/* What this run journalled for @sysctl in @cookie's netns (cookies are not reused within a boot). */
static struct jkey *find_key(uint64_t cookie, const char *sysctl)
{
	bool global = bpftune_netns_is_global(cookie);
	struct jkey *k;

	for (k = keys; k; k = k->next) {
		if (strcmp(k->rec.sysctl, sysctl))
			continue;
		if (global ? k->rec.scope == BPFTUNE_JSCOPE_GLOBAL :
		    k->rec.scope == BPFTUNE_JSCOPE_NETNS && k->rec.cookie == cookie)
			return k;
	}
	return NULL;
}

/* A W record of @v for a key journalled already (its netns as identified then) */
static void written_rec(struct bpftune_jrec *r, const struct jkey *k,
			const long *v, unsigned int n)
{
	*r = k->rec;
	r->type = BPFTUNE_JREC_WRITTEN;
	r->num_values = n;
	memcpy(r->values, v, n * sizeof(*v));
}

/* One line when appends start failing, one when they work again. */
static void note_append(int err, const char *name, bool orig)
{
	if (err && !failing) {
		failing = true;
		bpftune_log(LOG_ERR, "journal: cannot save the %s of %s to %s: %s; changes are held back until the journal takes records again",
			    orig ? "original value" : "value about to be written",
			    name, jpath, strerror(-err));
	} else if (!err && failing) {
		failing = false;
		bpftune_log(LOG_NOTICE, "journal: %s takes records again (%llu change%s held back meanwhile)",
			    jpath, (unsigned long long)vetoed, vetoed == 1 ? "" : "s");
		vetoed = 0;
	}
	if (err)
		vetoed++;
}

/*
 * Before a write: the original (the first time) and the value about to be
 * written, on disk, or the write is vetoed.
 */
static int obs_pre_change(const struct bpftune_tuner *t, unsigned int tunable,
			  uint64_t cookie, const long *old, const long *new,
			  unsigned int n)
{
	const char *name = t->ops->tunables[tunable].name;
	struct bpftune_jrec r[2];
	struct jkey *k;
	int err;

	if (n > BPFTUNE_MAX_VALUES)
		return -EINVAL;
	k = find_key(cookie, name);
	if (k) {
		written_rec(&r[0], k, new, n);
		err = append(&r[0]);
		note_append(err, name, false);
		return err;
	}
	err = make_rec(&r[0], BPFTUNE_JREC_ORIG, cookie, name, old, n);
	if (err) {
		bpftune_log(LOG_ERR, "journal: cannot identify the netns of cookie %llu: %s",
			    (unsigned long long)cookie, strerror(-err));
		return err;
	}
	k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	k->rec = r[0];
	written_rec(&r[1], k, new, n);
	err = append_n(r, 2);
	note_append(err, name, true);
	if (err) {
		free(k);
		return err;
	}
	k->next = keys;
	keys = k;
	return 0;
}

/* After a write the kernel refused: the live value is still @old. */
static void obs_change(const struct bpftune_tuner *t, unsigned int tunable,
		       uint64_t cookie, unsigned int scenario, const long *old,
		       const long *new, unsigned int n, const char *reason,
		       int err)
{
	const char *name = t->ops->tunables[tunable].name;
	struct bpftune_jrec r;
	struct jkey *k;

	(void)scenario;
	(void)new;
	(void)reason;
	if (!err || err == -ECANCELED || n > BPFTUNE_MAX_VALUES)
		return;
	k = find_key(cookie, name);
	if (!k)
		return;
	/* best effort: the restore also accepts the value before the last */
	written_rec(&r, k, old, n);
	err = append(&r);
	if (err)
		bpftune_log(LOG_DEBUG, "journal: cannot record that %s stays at its value: %s",
			    name, strerror(-err));
}

static bool of_gone_netns(const struct bpftune_jrec *r, void *ctx)
{
	unsigned int i;

	(void)ctx;
	if (r->scope != BPFTUNE_JSCOPE_NETNS)
		return false;
	for (i = 0; i < num_gone; i++)
		if (gone[i] == r->cookie)
			return true;
	return false;
}

/* Rewrite the journal without the records of namespaces that are gone. */
static void compact(void)
{
	char tmp[PATH_MAX + 16];
	size_t len = 0, n;
	char *buf;
	int fd, err;

	buf = read_all(&len);
	if (!buf) {
		num_gone = 0;
		return;
	}
	n = bpftune_jrec_filter(buf, len, of_gone_netns, NULL, buf);
	num_gone = 0;
	if (n == len) {
		free(buf);
		return;
	}
	snprintf(tmp, sizeof(tmp), "%s.compact", jpath);
	/* durable, and locked like the journal it replaces */
	err = bpftune_file_replace(jpath, buf, n, &(struct bpftune_replace){
		.tmp = tmp, .mode = 0600, .sync = true, .lock = true, .fd = &fd });
	free(buf);
	if (err) {
		bpftune_log(LOG_WARNING, "journal: cannot compact %s: %s; it keeps the records of namespaces that are gone",
			    jpath, strerror(-err));
		return;
	}
	close(jfd);
	jfd = fd;
	compactions++;
	bpftune_log(LOG_DEBUG, "journal: compacted %s: %zu -> %zu bytes", jpath, len, n);
}

/* A netns is gone: its keys go, and its records at the next compaction. */
static void netns_gone(uint64_t cookie)
{
	struct jkey **p = &keys, *k;
	struct stat st;

	while ((k = *p)) {
		if (k->rec.scope == BPFTUNE_JSCOPE_NETNS && k->rec.cookie == cookie) {
			*p = k->next;
			free(k);
		} else {
			p = &k->next;
		}
	}
	gone[num_gone++] = cookie;
	if (num_gone == COMPACT_GONE ||
	    (!fstat(jfd, &st) && st.st_size >= COMPACT_MIN_BYTES))
		compact();
}

static void obs_state(const struct bpftune_tuner *t, uint64_t cookie,
		      enum bpftune_state state, const char *cause)
{
	struct bpftune_jrec r;
	unsigned int i;
	int err;

	(void)cause;
	if (state == BPFTUNE_STATE_GONE && !bpftune_netns_is_global(cookie)) {
		/* every tuner is told: once is enough */
		for (i = 0; i < num_gone; i++)
			if (gone[i] == cookie)
				return;
		netns_gone(cookie);
		return;
	}
	if (state != BPFTUNE_STATE_MANUAL)
		return;
	for (i = 0; i < t->ops->num_tunables; i++) {
		err = make_rec(&r, BPFTUNE_JREC_MANUAL, cookie,
			       t->ops->tunables[i].name, NULL, 0);
		if (!err && bpftune_netns_is_global(cookie))
			r.scope = BPFTUNE_JSCOPE_ALL;
		err = err ?: append(&r);
		if (err)
			bpftune_log(LOG_WARNING, "journal: cannot record that the admin owns %s: %s",
				    t->ops->tunables[i].name, strerror(-err));
	}
}

static struct bpftune_observer observer = {
	.pre_change = obs_pre_change,
	.change = obs_change,
	.state = obs_state,
};

void bpftune_journal_start(void)
{
	if (jfd < 0 || observing)
		return;
	bpftune_observer_add(&observer);
	observing = true;
}

/* ---- restore ---------------------------------------------------------------- */

struct entry {
	struct bpftune_jrec orig;	/* the first original value */
	bool have_orig;
	bool have_last, have_prev;
	bool manual;
	unsigned int last_n, prev_n;
	long last[BPFTUNE_MAX_VALUES];	/* the last W */
	long prev[BPFTUNE_MAX_VALUES];	/* the W before it */
};

struct restore {
	struct entry *e;
	unsigned int num, cap;
	unsigned int damaged, other_boot, failed, restored;
};

static struct entry *entry_for(struct restore *rs, const struct bpftune_jrec *r)
{
	struct entry *ne;
	unsigned int i;

	for (i = 0; i < rs->num; i++)
		if (bpftune_jrec_same_key(&rs->e[i].orig, r))
			return &rs->e[i];
	if (rs->num == rs->cap) {
		rs->cap = rs->cap ? rs->cap * 2 : 16;
		ne = realloc(rs->e, rs->cap * sizeof(*ne));
		if (!ne)
			return NULL;
		rs->e = ne;
	}
	ne = &rs->e[rs->num++];
	memset(ne, 0, sizeof(*ne));
	ne->orig = *r;
	return ne;
}

/* Values first (the first original wins), take-overs once all are known. */
static void add_record(struct restore *rs, const struct bpftune_jrec *r,
		       bool manual_pass)
{
	struct entry *e;
	unsigned int i;

	if (manual_pass) {
		if (r->type != BPFTUNE_JREC_MANUAL)
			return;
		for (i = 0; i < rs->num; i++)
			if (bpftune_jrec_same_key(&rs->e[i].orig, r))
				rs->e[i].manual = true;
		return;
	}
	if (r->type == BPFTUNE_JREC_MANUAL)
		return;
	e = entry_for(rs, r);
	if (!e)
		return;
	if (r->type == BPFTUNE_JREC_ORIG && !e->have_orig) {
		e->orig = *r;
		e->have_orig = true;
	} else if (r->type == BPFTUNE_JREC_WRITTEN) {
		if (e->have_last) {
			e->have_prev = true;
			e->prev_n = e->last_n;
			memcpy(e->prev, e->last, sizeof(e->prev));
		}
		e->have_last = true;
		e->last_n = r->num_values;
		memcpy(e->last, r->values, sizeof(e->last));
	}
}

static void values_text(const long *v, unsigned int n, char *buf, size_t len)
{
	size_t off = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < n && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%ld", i ? " " : "", v[i]);
}

/*
 * Does the sysctl hold what we wrote last, or what it held before our last
 * record (a crash between the record and the write, or a refused write)?
 */
static bool holds_ours(const struct entry *e, const long *live, unsigned int n)
{
	if (e->have_last && e->last_n == n && !memcmp(live, e->last, n * sizeof(*live)))
		return true;
	return e->have_prev && e->prev_n == n &&
	       !memcmp(live, e->prev, n * sizeof(*live));
}

static void restore_one(struct restore *rs, struct entry *e)
{
	long live[BPFTUNE_MAX_VALUES];
	const struct bpftune_jrec *o = &e->orig;
	struct bpftune_netns_id id = {
		.global = o->scope == BPFTUNE_JSCOPE_GLOBAL,
		.ino = o->ino, .dev = o->dev, .cookie = o->cookie,
	};
	char where[NAME_MAX + 64], want[96], now[96], last[96];
	unsigned int n = o->num_values;
	int fd, err;

	snprintf(id.name, sizeof(id.name), "%s", o->netns_name);
	bpftune_netns_id_describe(&id, where, sizeof(where));
	if (!e->have_orig) {
		bpftune_log(LOG_WARNING, "rollback: %s in %s: its original value was lost with a damaged record",
			    o->sysctl, where);
		return;
	}
	if (e->manual) {
		bpftune_log(LOG_NOTICE, "rollback: %s in %s left as the admin set it",
			    o->sysctl, where);
		return;
	}
	fd = bpftune_netns_find(&id);
	if (fd < -1) {
		bpftune_log(LOG_NOTICE, "rollback: %s: %s is gone", o->sysctl, where);
		return;
	}
	values_text(o->values, n, want, sizeof(want));
	err = bpftune_sysctl_read(fd, o->sysctl, live, n);
	if (err != (int)n) {
		rs->failed++;
		bpftune_log(LOG_ERR, "rollback: cannot read %s in %s: %s", o->sysctl, where,
			    strerror(err < 0 ? -err : EINVAL));
		goto out;
	}
	values_text(live, n, now, sizeof(now));
	if (!memcmp(live, o->values, n * sizeof(*live))) {
		bpftune_log(LOG_INFO, "rollback: %s in %s is %s already", o->sysctl,
			    where, want);
		goto out;
	}
	if (!holds_ours(e, live, n)) {
		values_text(e->last, e->last_n, last, sizeof(last));
		if (e->have_last)
			bpftune_log(LOG_NOTICE, "rollback: %s in %s left at %s: bpftune last set %s, so someone else has changed it",
				    o->sysctl, where, now, last);
		else
			bpftune_log(LOG_NOTICE, "rollback: %s in %s left at %s: no value written by bpftune was recorded, so someone else may have set it",
				    o->sysctl, where, now);
		goto out;
	}
	err = bpftune_sysctl_write(fd, o->sysctl, o->values, n);
	bpftune_notify_rollback(o->sysctl, id.global ? 0 : o->cookie, o->values, n, err);
	if (err) {
		rs->failed++;
		bpftune_log(LOG_ERR, "rollback: could not restore %s to %s in %s: %s",
			    o->sysctl, want, where, strerror(-err));
	} else {
		rs->restored++;
		bpftune_log(LOG_NOTICE, "rollback: restored %s to %s in %s", o->sysctl,
			    want, where);
	}
out:
	if (fd >= 0)
		close(fd);
}

/* Read the whole journal; *len bytes, caller frees. */
static char *read_all(size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap), *nb;
	ssize_t got;

	while (buf) {
		if (n == cap) {
			if (cap >= JOURNAL_MAX_SIZE) {
				bpftune_log(LOG_ERR, "journal: %s is larger than %d bytes: only its start is read",
					    jpath, JOURNAL_MAX_SIZE);
				break;
			}
			nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				return NULL;
			}
			buf = nb;
			cap *= 2;
		}
		got = pread(jfd, buf + n, cap - n, n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			free(buf);
			return NULL;
		}
		if (!got)
			break;
		n += got;
	}
	*len = n;
	return buf;
}

static void free_keys(void)
{
	struct jkey *k;

	while ((k = keys)) {
		keys = k->next;
		free(k);
	}
}

int bpftune_journal_restore(void)
{
	struct restore rs = { 0 };
	struct bpftune_jrec r, *recs = NULL, *nr;
	size_t len = 0, off = 0, line_no = 0, num = 0, k;
	const char *why;
	char *buf;
	int i, err = 0;

	if (jfd < 0)
		return -EBADF;
	buf = read_all(&len);
	if (!buf) {
		bpftune_log(LOG_ERR, "journal: cannot read %s: %s", jpath, strerror(errno));
		return -EIO;
	}
	while (off < len) {
		char *nl = memchr(buf + off, '\n', len - off);
		size_t l = nl ? (size_t)(nl - (buf + off)) : len - off;

		line_no++;
		if (!nl) {
			rs.damaged++;
			bpftune_log(LOG_ERR, "journal: %s line %zu: truncated record (%zu bytes, no end of line): ignored",
				    jpath, line_no, l);
			break;
		}
		if (bpftune_jrec_decode(buf + off, l, &r, &why)) {
			rs.damaged++;
			bpftune_log(LOG_ERR, "journal: %s line %zu: damaged record (%s): ignored",
				    jpath, line_no, why);
		} else if (strcmp(r.boot_id, boot_id)) {
			rs.other_boot++;
		} else if ((nr = realloc(recs, (num + 1) * sizeof(*recs)))) {
			recs = nr;
			recs[num++] = r;
		}
		off += l + 1;
	}
	free(buf);
	for (k = 0; k < num; k++)
		add_record(&rs, &recs[k], false);
	for (k = 0; k < num; k++)
		add_record(&rs, &recs[k], true);
	free(recs);
	if (rs.num || rs.damaged || rs.other_boot)
		bpftune_log(LOG_NOTICE, "journal: %s holds %u value%s to restore%s",
			    jpath, rs.num, rs.num == 1 ? "" : "s",
			    rs.damaged ? " and damaged records" : "");
	if (rs.other_boot)
		bpftune_log(LOG_NOTICE, "journal: %u record%s from an earlier boot ignored: the reboot reset those values",
			    rs.other_boot, rs.other_boot == 1 ? "" : "s");
	/* the last change first, so chained changes unwind in order */
	for (i = rs.num - 1; i >= 0; i--)
		restore_one(&rs, &rs.e[i]);
	free(rs.e);
	if (rs.failed) {
		/* keep it: restoring again is safe and may work next time */
		bpftune_log(LOG_ERR, "journal: %u value%s could not be restored; %s is kept for bpftune --restore",
			    rs.failed, rs.failed == 1 ? "" : "s", jpath);
		err = -EIO;
	} else if (ftruncate(jfd, 0) || fsync(jfd)) {
		err = -errno;
		bpftune_log(LOG_ERR, "journal: cannot clear %s: %s", jpath, strerror(errno));
	} else {
		free_keys();
	}
	if (rs.damaged && !err)
		err = -EIO;
	return err;
}

void bpftune_journal_close(void)
{
	if (compactions)
		bpftune_log(LOG_INFO, "journal: compacted %llu time%s (records of namespaces that are gone)",
			    (unsigned long long)compactions, compactions == 1 ? "" : "s");
	compactions = 0;
	num_gone = 0;
	if (observing)
		bpftune_observer_remove(&observer);
	observing = false;
	free_keys();
	if (jfd >= 0)
		close(jfd);
	jfd = -1;
}

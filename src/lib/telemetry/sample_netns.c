// SPDX-License-Identifier: GPL-2.0-only
/*
 * The network namespaces the sampler enters, kept by the writer thread
 * itself so that sampling never needs the daemon's thread: those named
 * in /run/netns (read again when the directory's mtime changes, checked
 * once per interval with one stat()) and those a task was seen in (the
 * producer passes on each event's netns cookie and pid, only when they
 * change, and the namespaces the netns tuner saw go).
 *
 * Nothing here holds a namespace open between samples.  An entry is what
 * lets us open it again -- its /run/netns path or /proc/PID/ns/net -- and
 * its device, inode and cookie, learnt the first time and checked every
 * time (inodes and pids are reused).  Picking is round robin, at most
 * --sample-netns per interval.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "telemetry/tm.h"

#define KNOWN_MAX	512
#define FEED_SLOTS	128
#define LAST_SLOTS	256	/* a power of two */
#define NETNS_DIR	"/run/netns"

struct tm_netns {
	struct bpftune_netns_ref ref;	/* cookie, dev, ino: 0 until learnt */
	bool named;
	bool mark;			/* in the latest /run/netns scan */
	bool dead;			/* to be dropped at the next pick */
};

/* the producer's news, for the writer */
struct feed {
	uint64_t cookie;
	uint32_t pid;
	bool gone;
};

static pthread_mutex_t feed_lock = PTHREAD_MUTEX_INITIALIZER;
static struct feed feed[FEED_SLOTS];
static unsigned int feed_n;

/* main thread: the pid last passed on per cookie, to pass on changes only */
static struct {
	uint64_t cookie;
	uint32_t pid;
} last[LAST_SLOTS];

/* the writer's */
static struct tm_netns known[KNOWN_MAX];
static unsigned int num_known, cursor;
static struct timespec dir_mtime;
static bool dir_seen;

static unsigned int last_slot(uint64_t cookie)
{
	return (unsigned int)((cookie * 0x9e3779b97f4a7c15ULL) >> 56) & (LAST_SLOTS - 1);
}

static void feed_put(uint64_t cookie, uint32_t pid, bool gone)
{
	bool ok;

	pthread_mutex_lock(&feed_lock);
	ok = feed_n < FEED_SLOTS;
	if (ok)
		feed[feed_n++] = (struct feed){ .cookie = cookie, .pid = pid, .gone = gone };
	pthread_mutex_unlock(&feed_lock);
	/* full: the next event from there passes it on again */
	if (!ok && !gone)
		last[last_slot(cookie)].cookie = 0;
}

void tm_netns_seen(uint64_t cookie, uint32_t pid)
{
	unsigned int h = last_slot(cookie);

	if (!pid || (last[h].cookie == cookie && last[h].pid == pid))
		return;
	last[h].cookie = cookie;
	last[h].pid = pid;
	feed_put(cookie, pid, false);
}

void tm_netns_gone(uint64_t cookie)
{
	unsigned int h = last_slot(cookie);

	if (last[h].cookie == cookie)
		last[h].cookie = 0;
	feed_put(cookie, 0, true);
}

static struct tm_netns *find_cookie(uint64_t cookie)
{
	unsigned int i;

	for (i = 0; i < num_known; i++)
		if (!known[i].dead && known[i].ref.cookie == cookie)
			return &known[i];
	return NULL;
}

static struct tm_netns *add(const char *path, bool named, uint64_t cookie)
{
	struct tm_netns *ns;

	if (num_known == KNOWN_MAX)
		return NULL;
	ns = &known[num_known++];
	memset(ns, 0, sizeof(*ns));
	tm_scopy(ns->ref.path, sizeof(ns->ref.path), path);
	ns->ref.cookie = cookie;
	ns->named = named;
	ns->mark = true;
	return ns;
}

static void apply(const struct feed *f)
{
	struct tm_netns *ns = find_cookie(f->cookie);
	char path[64];

	if (f->gone) {
		for (; ns; ns = find_cookie(f->cookie))
			ns->dead = true;
		return;
	}
	snprintf(path, sizeof(path), "/proc/%u/ns/net", f->pid);
	if (!ns) {
		add(path, false, f->cookie);
	} else if (!ns->named) {
		/* the last task seen there: the likeliest to be alive */
		tm_scopy(ns->ref.path, sizeof(ns->ref.path), path);
		ns->ref.dev = 0;
		ns->ref.ino = 0;
	}
}

static void drain_feed(void)
{
	struct feed copy[FEED_SLOTS];
	unsigned int i, n;

	pthread_mutex_lock(&feed_lock);
	n = feed_n;
	memcpy(copy, feed, n * sizeof(copy[0]));
	feed_n = 0;
	pthread_mutex_unlock(&feed_lock);
	for (i = 0; i < n; i++)
		apply(&copy[i]);
}

static struct tm_netns *find_named(const char *path)
{
	unsigned int i;

	for (i = 0; i < num_known; i++)
		if (known[i].named && !known[i].dead && !strcmp(known[i].ref.path, path))
			return &known[i];
	return NULL;
}

/* /run/netns again if it changed since the last look */
static void scan_named(void)
{
	char path[sizeof(known[0].ref.path)];
	struct dirent *d;
	struct stat st;
	unsigned int i;
	DIR *dp;

	if (stat(NETNS_DIR, &st))
		memset(&st, 0, sizeof(st));
	if (dir_seen && st.st_mtim.tv_sec == dir_mtime.tv_sec &&
	    st.st_mtim.tv_nsec == dir_mtime.tv_nsec)
		return;
	dir_seen = true;
	dir_mtime = st.st_mtim;
	for (i = 0; i < num_known; i++)
		known[i].mark = false;
	dp = opendir(NETNS_DIR);
	while (dp && (d = readdir(dp))) {
		struct tm_netns *ns;

		if (d->d_name[0] == '.' ||
		    snprintf(path, sizeof(path), NETNS_DIR "/%s", d->d_name) >= (int)sizeof(path))
			continue;
		ns = find_named(path);
		if (ns)
			ns->mark = true;
		else
			add(path, true, 0);
	}
	if (dp)
		closedir(dp);
	for (i = 0; i < num_known; i++)
		if (known[i].named && !known[i].mark)
			known[i].dead = true;
}

static void compact(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < num_known; i++)
		if (!known[i].dead)
			known[n++] = known[i];
	num_known = n;
	if (cursor >= num_known)
		cursor = 0;
}

unsigned int tm_netns_pick(struct tm_netns **picked, unsigned int max,
			   uint64_t *known_out)
{
	unsigned int i, n = 0;

	drain_feed();
	scan_named();
	compact();
	*known_out = num_known;
	if (max > BPFTUNE_SAMPLE_NETNS_MAX)
		max = BPFTUNE_SAMPLE_NETNS_MAX;
	for (i = 0; i < num_known && n < max; i++)
		picked[n++] = &known[(cursor + i) % num_known];
	if (num_known)
		cursor = (cursor + n) % num_known;
	return n;
}

/* its device, inode and cookie, the first time (or after a failure) */
static int learn(struct tm_netns *ns)
{
	uint64_t cookie;
	struct stat st;
	int fd, err;

	bpftune_cap_raise();
	fd = open(ns->ref.path, O_RDONLY | O_CLOEXEC);
	err = fd < 0 ? -errno : 0;
	bpftune_cap_lower();
	if (err)
		return err;
	err = fstat(fd, &st) ? -errno : bpftune_netns_cookie_of_fd(fd, &cookie);
	close(fd);
	if (err)
		return err;
	/* a name for the daemon's own netns: sampled as that already */
	if (bpftune_netns_is_global(cookie))
		return -EEXIST;
	/* a pid reused in another netns */
	if (ns->ref.cookie && cookie != ns->ref.cookie)
		return -ESRCH;
	if (ns->named) {
		struct tm_netns *dup = find_cookie(cookie);

		if (dup && dup != ns && !dup->named)
			dup->dead = true;
	}
	ns->ref.cookie = cookie;
	ns->ref.dev = st.st_dev;
	ns->ref.ino = st.st_ino;
	return 0;
}

int tm_netns_enter(struct tm_netns *ns, int *saved, uint64_t *cookie)
{
	int err = ns->ref.ino ? 0 : learn(ns);

	if (!err)
		err = bpftune_netns_enter_ref(&ns->ref, saved);
	if (err) {
		/* a name: look again next time; a pid: gone */
		if (ns->named && err != -EEXIST) {
			ns->ref.cookie = 0;
			ns->ref.ino = 0;
		} else {
			ns->dead = true;
		}
		return err;
	}
	*cookie = ns->ref.cookie;
	return 0;
}

void tm_netns_fini(void)
{
	num_known = 0;
	cursor = 0;
	dir_seen = false;
	feed_n = 0;
	memset(last, 0, sizeof(last));
}

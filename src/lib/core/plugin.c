// SPDX-License-Identifier: GPL-2.0-only
/*
 * Plugin trust: a tuner plugin runs as root, so it is loaded only from a
 * directory whose every path component is a real directory (no symlink)
 * owned by root and not writable by group or others, and only if the file
 * itself passes the same test.  The file is opened with O_NOFOLLOW and
 * dlopen()ed through /proc/self/fd, so what was checked is what is loaded.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/internal.h"

#define PLUGIN_SUFFIX "_tuner.so"
#define COLLECTOR_SUFFIX "_collector.so"	/* loaded only when named (--collectors) */

static int untrusted(const struct stat *st, const char *what, const char *path,
		     char *why, size_t len)
{
	if (st->st_uid != 0) {
		snprintf(why, len, "%s %s is owned by uid %u, not root", what,
			 path, (unsigned int)st->st_uid);
		return -EPERM;
	}
	if (st->st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(why, len, "%s %s is writable by %s", what, path,
			 st->st_mode & S_IWOTH ? "others" : "its group");
		return -EPERM;
	}
	return 0;
}

int bpftune_dir_open_trusted(const char *dir, char *why, size_t len)
{
	char path[PATH_MAX], walked[PATH_MAX] = "";
	char *comp, *save = NULL;
	struct stat st;
	int fd, nfd, err;

	if (!dir || !*dir) {
		snprintf(why, len, "empty plugin directory name");
		return -EINVAL;
	}
	if (dir[0] == '/') {
		snprintf(path, sizeof(path), "%s", dir);
	} else {
		char cwd[PATH_MAX];

		if (!getcwd(cwd, sizeof(cwd)))
			return -errno;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", cwd, dir) >=
		    sizeof(path)) {
			snprintf(why, len, "plugin directory name too long");
			return -ENAMETOOLONG;
		}
	}
	fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = fstat(fd, &st) ? -errno : untrusted(&st, "directory", "/", why, len);
	if (err) {
		close(fd);
		return err;
	}
	for (comp = strtok_r(path, "/", &save); comp;
	     comp = strtok_r(NULL, "/", &save)) {
		if (!strcmp(comp, "."))
			continue;
		strncat(walked, "/", sizeof(walked) - strlen(walked) - 1);
		strncat(walked, comp, sizeof(walked) - strlen(walked) - 1);
		if (!strcmp(comp, "..")) {
			snprintf(why, len, "plugin directory %s contains '..'", dir);
			err = -EINVAL;
			goto err;
		}
		if (fstatat(fd, comp, &st, AT_SYMLINK_NOFOLLOW)) {
			err = -errno;
			snprintf(why, len, "cannot stat %s: %s", walked,
				 strerror(errno));
			goto err;
		}
		if (S_ISLNK(st.st_mode)) {
			snprintf(why, len, "%s is a symlink", walked);
			err = -ELOOP;
			goto err;
		}
		if (!S_ISDIR(st.st_mode)) {
			snprintf(why, len, "%s is not a directory", walked);
			err = -ENOTDIR;
			goto err;
		}
		err = untrusted(&st, "directory", walked, why, len);
		if (err)
			goto err;
		nfd = openat(fd, comp, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
		if (nfd < 0) {
			err = -errno;
			snprintf(why, len, "cannot open %s: %s", walked,
				 strerror(errno));
			goto err;
		}
		close(fd);
		fd = nfd;
	}
	nfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	err = nfd < 0 ? -errno : nfd;
	if (nfd < 0)
		snprintf(why, len, "cannot open %s: %s", dir, strerror(errno));
err:
	close(fd);
	return err;
}

static bool has_suffix(const char *name, const char *suffix)
{
	size_t n = strlen(name), s = strlen(suffix);

	return n > s && !strcmp(name + n - s, suffix);
}

bool bpftune_plugin_is_collector(const char *name)
{
	return has_suffix(name, COLLECTOR_SUFFIX);
}

bool bpftune_plugin_name_valid(const char *name)
{
	size_t n = strlen(name), s, i;

	if (has_suffix(name, PLUGIN_SUFFIX))
		s = strlen(PLUGIN_SUFFIX);
	else if (has_suffix(name, COLLECTOR_SUFFIX))
		s = strlen(COLLECTOR_SUFFIX);
	else
		return false;
	for (i = 0; i < n - s; i++)
		if (!isalnum((unsigned char)name[i]) && name[i] != '_' &&
		    name[i] != '-')
			return false;
	return true;
}

static bool ops_valid(const struct bpftune_tuner_ops *ops, char *why,
		      size_t len)
{
	unsigned int i;

	if (ops->abi_version != BPFTUNE_ABI_VERSION) {
		snprintf(why, len, "built for plugin ABI %u, this daemon has %u",
			 ops->abi_version, (unsigned int)BPFTUNE_ABI_VERSION);
		return false;
	}
	if (!ops->name || !*ops->name || strlen(ops->name) > 32 ||
	    !ops->event_handler || !ops->full.bytes || !ops->legacy.bytes) {
		snprintf(why, len, "descriptor lacks a name, BPF objects or an event handler");
		return false;
	}
	if (ops->num_tunables > 64 || (ops->num_tunables && !ops->tunables) ||
	    ops->num_scenarios > 64 || (ops->num_scenarios && !ops->scenarios)) {
		snprintf(why, len, "bad tunable or scenario table");
		return false;
	}
	for (i = 0; i < ops->num_tunables; i++) {
		const struct bpftune_tunable_desc *d = &ops->tunables[i];

		if (!d->name || !d->num_values ||
		    d->num_values > BPFTUNE_MAX_VALUES || d->min > d->max) {
			snprintf(why, len, "tunable %u: bad name, value count or caps", i);
			return false;
		}
	}
	return true;
}

/*
 * dlopen() maps segments without checking the file is long enough, so a
 * truncated plugin would kill the daemon with SIGBUS: check with libelf
 * that it is a shared object whose loadable segments lie inside the file.
 */
static bool elf_sane(int fd, off_t size, char *why, size_t len)
{
	bool ok = false;
	GElf_Ehdr eh;
	size_t n, i;
	Elf *e;

	if (elf_version(EV_CURRENT) == EV_NONE) {
		snprintf(why, len, "libelf unusable: %s", elf_errmsg(-1));
		return false;
	}
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh) ||
	    eh.e_type != ET_DYN || elf_getphdrnum(e, &n)) {
		snprintf(why, len, "not an ELF shared object");
		goto out;
	}
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, i, &ph) ||
		    ph.p_offset + ph.p_filesz < ph.p_offset ||
		    ph.p_offset + ph.p_filesz > (GElf_Off)size) {
			snprintf(why, len, "truncated or corrupt ELF file (segment %zu lies outside it)", i);
			goto out;
		}
	}
	ok = true;
out:
	elf_end(e);
	return ok;
}

const struct bpftune_tuner_ops *bpftune_plugin_open(int dirfd,
						    const char *file,
						    void **handle, int *fdp,
						    char *why, size_t len)
{
	const struct bpftune_tuner_ops *ops;
	char path[64];
	struct stat st;
	void *h;
	int fd;

	*handle = NULL;
	*fdp = -1;
	if (!bpftune_plugin_name_valid(file)) {
		snprintf(why, len, "name does not match <name>%s or <name>%s",
			 PLUGIN_SUFFIX, COLLECTOR_SUFFIX);
		return NULL;
	}
	fd = openat(dirfd, file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, len, "%s", errno == ELOOP ? "is a symlink" :
			 strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(why, len, "not a regular file");
		goto err;
	}
	if (untrusted(&st, "file", file, why, len) || !elf_sane(fd, st.st_size, why, len))
		goto err;
	/* the fd stays open while loaded: dlopen() matches objects by path */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(why, len, "dlopen failed: %s", dlerror());
		goto err;
	}
	ops = dlsym(h, BPFTUNE_TUNER_OPS_SYMBOL);
	if (!ops) {
		snprintf(why, len, "no %s symbol: not a bpftune tuner",
			 BPFTUNE_TUNER_OPS_SYMBOL);
		dlclose(h);
		goto err;
	}
	if (!ops_valid(ops, why, len)) {
		dlclose(h);
		goto err;
	}
	*handle = h;
	*fdp = fd;
	return ops;
err:
	close(fd);
	return NULL;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * Plugin trust and descriptor checks: a plugin runs as root, so it is loaded only from a
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
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/internal.h"
#include "plugin/plugin.h"

#define TUNER_SUFFIX		"_tuner.so"
#define COLLECTOR_SUFFIX	"_collector.so"

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
	size_t n, i;

	if (has_suffix(name, TUNER_SUFFIX))
		n = strlen(name) - strlen(TUNER_SUFFIX);
	else if (has_suffix(name, COLLECTOR_SUFFIX))
		n = strlen(name) - strlen(COLLECTOR_SUFFIX);
	else
		return false;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)name[i]) && name[i] != '_' &&
		    name[i] != '-')
			return false;
	return true;
}

static bool image_valid(const struct bpftune_bpf_image *i)
{
	return i->open && i->object && i->load && i->destroy && i->configure &&
	       i->read && i->bytes;
}

static bool tables_valid(const struct bpftune_tuner_ops *ops, char *why,
			 size_t len)
{
	unsigned int i;

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
	for (i = 0; i < ops->num_scenarios; i++) {
		if (!ops->scenarios[i].name ||
		    ops->scenarios[i].payload_size > BPFTUNE_PAYLOAD_LEN) {
			snprintf(why, len, "scenario %u: no name, or a payload over %d bytes",
				 i, BPFTUNE_PAYLOAD_LEN);
			return false;
		}
	}
	return true;
}

/* The file name says what the plugin is: NAME_tuner.so, NAME_collector.so */
static bool kind_matches(const struct bpftune_tuner_ops *ops, const char *file,
			 char *why, size_t len)
{
	bool collector_file = bpftune_plugin_is_collector(file);

	if (ops->kind != BPFTUNE_KIND_TUNER && ops->kind != BPFTUNE_KIND_COLLECTOR) {
		snprintf(why, len, "declares kind %d: a plugin is a tuner or a collector",
			 (int)ops->kind);
		return false;
	}
	if (collector_file != (ops->kind == BPFTUNE_KIND_COLLECTOR)) {
		snprintf(why, len, "is a %s, but its file is named like a %s",
			 bpftune_kind_name(ops->kind),
			 collector_file ? "collector" : "tuner");
		return false;
	}
	if (ops->kind == BPFTUNE_KIND_COLLECTOR && ops->num_tunables) {
		snprintf(why, len, "a collector manages no tunable, it declares %u",
			 ops->num_tunables);
		return false;
	}
	return true;
}

static bool ops_valid(const struct bpftune_tuner_ops *ops, const char *file,
		      char *why, size_t len)
{
	/* abi_version comes first in every ABI: safe to read whatever it is */
	if (ops->abi_version != BPFTUNE_ABI_VERSION) {
		snprintf(why, len, "built for plugin ABI %u, but this daemon speaks plugin ABI %u: rebuild it against this bpftune's headers (<bpftune/libbpftune.h>)",
			 ops->abi_version, (unsigned int)BPFTUNE_ABI_VERSION);
		return false;
	}
	if (ops->ops_size < offsetof(struct bpftune_tuner_ops, telemetry) +
			    sizeof(ops->telemetry)) {
		snprintf(why, len, "descriptor of %u bytes is too short for plugin ABI %u",
			 ops->ops_size, (unsigned int)BPFTUNE_ABI_VERSION);
		return false;
	}
	if (!ops->name || !*ops->name || strlen(ops->name) > 32 ||
	    !image_valid(&ops->full) || !image_valid(&ops->legacy)) {
		snprintf(why, len, "descriptor lacks a name or BPF skeletons (define it with BPFTUNE_TUNER())");
		return false;
	}
	return kind_matches(ops, file, why, len) && tables_valid(ops, why, len);
}

/*
 * The abi_version of the descriptor, read from the file before dlopen():
 * a plugin built for another ABI may use library functions this one no
 * longer has, and would only get "undefined symbol" from dlopen().  The
 * first member is a plain integer in every ABI, stored as is in the file.
 * 0, -ENOENT without a bpftune_tuner_ops symbol, -EINVAL if unreadable.
 */
static int file_abi_version(Elf *e, int fd, unsigned int *ver)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh, dsh;
	GElf_Sym sym;
	size_t i, n;

	while ((scn = elf_nextscn(e, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM ||
		    !sh.sh_entsize || !(d = elf_getdata(scn, NULL)))
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < n; i++) {
			const char *name;

			if (!gelf_getsym(d, i, &sym) || sym.st_shndx == SHN_UNDEF)
				continue;
			name = elf_strptr(e, sh.sh_link, sym.st_name);
			if (!name || strcmp(name, BPFTUNE_TUNER_OPS_SYMBOL))
				continue;
			if (!gelf_getshdr(elf_getscn(e, sym.st_shndx), &dsh) ||
			    dsh.sh_type != SHT_PROGBITS || sym.st_value < dsh.sh_addr ||
			    sym.st_value + sizeof(*ver) > dsh.sh_addr + dsh.sh_size ||
			    pread(fd, ver, sizeof(*ver), dsh.sh_offset +
				  (sym.st_value - dsh.sh_addr)) != sizeof(*ver))
				return -EINVAL;
			return 0;
		}
	}
	return -ENOENT;
}

static bool abi_matches(Elf *e, int fd, char *why, size_t len)
{
	unsigned int ver = 0;
	int err = file_abi_version(e, fd, &ver);

	if (err == -ENOENT)
		snprintf(why, len, "no %s symbol: not a bpftune tuner",
			 BPFTUNE_TUNER_OPS_SYMBOL);
	else if (err)
		snprintf(why, len, "its %s cannot be read", BPFTUNE_TUNER_OPS_SYMBOL);
	else if (ver != BPFTUNE_ABI_VERSION)
		snprintf(why, len, "built for plugin ABI %u, but this daemon speaks plugin ABI %u: rebuild it against this bpftune's headers (<bpftune/libbpftune.h>)",
			 ver, (unsigned int)BPFTUNE_ABI_VERSION);
	return !err && ver == BPFTUNE_ABI_VERSION;
}

/*
 * dlopen() maps segments without checking the file is long enough, so a
 * truncated plugin would kill the daemon with SIGBUS: check with libelf
 * that it is a shared object whose loadable segments lie inside the file,
 * and that its descriptor is of this ABI.
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
	ok = abi_matches(e, fd, why, len);
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
			 TUNER_SUFFIX, COLLECTOR_SUFFIX);
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
	if (!ops_valid(ops, file, why, len)) {
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

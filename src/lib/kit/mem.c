// SPDX-License-Identifier: GPL-2.0-only
/*
 * This machine's memory in pages, for the caps and ceilings of the memory
 * sysctls (tcp_mem, udp_mem...), which count pages.
 */
#include <sys/sysinfo.h>
#include <unistd.h>

#include "core/internal.h"
#include "kit/proc_file.h"

/* page size, at least 4096 */
static long page_size(void)
{
	long size = sysconf(_SC_PAGESIZE);

	return size < 4096 ? 4096 : size;
}

long bpftune_ram_quarter_pages(void)
{
	struct sysinfo si;
	long pages;

	if (sysinfo(&si))
		return -1;
	pages = (long)((unsigned long long)si.totalram * si.mem_unit /
		       page_size() / 4);
	return pages > 0 ? pages : -1;
}

long bpftune_mem_available_pages(void)
{
	static const char *const key[] = { "MemAvailable" };
	struct bpftune_proc_value kb;

	if (bpftune_proc_file_lookup("/proc/meminfo", BPFTUNE_PROC_KEYVAL,
				     key, &kb, 1) != 1 || kb.i < 0)
		return -1;
	return kb.i / (page_size() / 1024);
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The perf collector: counting perf events per CPU, read every sample
 * interval into perf_counts; perf_counters says once per run which
 * counters this machine has and why the others are missing.
 */
#ifndef PERF_COLLECTOR_H
#define PERF_COLLECTOR_H

#define PERF_CACHE_CFG(c, op, res)					\
	(PERF_COUNT_HW_CACHE_##c | (PERF_COUNT_HW_CACHE_OP_##op << 8) |	\
	 (PERF_COUNT_HW_CACHE_RESULT_##res << 16))

/*
 * X(id, column, type, config, unit, description): the software counters
 * first (never multiplexed), then the hardware and cache ones (each its
 * own group: the kernel multiplexes them over the PMU's counters, and
 * their values are scaled).
 */
#define PERF_COUNTERS(X)						\
	X(CPU_CLOCK, "cpu_clock", SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, "ns",	\
	  "time the CPU clock counted (busy or idle)")			\
	X(TASK_CLOCK, "task_clock", SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "ns",	\
	  "time tasks ran on the CPU")					\
	X(CONTEXT_SWITCHES, "context_switches", SOFTWARE,		\
	  PERF_COUNT_SW_CONTEXT_SWITCHES, "switches", "context switches")	\
	X(CPU_MIGRATIONS, "cpu_migrations", SOFTWARE,			\
	  PERF_COUNT_SW_CPU_MIGRATIONS, "migrations", "tasks migrated to the CPU") \
	X(PAGE_FAULTS, "page_faults", SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS,	\
	  "faults", "page faults")					\
	X(MINOR_FAULTS, "minor_faults", SOFTWARE,			\
	  PERF_COUNT_SW_PAGE_FAULTS_MIN, "faults", "minor page faults")	\
	X(MAJOR_FAULTS, "major_faults", SOFTWARE,			\
	  PERF_COUNT_SW_PAGE_FAULTS_MAJ, "faults", "major page faults (I/O)") \
	X(CYCLES, "cycles", HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "cycles",	\
	  "CPU cycles")							\
	X(INSTRUCTIONS, "instructions", HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,	\
	  "instructions", "instructions retired")			\
	X(BRANCH_MISSES, "branch_misses", HARDWARE,			\
	  PERF_COUNT_HW_BRANCH_MISSES, "branches", "mispredicted branches") \
	X(CACHE_MISSES, "cache_misses", HARDWARE, PERF_COUNT_HW_CACHE_MISSES,	\
	  "misses", "last-level cache misses")				\
	X(L1D_LOADS, "l1d_loads", HW_CACHE, PERF_CACHE_CFG(L1D, READ, ACCESS),	\
	  "loads", "L1 data cache loads")				\
	X(L1D_LOAD_MISSES, "l1d_load_misses", HW_CACHE,			\
	  PERF_CACHE_CFG(L1D, READ, MISS), "misses", "L1 data cache load misses") \
	X(L1I_LOADS, "l1i_loads", HW_CACHE, PERF_CACHE_CFG(L1I, READ, ACCESS),	\
	  "loads", "L1 instruction cache loads")			\
	X(L1I_LOAD_MISSES, "l1i_load_misses", HW_CACHE,			\
	  PERF_CACHE_CFG(L1I, READ, MISS), "misses", "L1 instruction cache load misses") \
	X(DTLB_LOADS, "dtlb_loads", HW_CACHE, PERF_CACHE_CFG(DTLB, READ, ACCESS), \
	  "loads", "data TLB loads")					\
	X(DTLB_LOAD_MISSES, "dtlb_load_misses", HW_CACHE,		\
	  PERF_CACHE_CFG(DTLB, READ, MISS), "misses", "data TLB load misses") \
	X(ITLB_LOADS, "itlb_loads", HW_CACHE, PERF_CACHE_CFG(ITLB, READ, ACCESS), \
	  "loads", "instruction TLB loads")				\
	X(ITLB_LOAD_MISSES, "itlb_load_misses", HW_CACHE,		\
	  PERF_CACHE_CFG(ITLB, READ, MISS), "misses", "instruction TLB load misses")

#define PERF_C_ENUM(id, ...)	PERF_C_##id,
enum perf_counter {
	PERF_COUNTERS(PERF_C_ENUM)
	PERF_C_NUM,
	PERF_C_NUM_SOFTWARE = PERF_C_CYCLES,	/* software ones come first */
};
#undef PERF_C_ENUM


enum perf_table {
	PERF_TABLE_COUNTS,	/* sampled: one row per CPU */
	PERF_TABLE_COUNTERS,	/* once per run: one row per counter */
};

#endif

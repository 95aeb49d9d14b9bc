// SPDX-License-Identifier: GPL-2.0-only
/*
 * One tiny program per hook type.  The daemon loads and attaches each on
 * its own at start-up to learn what this kernel allows (see src/lib/loader/support.c;
 * fentry and tp_btf are probed there with bpf_prog_load() directly, so
 * that libbpf does not parse the kernel BTF for their attach targets).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

SEC("kprobe/tcp_sendmsg")
int BPF_KPROBE(probe_kprobe)
{
	return 0;
}

SEC("raw_tp/inet_sock_set_state")
int BPF_PROG(probe_raw_tp)
{
	return 0;
}

SEC("tracepoint/sock/inet_sock_set_state")
int probe_tracepoint(void *ctx)
{
	return 0;
}

SEC("cgroup/sysctl")
int probe_cgroup_sysctl(struct bpf_sysctl *ctx)
{
	return 1;
}

SEC("sockops")
int probe_sockops(struct bpf_sock_ops *ctx)
{
	return 1;
}

char LICENSE[] SEC("license") = "GPL";

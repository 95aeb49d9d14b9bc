/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Pressure-gated observation: a hot BPF program (one that runs on nearly
 * every packet) stays loaded but is attached only while its gate is open.
 *
 * A tuner declares in its descriptor (BPFTUNE_GATES()) one gate per hot
 * hook: how the library knows the hook may be needed.  After init() the
 * library owns the program's bpf_link: it detaches it (the gate starts
 * closed; a window gate opens its first window), looks at the
 * gate's reading every check interval (the telemetry sample interval, 1 s),
 * attaches the program when the reading moves and detaches it again after
 * @calm checks in a row without movement.  A gate that cannot be read
 * opens (observation is never lost to an error).  Kinds:
 *
 *  - BPFTUNE_GATE_COUNTER: @read returns a counter of the kernel's that
 *    moves before the limit is reached (softnet_stat time_squeeze, Ip
 *    ReasmReqds, ...), read with the kit (proc.h);
 *  - BPFTUNE_GATE_EVENT: a tiny always-attached program on a rare
 *    tracepoint (skb:kfree_skb with a reason, sock:sock_rcvqueue_full...)
 *    adds to the __u64 global @counter of the tuner's BPF object; the
 *    gate opens when it moves (or, with @read as well, when the sum of
 *    the two moves: a counter of the kernel's that sees part of it);
 *  - BPFTUNE_GATE_WINDOW: no reading exists: the program is attached for
 *    @window_ms every @every_ms, and stays attached while the tuner says,
 *    with bpftune_gate_seen(), that the window saw the condition.  With
 *    @read as well (a counter that sees part of the condition: the
 *    global netns's of a per-netns one), its movement opens it at once.
 *
 * Asleep: a gate may name @wake, tracepoints that fire whenever its hook
 * could be needed again (any received packet, for a network hook).  When
 * every gate of the daemon is closed, has a @wake and has been calm for
 * its calm period, the library stops looking at them: it attaches one
 * tiny program of its own to the @wake tracepoints and sleeps, so an
 * idle machine does not wake the daemon at all.  The first hit wakes it,
 * that program is detached and every gate is looked at at once (a window
 * gate opens a window).  A gate without @wake keeps the daemon checking.
 *
 * -S names each gate of a tuner that will run; -q status, -q tuners and
 * the metrics also give the share of time its hook was attached.  Programs a mode does not load (a fentry variant
 * that only runs for the rare case, say) match no gate: nothing to gate.
 */
#ifndef BPFTUNE_GATE_H
#define BPFTUNE_GATE_H

#include <stdint.h>

#pragma GCC visibility push(default)

struct bpftune_tuner;

enum bpftune_gate_kind {
	BPFTUNE_GATE_COUNTER,
	BPFTUNE_GATE_EVENT,
	BPFTUNE_GATE_WINDOW,
};

struct bpftune_gate {
	/*
	 * Program names or hook groups ("<hook>" of "<hook>__<variant>"),
	 * space-separated: programs that only work together share a gate.
	 */
	const char *hook;
	enum bpftune_gate_kind kind;
	/*
	 * What opens it, for status: "softnet_stat time_squeeze+dropped";
	 * a window gate's window and period are said by the library from
	 * @window_ms and @every_ms: its @what names its reading, if any.
	 */
	const char *what;
	/*
	 * COUNTER: the reading; 0 or -errno (the gate then opens).
	 * WINDOW: optional, opens it between windows when it moves.
	 * EVENT: optional, added to @counter.
	 */
	int (*read)(struct bpftune_tuner *tuner, void *priv, uint64_t *value);
	/* EVENT: name of a __u64 global of the tuner's BPF object */
	const char *counter;
	/* checks without movement before the hook is detached; 0: 10 */
	unsigned int calm;
	/* WINDOW: attached @window_ms (0: 200) every @every_ms (0: 5000) */
	unsigned int window_ms;
	unsigned int every_ms;
	/*
	 * Optional: name of a __u32 global of the tuner's BPF object that
	 * its gated programs check first, returning at once when it is
	 * non-zero (0, the default, lets them run).  Where an attach and
	 * detach cost more than the library's budget for the gate (0.2 %
	 * of a CPU; patching kernel text is dear under emulation), the
	 * library keeps the link attached and gates with the flag instead:
	 * a WINDOW gate at its period, a COUNTER or EVENT gate if cycling
	 * once per calm period would cost that much.  Without a flag a
	 * window gate's windows are spaced out instead.
	 */
	const char *flag;
	/*
	 * Optional: tracepoint names (raw, without the group), space-
	 * separated, one of which fires whenever the hook could be needed
	 * again: "netif_receive_skb" for a hook on the receive path.  With
	 * it the gate may sleep on an idle machine (above).
	 */
	const char *wake;
};

/* in BPFTUNE_TUNER(): the gates of the tuner's hot hooks */
#define BPFTUNE_GATES(a)	.gates = (a), .num_gates = sizeof(a) / sizeof((a)[0])

/*
 * The gated hook @hook saw the condition (from an event handler): it
 * stays attached for another calm period; closed (the report was read
 * after its window ended), it is attached again at once.
 */
void bpftune_gate_seen(struct bpftune_tuner *tuner, const char *hook);

#pragma GCC visibility pop

#endif /* BPFTUNE_GATE_H */

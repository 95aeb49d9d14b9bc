#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# run-in-vm.sh: run a command as root inside a qemu (TCG) guest that boots one
# of Debian's kernel packages.  The guest sees the host root file system
# read-only with a tmpfs overlay on top, so it can write anywhere without
# touching the host, and runs the command in the same directory as on the
# host.  The command's output is streamed; its exit status is ours.
# See test/vm/README.md.

set -u -o pipefail

E_TIMEOUT=124
E_INFRA=125

usage() {
	cat <<EOF
Usage: $0 [OPTIONS] KERNEL [--] COMMAND [ARG...]
       $0 --fetch KERNEL...
       $0 --list

Boot Debian's kernel KERNEL in a qemu TCG guest and run COMMAND there as root,
in the current directory (same absolute path as on the host).  KERNEL is a
version prefix such as 6.1 or 6.12 (the newest matching linux-image package),
a full kernel release (6.1.0-56-amd64) or a package name (linux-image-...).

Options:
  -t, --timeout SEC   kill the guest after SEC seconds (default \$VM_TIMEOUT or 900)
  -e, --env VAR=VAL   set VAR in the command's environment (repeatable)
  -C, --dir DIR       run the command in DIR instead of the current directory
  -m, --mem SIZE      guest memory (default \$VM_MEM or 2G)
  -s, --smp N         guest CPUs (default \$VM_SMP or 2)
  -k, --keep          keep the run directory (console log, status) afterwards
      --systemd       boot with systemd as PID 1 (the host's /lib/systemd/systemd)
                      and run COMMAND as a service once basic.target is reached
  -q, --quiet         no "vm:" progress lines on stderr
      --fetch         only download and prepare the kernels, busybox and kmod
      --list          list the prepared kernels in the cache
  -h, --help          this help

Exit status: COMMAND's exit status; $E_TIMEOUT if the guest timed out; $E_INFRA if the
guest could not be prepared or started, never reported a status, or the
kernel logged an oops/BUG/WARNING while COMMAND ran (VM_SPLAT_FATAL=0 to
only report those).

Environment: VM_CACHE (default test/vm/cache), VM_TIMEOUT, VM_MEM, VM_SMP,
VM_TCG_THREAD (single, the default, or multi: see the comment at its use),
VM_INIT (bash or systemd, as --systemd), VM_QEMU (qemu binary), VM_FLAVOUR (kernel flavour, default amd64), VM_QEMU_ARGS (extra qemu arguments), VM_APPEND (extra
kernel command line), VM_REFRESH=1 (look for a newer kernel package even if
one matching KERNEL is cached), VM_KEEP=1, VM_SPLAT_FATAL.
EOF
}

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P) || exit $E_INFRA
CACHE=${VM_CACHE:-$VM_DIR/cache}
TIMEOUT=${VM_TIMEOUT:-900}
MEM=${VM_MEM:-2G}
SMP=${VM_SMP:-2}
# One host thread runs all vCPUs.  With thread=multi, kernel text patching
# (static keys flipped when a tracepoint or kprobe is attached, int3-based
# text_poke_bp) races with the other vCPU's stale translated code: guests
# oopsed on "int3" in syscall_exit_to_user_mode_prepare and in
# skb_page_frag_refill.  Single-threaded TCG keeps cross-modification exact.
TCG_THREAD=${VM_TCG_THREAD:-single}
QEMU=${VM_QEMU:-qemu-system-x86_64}
KEEP=${VM_KEEP:-0}
REFRESH=${VM_REFRESH:-0}
SPLAT_FATAL=${VM_SPLAT_FATAL:-1}
ARCH=${VM_FLAVOUR:-amd64}
QUIET=0
INIT=${VM_INIT:-bash}		# bash: guest-init.sh is PID 1; systemd
MODE=run
CWD=$PWD
ENVS=()
POS=()

info() { [ "$QUIET" = 1 ] || echo "vm: $*" >&2; }
fail() { echo "vm: ERROR: $*" >&2; exit $E_INFRA; }

while [ $# -gt 0 ]; do
	case $1 in
	-t|--timeout)	[ $# -ge 2 ] || fail "$1 needs an argument"; TIMEOUT=$2; shift 2 ;;
	-e|--env)	[ $# -ge 2 ] || fail "$1 needs an argument"; ENVS+=("$2"); shift 2 ;;
	-C|--dir)	[ $# -ge 2 ] || fail "$1 needs an argument"; CWD=$2; shift 2 ;;
	-m|--mem)	[ $# -ge 2 ] || fail "$1 needs an argument"; MEM=$2; shift 2 ;;
	-s|--smp)	[ $# -ge 2 ] || fail "$1 needs an argument"; SMP=$2; shift 2 ;;
	-k|--keep)	KEEP=1; shift ;;
	--systemd)	INIT=systemd; shift ;;
	-q|--quiet)	QUIET=1; shift ;;
	--fetch)	MODE=fetch; shift ;;
	--list)		MODE=list; shift ;;
	-h|--help)	usage; exit 0 ;;
	--)		shift; POS+=("$@"); break ;;
	-*)		[ ${#POS[@]} -eq 0 ] || { POS+=("$@"); break; }
			echo "vm: unknown option $1" >&2; usage >&2; exit $E_INFRA ;;
	*)		POS+=("$1"); shift
			# everything after KERNEL belongs to the command
			if [ "$MODE" = run ]; then
				[ "${1-}" = -- ] && shift
				POS+=("$@"); break
			fi ;;
	esac
done

[[ $TIMEOUT =~ ^[0-9]+$ ]] && [ "$TIMEOUT" -gt 0 ] || fail "bad timeout '$TIMEOUT'"
for e in "${ENVS[@]}"; do
	[[ $e =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] || fail "bad --env '$e' (want VAR=VALUE)"
done

# ---- cache, lock, tools ---------------------------------------------------

mkdir -p "$CACHE/debs" "$CACHE/kernels" "$CACHE/runs" "$CACHE/logs" ||
	fail "cannot create the cache in $CACHE"
CACHE=$(cd "$CACHE" && pwd -P)

# One guest (and one download) at a time.  qemu gets the lock fd closed.
exec 9>"$CACHE/.lock" || fail "cannot open $CACHE/.lock"
if ! flock -n 9; then
	info "waiting for another VM run to finish (lock $CACHE/.lock)"
	lock_t0=$SECONDS
	flock 9 || fail "cannot lock $CACHE/.lock"
	info "got the lock after $((SECONDS - lock_t0))s"
fi

APT_UPDATED=0
apt_download() {	# apt_download PACKAGE...: into $CACHE/debs
	local opts=()
	command -v apt-get >/dev/null || fail "apt-get not found: cannot download $*"
	# apt's _apt sandbox user cannot write into a root-owned cache
	[ "$(id -u)" = 0 ] && opts=(-o APT::Sandbox::User=root)
	info "downloading $*"
	(cd "$CACHE/debs" && apt-get -q download "${opts[@]}" "$@" >&2) ||
		fail "apt-get download $* failed (run apt-get update?)"
}

newest_deb() {	# newest_deb PACKAGE
	local f
	f=$(ls -1 "$CACHE/debs/$1"_*.deb 2>/dev/null | sort -V | tail -n 1)
	[ -n "$f" ] || fail "no .deb for $1 in $CACHE/debs"
	echo "$f"
}

TOOLS=$CACHE/tools
BUSYBOX=$TOOLS/busybox/bin/busybox
KMOD=$TOOLS/kmod/bin/kmod
DEPMOD=$TOOLS/bin/depmod

prepare_tools() {
	[ -f "$TOOLS/.ready" ] && return
	local tmp=$TOOLS.tmp deb
	rm -rf "$tmp"
	mkdir -p "$tmp/bin" || fail "cannot create $tmp"
	apt_download busybox-static kmod
	deb=$(newest_deb busybox-static) || exit $E_INFRA
	dpkg-deb -x "$deb" "$tmp/busybox" || fail "cannot extract $deb"
	deb=$(newest_deb kmod) || exit $E_INFRA
	dpkg-deb -x "$deb" "$tmp/kmod" || fail "cannot extract $deb"
	[ -x "$tmp/busybox/bin/busybox" ] || fail "busybox-static has no bin/busybox"
	[ -x "$tmp/kmod/bin/kmod" ] || fail "kmod has no bin/kmod"
	ln -s ../kmod/bin/kmod "$tmp/bin/depmod"
	"$tmp/bin/depmod" --version >/dev/null || fail "the extracted kmod does not run on this host"
	touch "$tmp/.ready"
	rm -rf "$TOOLS" && mv "$tmp" "$TOOLS" || fail "cannot move $tmp to $TOOLS"
	rm -f "$CACHE"/debs/busybox-static_*.deb "$CACHE"/debs/kmod_*.deb
}

# ---- kernels ----------------------------------------------------------------

# Kernel releases in the cache matching PATTERN, newest last.
cached_kernels() {
	local re=$1 d
	for d in "$CACHE"/kernels/*/; do
		d=${d%/}; d=${d##*/}
		[ -f "$CACHE/kernels/$d/.ready" ] || continue
		[[ $d =~ $re ]] && echo "$d"
	done | sort -V
}

# Sets PKG and KVER for PATTERN.
resolve_kernel() {
	local pat=$1 esc re cands c
	PKG='' KVER=''
	pat=${pat#linux-image-}
	esc=$(printf '%s' "$pat" | sed 's/[].+*?^$()[{}|\\]/\\&/g')
	if [[ $pat == *-$ARCH ]]; then
		re="^$esc\$"			# a full kernel release
	else
		# 6.1 -> 6.1.0-56-amd64, 6.12 -> 6.12.117+deb12-amd64; not
		# other flavours (-rt-amd64, -cloud-amd64) unless VM_FLAVOUR says so
		re="^$esc([.][0-9]+)*(-[0-9]+)?([+]deb[0-9]+)?-$ARCH\$"
	fi
	if [ "$REFRESH" != 1 ]; then
		KVER=$(cached_kernels "$re" | tail -n 1)
		if [ -n "$KVER" ]; then
			PKG=linux-image-$KVER
			return 0
		fi
	fi
	while :; do
		cands=$(apt-cache pkgnames linux-image- 2>/dev/null |
			sed -n 's/^linux-image-//p' | grep -E "$re" | sort -rV)
		for c in $cands; do
			# only real packages that apt can download
			if apt-cache show --no-all-versions "linux-image-$c" >/dev/null 2>&1; then
				KVER=$c PKG=linux-image-$c
				return 0
			fi
		done
		[ "$APT_UPDATED" = 0 ] && [ "$(id -u)" = 0 ] || break
		info "no linux-image package matches '$1': running apt-get update"
		apt-get -q update >&2 || break
		APT_UPDATED=1
	done
	KVER=$(cached_kernels "$re" | tail -n 1)
	[ -n "$KVER" ] || fail "no Debian kernel package matches '$1' (tried ${re})"
	PKG=linux-image-$KVER
	info "apt has no package for '$1'; using the cached $KVER"
}

# Extract vmlinuz and modules of $PKG into $CACHE/kernels/$KVER, with a
# modules.dep made by kmod's depmod (the package leaves that to postinst).
prepare_kernel() {
	local kdir=$CACHE/kernels/$KVER tmp deb d
	[ -f "$kdir/.ready" ] && return
	tmp=$kdir.tmp
	apt_download "$PKG"
	deb=$(newest_deb "$PKG") || exit $E_INFRA
	rm -rf "$tmp"
	mkdir -p "$tmp" || fail "cannot create $tmp"
	info "extracting $(basename "$deb")"
	dpkg-deb -x "$deb" "$tmp" || fail "cannot extract $deb"
	for d in boot lib/modules; do	# merged-/usr packages
		if [ ! -e "$tmp/$d" ] && [ -e "$tmp/usr/$d" ]; then
			mkdir -p "$(dirname "$tmp/$d")" && mv "$tmp/usr/$d" "$tmp/$d"
		fi
	done
	[ -f "$tmp/boot/vmlinuz-$KVER" ] || fail "$deb has no boot/vmlinuz-$KVER"
	[ -d "$tmp/lib/modules/$KVER" ] || fail "$deb has no lib/modules/$KVER"
	rm -rf "${tmp:?}/usr" "${tmp:?}/etc"
	"$DEPMOD" -b "$tmp" "$KVER" || fail "depmod for $KVER failed"
	echo "$PKG $(dpkg-deb -f "$deb" Version)" >"$tmp/PACKAGE"
	touch "$tmp/.ready"
	rm -rf "$kdir" && mv "$tmp" "$kdir" || fail "cannot move $tmp to $kdir"
	rm -f "$deb"
}

# Print the module files (relative to MODDIR) needed for ROOT modules, each
# after its dependencies; built-in modules are skipped.
module_order() {
	local mdir=$1 line p n d
	shift
	local -A deps=() path=() builtin=() seen=()
	local out=()
	while IFS= read -r line; do
		p=${line%%:*}; n=${p##*/}; n=${n%%.ko*}; n=${n//-/_}
		path[$n]=$p
		deps[$n]=${line#*:}
	done <"$mdir/modules.dep"
	while IFS= read -r p; do
		n=${p##*/}; n=${n%%.ko*}; builtin[${n//-/_}]=1
	done <"$mdir/modules.builtin"
	visit() {
		local n=${1//-/_} d dn
		[ -z "${seen[$n]-}" ] || return 0
		seen[$n]=1
		[ -z "${builtin[$n]-}" ] || return 0
		[ -n "${path[$n]-}" ] || { echo "vm: ERROR: module $n not found in $mdir" >&2; return 1; }
		for d in ${deps[$n]}; do
			dn=${d##*/}; dn=${dn%%.ko*}
			visit "$dn" || return 1
		done
		out+=("${path[$n]}")
	}
	for n in "$@"; do
		visit "$n" || return 1
	done
	printf '%s\n' "${out[@]}"
}

INITRD_MODULES="virtio_pci 9pnet_virtio 9p overlay"

prepare_initramfs() {
	local kdir=$CACHE/kernels/$KVER initrd st m i=0 name
	initrd=$kdir/initramfs.cpio.gz
	if [ -f "$initrd" ] && [ "$initrd" -nt "$VM_DIR/initramfs-init" ] &&
	   [ "$initrd" -nt "$VM_DIR/run-in-vm.sh" ]; then
		return
	fi
	local mods
	# shellcheck disable=SC2086  # a list of names
	mods=$(module_order "$kdir/lib/modules/$KVER" $INITRD_MODULES) ||
		fail "cannot work out the initramfs modules for $KVER"
	st=$(mktemp -d "$CACHE/initramfs.XXXXXX") || fail "mktemp failed"
	mkdir -p "$st/bin" "$st/dev" "$st/proc" "$st/sys" "$st/modules"
	cp "$BUSYBOX" "$st/bin/busybox" && ln -s busybox "$st/bin/sh" &&
		install -m 0755 "$VM_DIR/initramfs-init" "$st/init" ||
		{ rm -rf "$st"; fail "cannot stage the initramfs"; }
	for m in $mods; do
		i=$((i + 1))
		name=${m##*/}; name=$(printf '%03d-%s.ko' "$i" "${name%%.ko*}")
		case $m in
		*.ko.xz)  xz -dc "$kdir/lib/modules/$KVER/$m" ;;
		*.ko.zst) zstd -qdc "$kdir/lib/modules/$KVER/$m" ;;
		*.ko.gz)  gzip -dc "$kdir/lib/modules/$KVER/$m" ;;
		*)        cat "$kdir/lib/modules/$KVER/$m" ;;
		esac >"$st/modules/$name" || { rm -rf "$st"; fail "cannot unpack $m"; }
	done
	(cd "$st" && find . -mindepth 1 | LC_ALL=C sort |
		"$BUSYBOX" cpio -o -H newc -R 0:0 2>/dev/null) | gzip -1 >"$initrd.tmp" ||
		{ rm -rf "$st"; fail "cannot write $initrd"; }
	rm -rf "$st"
	mv "$initrd.tmp" "$initrd" || fail "cannot write $initrd"
	info "built $(basename "$initrd") for $KVER ($i modules: $(echo "$mods" | sed 's|.*/||' | paste -sd ' '))"
}

prepare() {	# prepare PATTERN: sets KVER and KDIR
	prepare_tools
	resolve_kernel "$1"
	prepare_kernel
	prepare_initramfs
	KDIR=$CACHE/kernels/$KVER
}

case $MODE in
list)
	cached_kernels '.' | while read -r k; do
		printf '%-28s %s\n' "$k" "$(cat "$CACHE/kernels/$k/PACKAGE" 2>/dev/null)"
	done
	exit 0 ;;
fetch)
	[ ${#POS[@]} -gt 0 ] || fail "--fetch needs at least one KERNEL"
	for p in "${POS[@]}"; do
		prepare "$p"
		info "$p -> $KVER ($(cat "$KDIR/PACKAGE"))"
	done
	command -v "$QEMU" >/dev/null ||
		fail "$QEMU not found (apt-get install qemu-system-x86)"
	exit 0 ;;
esac

[ ${#POS[@]} -ge 2 ] || { usage >&2; exit $E_INFRA; }
PATTERN=${POS[0]}
CMD=("${POS[@]:1}")

command -v "$QEMU" >/dev/null || fail "$QEMU not found (apt-get install qemu-system-x86)"
[ -d "$CWD" ] || fail "no directory $CWD"
CWD=$(cd "$CWD" && pwd) || fail "cannot cd to $CWD"
BASH_BIN=$(readlink -f "$(command -v bash)") || fail "no bash"

prepare "$PATTERN"

# ---- the run ----------------------------------------------------------------

RUN='' QPID='' SPID=''
# shellcheck disable=SC2317  # invoked from the traps
cleanup() {
	if [ -n "$QPID" ] && kill -0 "$QPID" 2>/dev/null; then
		kill -TERM "$QPID" 2>/dev/null
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			kill -0 "$QPID" 2>/dev/null || break
			sleep 0.2
		done
		kill -KILL "$QPID" 2>/dev/null
		wait "$QPID" 2>/dev/null
	fi
	[ -z "$SPID" ] || kill "$SPID" 2>/dev/null
	if [ -n "$RUN" ] && [ -d "$RUN" ]; then
		cp -f "$RUN/console.log" "$CACHE/logs/console-$KVER.log" 2>/dev/null
		if [ "$KEEP" = 1 ]; then
			info "run directory kept: $RUN"
		else
			rm -rf "$RUN"
		fi
	fi
}
trap cleanup EXIT
trap 'echo "vm: interrupted" >&2; exit 130' INT
trap 'echo "vm: terminated" >&2; exit 143' TERM
trap 'exit 129' HUP

RUN=$(mktemp -d "$CACHE/runs/run.XXXXXX") || fail "mktemp failed"
chmod 0755 "$RUN"

shq() { printf "'%s'" "${1//\'/\'\\\'\'}"; }

# The guest's PATH is the host's.  pyenv shims are bash scripts that fork a
# dozen times per call: 3-4 s per python3 under TCG against 0.7 s for the
# interpreter itself.  Put the interpreter pyenv would pick in front
# (VM_PYENV_SHORTCUT=0 to keep the shims only).
GUEST_PATH=$PATH:/usr/local/sbin:/usr/sbin:/sbin
if [ "${VM_PYENV_SHORTCUT:-1}" = 1 ] && [[ :$PATH: == *pyenv*/shims:* ]] &&
   command -v pyenv >/dev/null; then
	while IFS= read -r p; do
		[ -d "$p/bin" ] && GUEST_PATH=$p/bin:$GUEST_PATH
	done < <(cd "$CWD" && pyenv prefix 2>/dev/null | tr ':' '\n' | tac)
fi
{
	echo "VM_CTL=$(shq "$RUN")"
	echo "VM_STAGE2=$(shq "$VM_DIR/guest-init.sh")"
	echo "VM_BASH=$(shq "$BASH_BIN")"
	echo "VM_KVER=$(shq "$KVER")"
	echo "VM_MODDIR=$(shq "$KDIR/lib/modules/$KVER")"
	echo "VM_KMOD=$(shq "$KMOD")"
	echo "VM_BUSYBOX=$(shq "$BUSYBOX")"
	echo "VM_CWD=$(shq "$CWD")"
	echo "VM_PATH=$(shq "$GUEST_PATH")"
	echo "VM_ROOT_CACHE=$(shq "${VM_ROOT_CACHE:-loose}")"
	echo "VM_INIT=$(shq "$INIT")"
	echo "VM_SYSTEMD_STAGE2=$(shq "$VM_DIR/systemd-stage2.sh")"
} >"$RUN/vm.env" || fail "cannot write $RUN/vm.env"
{
	echo "# SPDX-License-Identifier: GPL-2.0-only"
	for e in "${ENVS[@]}"; do
		printf 'export %s=%q\n' "${e%%=*}" "${e#*=}"
	done
	printf 'exec'
	printf ' %q' "${CMD[@]}"
	echo
} >"$RUN/cmd.sh" || fail "cannot write $RUN/cmd.sh"

# tsc=reliable: TCG's TSC is derived from the host clock and the same on all
# vCPUs, but 6.1 marks it unstable and falls back to the (emulated MMIO)
# HPET, which also takes clock_gettime out of the vDSO.
APPEND="console=ttyS0,115200 rdinit=/init panic=-1 loglevel=5 mitigations=off tsc=reliable"
APPEND+=" 8250.nr_uarts=4 printk.time=1"
# systemd: the test target only (basic.target and the command), no
# colours or status lines that would make the console log unreadable
[ "$INIT" = systemd ] &&
	APPEND+=" systemd.unit=vm-test.target systemd.show_status=false systemd.log_color=0"
APPEND+=" ${VM_APPEND-}"

# shellcheck disable=SC2054,SC2206  # commas are qemu syntax; VM_QEMU_ARGS splits
QEMU_CMD=("$QEMU" -nodefaults -no-user-config -nographic -no-reboot
	-accel "tcg,thread=$TCG_THREAD" -cpu max -m "$MEM" -smp "$SMP"
	-kernel "$KDIR/boot/vmlinuz-$KVER" -initrd "$KDIR/initramfs.cpio.gz"
	-append "$APPEND"
	-fsdev "local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap"
	-device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot
	-fsdev "local,id=vmctl,path=$RUN,security_model=none,multidevs=remap"
	-device virtio-9p-pci,fsdev=vmctl,mount_tag=vmctl
	-device virtio-rng-pci
	-monitor none
	-serial "file:$RUN/console.log"
	-serial stdio
	${VM_QEMU_ARGS-})

[ "$INIT" = systemd ] && [ ! -x /lib/systemd/systemd ] &&
	fail "--systemd: no /lib/systemd/systemd on this host (apt-get install systemd)"
info "booting $KVER ($(cat "$KDIR/PACKAGE")), init $INIT, timeout ${TIMEOUT}s: ${CMD[*]}"
T0=$EPOCHREALTIME
# If this script dies without its traps running (SIGKILL), the kernel kills
# qemu too.
PDEATH=()
setpriv --help 2>/dev/null | grep -q -- --pdeathsig && PDEATH=(setpriv --pdeathsig KILL --)
"${PDEATH[@]}" "${QEMU_CMD[@]}" </dev/null 2>"$RUN/qemu.err" 9>&- &
QPID=$!
sleep "$TIMEOUT" 9>&- &
SPID=$!

TIMED_OUT=0
wait -n "$QPID" "$SPID"
if kill -0 "$QPID" 2>/dev/null; then
	TIMED_OUT=1
	echo "vm: ERROR: timeout: the guest ran for more than ${TIMEOUT}s; killing qemu" >&2
	kill -TERM "$QPID" 2>/dev/null
	sleep 1
	kill -KILL "$QPID" 2>/dev/null
fi
wait "$QPID"
QRC=$?
QPID=
kill "$SPID" 2>/dev/null
wait "$SPID" 2>/dev/null
SPID=
T1=$EPOCHREALTIME

console_tail() {
	echo "vm: ---- last lines of the guest console ($CACHE/logs/console-$KVER.log) ----" >&2
	tail -n "${1:-40}" "$RUN/console.log" >&2 2>/dev/null
	echo "vm: ----" >&2
}

wall=$(awk -v a="$T0" -v b="$T1" 'BEGIN { printf "%.1f", b - a }')
if [ "$TIMED_OUT" = 1 ]; then
	console_tail
	exit $E_TIMEOUT
fi
if [ ! -s "$RUN/status" ]; then
	echo "vm: ERROR: the guest never reported an exit status (qemu exit status $QRC, ${wall}s)" >&2
	[ -s "$RUN/qemu.err" ] && { echo "vm: qemu said:" >&2; cat "$RUN/qemu.err" >&2; }
	console_tail 60
	exit $E_INFRA
fi
STATUS=$(cat "$RUN/status")
[[ $STATUS =~ ^[0-9]+$ ]] || fail "garbled status '$STATUS' from the guest"

start=$(cat "$RUN/uptime.start" 2>/dev/null || echo '?')
end=$(cat "$RUN/uptime.end" 2>/dev/null || echo '?')
cmdtime=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
info "$KVER: guest ready at uptime ${start}s, command ${cmdtime}s, qemu wall ${wall}s, exit status $STATUS"

# Kernel splats printed while the command ran (printk timestamps >= start).
splats=$(awk -v t0="$start" '
	match($0, /^\[ *[0-9]+\.[0-9]+\]/) {
		t = substr($0, 2, RLENGTH - 2) + 0
		if (t >= t0 && $0 ~ /(BUG:|Oops|WARNING:|Call Trace|general protection|kernel panic|RCU stall|soft lockup|hung_task)/)
			print
	}' "$RUN/console.log" 2>/dev/null)
if [ -n "$splats" ]; then
	echo "vm: the guest kernel logged problems while the command ran:" >&2
	echo "$splats" | head -n 20 >&2
	console_tail 80
	if [ "$SPLAT_FATAL" = 1 ] && [ "$STATUS" = 0 ]; then
		echo "vm: ERROR: kernel splat during the command (VM_SPLAT_FATAL=0 to ignore)" >&2
		exit $E_INFRA
	fi
fi
exit "$STATUS"

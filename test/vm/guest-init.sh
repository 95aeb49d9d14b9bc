#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Stage 2 of the test VM, PID 1 after switch_root into the overlay of the
# host root.  Runs with the host's own bash.  Sets up the usual kernel file
# systems, runs the
# command from the control share with its output on ttyS1 (the host streams
# it), writes the command's exit status to the control share and powers off.
#
# Usage (from initramfs-init only): guest-init.sh CONTROL_DIR

ctl=$1
# shellcheck source=/dev/null
. "$ctl/vm.env" || { echo "vm-init: cannot read $ctl/vm.env"; exit 1; }

log() { echo "vm-init: $*"; }

power_off() {
	sync
	"$VM_BUSYBOX" poweroff -f
	echo o >/proc/sysrq-trigger
	sleep 30
	exit 1		# PID 1 exits: panic=-1 and -no-reboot stop qemu
}

die() {
	log "FATAL: $*"
	power_off
}

must() { "$@" || die "failed: $*"; }

mnt() {	# mnt TYPE DIR [OPTIONS]
	mkdir -p "$2" || die "cannot create $2"
	must mount -t "$1" ${3:+-o "$3"} "$1" "$2"
}

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

mnt proc /proc
mnt sysfs /sys
mnt devtmpfs /dev mode=0755
mnt devpts /dev/pts mode=0620,ptmxmode=0666
mnt tmpfs /dev/shm mode=1777
mnt tmpfs /run mode=0755
mnt tracefs /sys/kernel/tracing
mnt debugfs /sys/kernel/debug
mnt bpf /sys/fs/bpf mode=0700
mnt cgroup2 /sys/fs/cgroup nsdelegate
ln -sfn /proc/self/fd /dev/fd
ln -sfn /proc/self/fd/0 /dev/stdin
ln -sfn /proc/self/fd/1 /dev/stdout
ln -sfn /proc/self/fd/2 /dev/stderr
mkdir -p /run/lock /run/netns /var/tmp
chmod 1777 /run/lock /var/tmp 2>/dev/null

# The guest kernel's modules (/lib/modules/<release>) and kmod are in the
# root already: stage 1 put them there.
echo "$(command -v modprobe)" >/proc/sys/kernel/modprobe 2>/dev/null

echo "vm-$VM_KVER" >/proc/sys/kernel/hostname
ip link set lo up 2>/dev/null || "$VM_BUSYBOX" ip link set lo up ||
	log "warning: cannot bring up lo"

# The command's output goes to the second serial port, which the host
# streams to its stdout.  Raw mode: no \n -> \r\n translation, no echo.
exec 3<>/dev/ttyS1 || die "cannot open /dev/ttyS1"
stty raw -echo <&3 || die "cannot set /dev/ttyS1 to raw mode"

cd "$VM_CWD" || die "cannot cd to $VM_CWD in the guest"
read -r up _ </proc/uptime
echo "$up" >"$ctl/uptime.start"
log "running the command at uptime $up s"

env -i PATH="$VM_PATH" HOME=/root USER=root LOGNAME=root SHELL=/bin/bash \
	TERM=dumb LANG=C.UTF-8 BPFTUNE_VM_KERNEL="$VM_KVER" \
	"$VM_BASH" "$ctl/cmd.sh" </dev/null >&3 2>&3 3>&-
rc=$?

read -r up _ </proc/uptime
echo "$up" >"$ctl/uptime.end"
# stty's tcsetattr(TCSADRAIN) waits until ttyS1 has sent everything.
stty raw -echo <&3 2>/dev/null
exec 3>&-
log "command exited with status $rc at uptime $up s"
echo "$rc" >"$ctl/status.tmp" && mv "$ctl/status.tmp" "$ctl/status" ||
	log "cannot write the status file"
power_off

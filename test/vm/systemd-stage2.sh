#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Stage 2 of a --systemd test guest: ExecStart of vm-test.service, once
# systemd (PID 1) has reached basic.target.  Tells the kernel where
# modprobe is (stage 1 put the guest kernel's modules and kmod into the
# root), runs the command from the control share with its
# output on ttyS1 (the host streams it), writes its exit status to the
# control share and powers the guest off through systemd.
#
# Usage (from vm-test.service only): systemd-stage2.sh CONTROL_DIR

ctl=$1
# shellcheck source=/dev/null
. "$ctl/vm.env" || { echo "vm-init: cannot read $ctl/vm.env"; exit 1; }

log() { echo "vm-init: $*" >/dev/console; }

finish() {	# finish STATUS
	echo "$1" >"$ctl/status.tmp" && mv "$ctl/status.tmp" "$ctl/status" ||
		log "cannot write the status file"
	sync
	systemctl --no-block poweroff || "$VM_BUSYBOX" poweroff -f
	exit 0
}

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
echo "$(command -v modprobe)" >/proc/sys/kernel/modprobe 2>/dev/null
echo "vm-$VM_KVER" >/proc/sys/kernel/hostname
ip link set lo up 2>/dev/null

exec 3<>/dev/ttyS1 || { log "cannot open /dev/ttyS1"; finish 125; }
stty raw -echo <&3 || { log "cannot set /dev/ttyS1 to raw mode"; finish 125; }
cd "$VM_CWD" || { log "cannot cd to $VM_CWD"; finish 125; }
read -r up _ </proc/uptime
echo "$up" >"$ctl/uptime.start"
log "systemd reached basic.target; running the command at uptime $up s"

env -i PATH="$VM_PATH" HOME=/root USER=root LOGNAME=root SHELL=/bin/bash \
	TERM=dumb LANG=C.UTF-8 BPFTUNE_VM_KERNEL="$VM_KVER" BPFTUNE_VM_INIT=systemd \
	"$VM_BASH" "$ctl/cmd.sh" </dev/null >&3 2>&3 3>&-
rc=$?

read -r up _ </proc/uptime
echo "$up" >"$ctl/uptime.end"
stty raw -echo <&3 2>/dev/null
exec 3>&-
log "command exited with status $rc at uptime $up s"
finish "$rc"

# The cgroup interface files of the blkcg policy: cgroup v1's blkio.bfq.*
# on a v1 blkio mount (first, while io is enabled in no v2 subtree), then
# cgroup v2's io.bfq.weight in every form; bad writes refused with the
# right errno and nothing changed; a per-device weight on a bfq device and
# the error for one on mq-deadline; rmdir; unload and reload with groups
# present. With VMTEST_IMPL=stock the stock module's answers are printed
# as "note:" where they differ from ours, not failed.
. /tests/lib.sh

CG2=/sys/fs/cgroup
V1=/tmp/cg-blkio
T=bfqt			# our v2 subtree
mounted_cg2=0
trap 'cleanup >/dev/null 2>&1' EXIT

cleanup() {
	rmdir "$V1/g1" "$CG2/$T/a/b" "$CG2/$T/a" "$CG2/$T/c" "$CG2/$T" 2>/dev/null
	grep -q " $V1 " /proc/mounts && umount "$V1"
	[ -d "$CG2" ] && echo -io > "$CG2/cgroup.subtree_control" 2>/dev/null
	[ "$mounted_cg2" = 1 ] && umount "$CG2"
	unload_bfq
	rm_nullb nullb0
	rm_nullb nullb1
}

# err FILE VALUE: write VALUE; print "ok" or the errno's name.
err() {
	local out
	if out=$( { echo "$2" > "$1"; } 2>&1 ); then echo ok; return; fi
	case $out in
	*"Invalid argument"*) echo EINVAL ;;
	*"out of range"*) echo ERANGE ;;
	*"No such device"*) echo ENODEV ;;
	*"not supported"*) echo EOPNOTSUPP ;;
	*) echo "other($out)" ;;
	esac
}

# A difference that matters for ours only: a note for the stock module.
differs() {
	if [ "$VM_IMPL" = stock ]; then echo "note: stock: $*"; else fail "$*"; fi
}

# content FILE: the file on one line, ';' for newlines.
content() { tr '\n' ';' < "$1"; }

# expect FILE VALUE ERR: writing VALUE answers ERR; on an error the file's
# content does not change.
expect() {
	local f=$1 v=$2 want=$3 before got after
	before=$(content "$f")
	got=$(err "$f" "$v")
	after=$(content "$f")
	if [ "$got" != "$want" ]; then
		differs "${f##*/} '$v': $got, want $want (now '$after')"
	elif [ "$want" != ok ] && [ "$after" != "$before" ]; then
		differs "${f##*/} '$v': $got but changed '$before' -> '$after'"
	else
		ok "${f##*/} '$v': $got"
	fi
}

# reads FILE WANT: the file's content (';' for newlines) is WANT.
reads() {
	local got
	got=$(content "$1")
	if [ "$got" = "$2" ]; then ok "${1##*/} reads '$got'"
	else differs "${1##*/} reads '$got', want '$2'"; fi
}

# in_group CGDIR CMD...: run CMD in a process moved into CGDIR.
in_group() {
	local g=$1; shift
	sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$g" "$@"
}

load_bfq || die "insmod of the $VM_IMPL bfq.ko failed"
d0=$(mk_nullb nullb0 size=64) || die "cannot create nullb0"
d1=$(mk_nullb nullb1 size=64) || die "cannot create nullb1"
set_sched "$d0" bfq || die "cannot select bfq on $d0"
set_sched "$d1" mq-deadline || die "cannot select mq-deadline on $d1"
M0=$(cat "/sys/block/$d0/dev")
M1=$(cat "/sys/block/$d1/dev")
echo "$d0 ($M0) on bfq, $d1 ($M1) on mq-deadline"

# ---- cgroup v1, before io is enabled in any v2 subtree ----
mkdir -p "$V1"
if mount -t cgroup -o blkio blkio "$V1"; then
	ok "v1 blkio hierarchy mounted"
	G=$V1/g1
	mkdir "$G" || fail "mkdir v1 group"
	for f in weight weight_device io_service_bytes io_serviced \
		 io_service_bytes_recursive io_serviced_recursive; do
		check "blkio.bfq.$f exists" [ -e "$G/blkio.bfq.$f" ]
	done
	W=$G/blkio.bfq.weight
	WD=$G/blkio.bfq.weight_device
	reads "$W" "100;"
	expect "$W" 300 ok
	reads "$W" "300;"
	for v in abc 10x -1 '' 99999999999 'default 100' "$M0 100"; do
		expect "$W" "$v" EINVAL
	done
	expect "$W" 0 ERANGE
	expect "$W" 1001 ERANGE
	reads "$W" "300;"
	expect "$WD" "$M0 500" ok
	reads "$WD" "default 300;$M0 500;"
	reads "$W" "300;"
	expect "$WD" "$M0 1001" ERANGE
	expect "$WD" "$M0 abc" EINVAL
	expect "$WD" "$M0" EINVAL
	expect "$WD" "default" EINVAL
	expect "$WD" "999:0 100" ENODEV
	expect "$WD" "$M1 100" ENODEV
	expect "$WD" "$M0 0" ok
	reads "$WD" "default 300;"
	# io.bfq.weight's forms too.
	expect "$WD" "$M0 400" ok
	expect "$WD" "$M0 default" ok
	reads "$WD" "default 300;"
	expect "$WD" "default 200" ok
	reads "$W" "200;"
	expect "$WD" "250" ok
	reads "$W" "250;"
	reads "$WD" "default 250;"
	check "I/O from a v1 group" in_group "$G" \
		dd if="/dev/$d0" of=/dev/null bs=64k count=16 iflag=direct
	for f in io_service_bytes io_serviced io_service_bytes_recursive \
		 io_serviced_recursive; do
		s=$(content "$G/blkio.bfq.$f")
		echo "blkio.bfq.$f: $s"
		case $s in
		*"$M0 Read "*"$M0 Total "*Total*) ok "blkio.bfq.$f: per-device lines and Total" ;;
		Total*) ok "blkio.bfq.$f: Total only (no group I/O counted yet)" ;;
		*) fail "blkio.bfq.$f: not the blkio format" ;;
		esac
	done
	check "v1 rmdir" rmdir "$G"
	# A v1 hierarchy is destroyed at umount only if no removed child is
	# still being released; else it lingers and io cannot go to v2.
	i=0
	while [ "$(awk '$1 == "blkio" { print $3 }' /proc/cgroups)" != 1 ] &&
	      [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	umount "$V1" || fail "v1 umount"
else
	fail "cannot mount a v1 blkio hierarchy"
fi

# ---- cgroup v2 ----
# By type: lib.sh's cg2_io (an earlier test of the boot) mounts it as
# "none"; a second mount on it fails with EBUSY on 7.x.
if ! grep -q " $CG2 cgroup2 " /proc/mounts; then
	mount -t cgroup2 none "$CG2" || die "cannot mount cgroup2"
	mounted_cg2=1
fi
# The v1 hierarchy's release is asynchronous: io may stay busy a moment.
i=0
until echo +io > "$CG2/cgroup.subtree_control" 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 50 ] || die "cannot enable +io in $CG2 ($(grep blkio /proc/cgroups))"
	sleep 0.1
done
ok "+io enabled at the v2 root (after $i retries)"
mkdir "$CG2/$T" "$CG2/$T/a" "$CG2/$T/c" || die "mkdir v2 groups"
echo +io > "$CG2/$T/cgroup.subtree_control" || fail "+io in $T"
echo +io > "$CG2/$T/a/cgroup.subtree_control" || fail "+io in $T/a"
mkdir "$CG2/$T/a/b" || fail "mkdir $T/a/b"
check "io.bfq.weight not on the root" [ ! -e "$CG2/io.bfq.weight" ]
W=$CG2/$T/a/io.bfq.weight
check "io.bfq.weight exists" [ -e "$W" ]
reads "$W" "default 100;"
expect "$W" 300 ok
reads "$W" "default 300;"
expect "$W" "default 200" ok
reads "$W" "default 200;"
expect "$W" "$M0 500" ok
reads "$W" "default 200;$M0 500;"
expect "$W" "default 250" ok
reads "$W" "default 250;$M0 500;"
for v in abc 10x -1 '' default 'default x' "$M0" "$M0 10x" '1:' ':1 5' \
	 "$M0 default 1" 99999999999; do
	expect "$W" "$v" EINVAL
done
for v in 0 1001 'default 0' 'default 1001' "$M0 0" "$M0 1001"; do
	expect "$W" "$v" ERANGE
done
expect "$W" "4096:0 100" ENODEV
expect "$W" "999:0 100" ENODEV
dmesg -c > /dev/null
expect "$W" "$M1 100" ENODEV
if [ "$VM_IMPL" != stock ]; then
	check "the refusal on $d1 says why in the kernel log" \
		sh -c "dmesg | grep -q 'bfq: device $M1: bfq is not its I/O scheduler'"
fi
reads "$W" "default 250;$M0 500;"
expect "$W" "$M0 default" ok
reads "$W" "default 250;"
expect "$CG2/$T/a/b/io.bfq.weight" "$M0 40" ok
reads "$CG2/$T/a/b/io.bfq.weight" "default 100;$M0 40;"
check "I/O from a v2 group" in_group "$CG2/$T/a/b" \
	dd if="/dev/$d0" of=/dev/null bs=64k count=16 iflag=direct
check "rmdir of a v2 leaf" rmdir "$CG2/$T/a/b"

# ---- unload and reload with groups present ----
# The weights go with the module (the policy's data): 100 after a reload.
# $T/c is a leaf: $T/a, with io in its subtree_control, takes no process.
C=$CG2/$T/c/io.bfq.weight
echo 700 > "$C" || fail "weight of $T/c"
i=1
while [ $i -le 5 ]; do
	if set_sched "$d0" none && unload_bfq && load_bfq > /dev/null &&
	   set_sched "$d0" bfq && [ "$(content "$C")" = "default 100;" ] &&
	   echo "$M0 600" > "$C" &&
	   in_group "$CG2/$T/c" dd if="/dev/$d0" of=/dev/null bs=64k \
		count=16 iflag=direct 2>/dev/null &&
	   [ "$(content "$C")" = "default 100;$M0 600;" ]
	then
		ok "unload/reload cycle $i with groups present"
	else
		differs "unload/reload cycle $i with groups present (reads '$(content "$C")')"
	fi
	i=$((i + 1))
done
echo $$ > "$CG2/cgroup.procs"
check "rmdir of the v2 groups" rmdir "$CG2/$T/a" "$CG2/$T/c" "$CG2/$T"
set_sched "$d0" none
check "bfq unloads" unload_bfq
finish

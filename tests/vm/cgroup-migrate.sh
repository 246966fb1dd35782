# vmtest-timeout: 180
# Groups changing under I/O (issue 7), cgroup v2:
#   1. a verifying fio (crc32c; a libaio job that writes all, then reads it
#      back, and a psync job that verifies as it goes) whose processes are
#      moved between three groups (two siblings and a nested one, weights
#      100, 500, 300) every ~250 ms while it runs: fio verifies clean, and
#      both sibling groups saw its writes (io.stat);
#   2. a group removed right after the writer it held moved out, its
#      requests still queued in bfq (8 rounds), or right after its writer
#      was killed (3 rounds): rmdir works; a group that still holds a
#      process refuses rmdir;
#   3. a group removed right after its buffered writer exited, the dirty
#      pages still to be written back under it (ext4 on a bfq disk, memory
#      and io enabled: v2 cgroup writeback; 5 rounds), then sync;
# and no kernel report (WARNING, BUG, ...) in dmesg meanwhile.
# Device: memory-backed null_blk, 1 ms timer completions, one-request
# hardware queue, nr_requests 128, so requests wait in bfq while their
# process moves.
. /tests/lib.sh
G=$CG2/cgm
cleanup() {
	[ -n "$BG" ] && kill $BG 2>/dev/null
	wait
	if [ -d $G ]; then
		for f in $(find $G -name cgroup.procs); do
			for p in $(cat $f); do echo $p > $CG2/cgroup.procs; done
		done
		for d in $(find $G -depth -type d); do rmdir "$d"; done
	fi
	umount /mnt/cgm
	rm_nullb cgm0
	rm_nullb cgm1
}
trap 'cleanup >/dev/null 2>&1' EXIT
BG=

load_bfq || die "insmod of the $VM_IMPL bfq.ko failed"
cg2_io || die "no cgroup v2 io controller"
dev=$(mk_nullb cgm0 size=256 irqmode=2 completion_nsec=1000000 \
	hw_queue_depth=1 submit_queues=1) || die "cannot create cgm0"
set_sched "$dev" bfq || die "cannot select bfq on $dev"
echo 128 > /sys/block/$dev/queue/nr_requests || die "nr_requests 128 refused"
MM=$(cat /sys/block/$dev/dev)
dm0=$(dmesg | wc -l)

mkdir $G && echo +io > $G/cgroup.subtree_control || die "cannot make $G"
mkdir $G/m1 $G/m2 $G/n && echo +io > $G/n/cgroup.subtree_control &&
	mkdir $G/n/n1 || die "cannot make the groups"
[ -e $G/m1/io.bfq.weight ] ||
	die "no io.bfq.weight: $VM_IMPL bfq has no cgroup policy"
echo 100 > $G/m1/io.bfq.weight; echo 500 > $G/m2/io.bfq.weight
echo 300 > $G/n/n1/io.bfq.weight

# procs_of PID: PID and its descendants (fio's job processes).
procs_of() {
	cat /proc/[0-9]*/stat 2>/dev/null | sed 's/^\([0-9]*\) (.*) . \([0-9]*\) .*/\1 \2/' |
	awk -v root="$1" '{ pp[$1] = $2 }
	END { out[root] = 1; ch = 1
	      while (ch) { ch = 0
		for (p in pp) if (!(p in out) && (pp[p] in out)) { out[p] = 1; ch = 1 } }
	      for (p in out) if (p in pp) print p }'
}
wbytes() { sed -n "s/^$MM .*wbytes=\([0-9]*\) .*/\1/p" "$1/io.stat"; }

# 1. Moves under a verifying fio.
cg_run $G/m1 fio --filename=/dev/$dev --direct=1 --bs=4k \
	--verify=crc32c --verify_fatal=1 --do_verify=1 \
	--name=aio --ioengine=libaio --iodepth=16 --rw=randwrite \
	--offset=0 --size=8M \
	--name=sync --ioengine=psync --rw=write --offset=64M --size=4M \
	--verify_backlog=64 --output=/tmp/cgm.out
fiopid=$!
moves=0 refused=0 i=0
while kill -0 $fiopid 2>/dev/null; do
	case $((i % 3)) in 0) g=$G/m2 ;; 1) g=$G/n/n1 ;; 2) g=$G/m1 ;; esac
	i=$((i + 1))
	for p in $(procs_of $fiopid); do
		if echo $p > $g/cgroup.procs 2>/dev/null; then moves=$((moves + 1))
		elif kill -0 $p 2>/dev/null; then refused=$((refused + 1)); fi
	done
	usleep 250000
done
wait $fiopid
rc=$?
fiosum /tmp/cgm.out
echo "1: $moves process moves over $i turns; writes seen: m1 $(wbytes $G/m1) m2 $(wbytes $G/m2) n1 $(wbytes $G/n/n1) bytes"
check "1: fio verify exited 0 (rc=$rc)" [ $rc = 0 ]
check "1: fio reports err=0" sh -c '! grep -q "err= *[1-9]" /tmp/cgm.out'
check "1: fio wrote and verified (READ and WRITE lines)" \
	sh -c 'grep -q "READ:" /tmp/cgm.out && grep -q "WRITE:" /tmp/cgm.out'
check "1: the processes moved at least 6 times ($moves)" [ $moves -ge 6 ]
check "1: no move refused ($refused)" [ $refused = 0 ]
check "1: m1 and m2 both saw the writes" \
	sh -c "[ 0$(wbytes $G/m1) -gt 0 ] && [ 0$(wbytes $G/m2) -gt 0 ]"

# 2. A group removed right after the writer moved out, its requests still
# queued (iodepth 32 on a one-request device).
cg_run $G/m1 fio --name=w --filename=/dev/$dev --direct=1 --bs=4k \
	--ioengine=libaio --iodepth=32 --rw=randwrite --offset=128M \
	--size=64M --time_based --runtime=60 --output=/dev/null
BG=$!
usleep 500000
ok2=0
for r in 1 2 3 4 5 6 7 8; do
	t=$G/t$r
	mkdir $t || { fail "2: mkdir $t"; continue; }
	echo $((r * 100)) > $t/io.bfq.weight
	for p in $(procs_of $BG); do echo $p > $t/cgroup.procs; done
	usleep 300000
	[ $r = 1 ] && check "2: rmdir refused while the group holds the writer" \
		sh -c "! rmdir $t 2>/dev/null"
	for p in $(procs_of $BG); do echo $p > $G/m2/cgroup.procs; done
	# fio forks its job process a while after it starts (seconds under
	# TCG): one forked while the parent sat in $t after the list above was
	# taken is born in $t. The requests queued in $t's group stay there.
	cg_empty $t $G/m2
	if rmdir $t; then ok2=$((ok2 + 1)); else
		fail "2: rmdir $t after the move out (procs '$(cat $t/cgroup.procs | tr '\n' ' ')', $(grep populated $t/cgroup.events))"
	fi
done
check "2: 8 groups removed with their writer's requests queued ($ok2)" [ $ok2 = 8 ]
check "2: the writer still runs" kill -0 $BG
kill $BG; wait $BG; BG=
# ... and right after its writer was killed (kill -9) with its requests
# queued (aio requests complete before the exit does). One process
# (--thread), reaped by this shell: an orphaned fio job would stay a
# zombie of /init, and a zombie keeps its v2 group populated.
ok2=0
for r in 1 2 3; do
	t=$G/k$r
	mkdir $t || { fail "2: mkdir $t"; continue; }
	cg_run $t fio --name=k --thread --filename=/dev/$dev --direct=1 \
		--bs=4k --ioengine=libaio --iodepth=32 --rw=randwrite \
		--offset=128M --size=64M --time_based --runtime=60 \
		--output=/dev/null
	k=$!
	usleep 700000
	kill -9 $k
	wait $k 2>/dev/null
	if rmdir $t; then ok2=$((ok2 + 1)); else fail "2: rmdir $t after its writer was killed"; fi
done
check "2: 3 groups removed right after their writer was killed ($ok2)" [ $ok2 = 3 ]

# 3. A group removed right after its buffered writer exited, its dirty
# pages written back afterwards. v2 writes dirty pages back under the
# group that dirtied them (cgroup writeback) when memory is enabled too and
# the filesystem supports it: ext4 on a second bfq disk.
fs=$(mk_nullb cgm1 size=128 irqmode=2 completion_nsec=1000000 \
	hw_queue_depth=1 submit_queues=1) || die "cannot create cgm1"
set_sched "$fs" bfq || die "cannot select bfq on $fs"
mkdir -p /mnt/cgm
[ "$VM_BUILTIN" = 1 ] || modprobe ext4
if ! echo +memory > $CG2/cgroup.subtree_control ||
   ! echo +memory > $G/cgroup.subtree_control; then
	fail "3: cannot enable the memory controller (cgroup writeback)"
elif ! /usr/sbin/mke2fs -q -F -t ext4 -E lazy_itable_init=0,lazy_journal_init=0 \
	/dev/$fs || ! mount -t ext4 /dev/$fs /mnt/cgm; then
	fail "3: no ext4 on /dev/$fs"
else
	ok3=0
	for r in 1 2 3 4 5; do
		t=$G/w$r
		mkdir $t || { fail "3: mkdir $t"; continue; }
		echo $((r * 150)) > $t/io.bfq.weight
		cg_run $t dd if=/dev/zero of=/mnt/cgm/f$r bs=64k count=64 2>/dev/null
		wait $!
		dirty=$(sed -n 's/^Dirty: *\([0-9]*\).*/\1/p' /proc/meminfo)
		if rmdir $t; then ok3=$((ok3 + 1)); else fail "3: rmdir $t after dd exited"; fi
		echo "3: round $r: removed $t with ${dirty} KiB dirty"
	done
	check "3: 5 groups removed with their dirty pages unwritten ($ok3)" [ $ok3 = 5 ]
	check "3: sync after the removals" sync
	check "3: the files read back (4 MiB each)" sh -c \
		'for r in 1 2 3 4 5; do [ $(wc -c < /mnt/cgm/f$r) = 4194304 ] || exit 1; done'
	umount /mnt/cgm || fail "3: umount"
fi
echo -memory > $G/cgroup.subtree_control 2>/dev/null
echo -memory > $CG2/cgroup.subtree_control 2>/dev/null
set_sched "$fs" none
rm_nullb cgm1

for d in $(find $G -depth -type d); do rmdir "$d" || fail "rmdir $d"; done
reports=$(dmesg_reports $dm0)
[ -n "$reports" ] && echo "$reports"
check "no kernel report in dmesg" [ -z "$reports" ]
set_sched "$dev" none
rm_nullb cgm0
unload_bfq || fail "bfq unloads"
finish

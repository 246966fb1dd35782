# Stress 3: cgroup churn. cgroup v2 with +io; fio writers (verifying) and a
# reader on a bfq null_blk are moved between groups at random while they
# run; now and then a fresh group is made, a process moved in and out, and
# the group removed at once, with that process's I/O still queued; a group
# that still holds a process must refuse rmdir. io.bfq.weight is written at
# random when the file exists (it does once bfq has a cgroup policy).
# Iterations: process moves.
. /tests/slib.sh
trap 's_cg_fini >/dev/null 2>&1; rm_nullb cg0 >/dev/null 2>&1' EXIT

load_bfq || die "cannot load bfq"
s_cg_init || die "no cgroup v2 io controller"
dev=$(s_nullb cg0 size=192 hw_queue_depth=8) || die "no null_blk"

run=0 tmp=0
while s_running; do
	run=$((run + 1))
	fio_bg cg-$run --filename=/dev/$dev $FIO_V --runtime=$(s_left) \
	    --name=aio --ioengine=libaio --iodepth=8 --rw=randwrite \
	    --offset=0 --size=48M --verify_backlog=128 \
	    --name=sync1 --ioengine=psync --rw=randwrite --offset=48M \
	    --size=32M --verify_backlog=32 \
	    --name=sync2 --ioengine=psync --rw=write --offset=80M --size=32M \
	    --verify_backlog=32
	wpid=$FIO_PID
	fio_bg cgr-$run --filename=/dev/$dev --direct=1 --bs=4k \
	    --runtime=$(s_left) --name=rd --ioengine=psync --rw=randread \
	    --offset=128M --size=64M --numjobs=2
	rpid=$FIO_PID
	while { kill -0 $wpid || kill -0 $rpid; } 2>/dev/null && s_running; do
		for p in $(pidof fio); do
			if s_cg_move $p; then ITER=$((ITER + 1))
			else s_err "move of $p refused"; fi
		done
		tmp=$((tmp + 1))
		if [ $((tmp % 3)) = 0 ]; then
			# A short-lived group, removed with I/O in flight.
			g=$CG/stress/t$tmp
			mkdir $g || { s_err "mkdir $g"; continue; }
			s_cg_weight $g
			set -- $(pidof fio) ""
			shift $(rnd $#)
			p=$1
			if [ -n "$p" ] && s_cg_move $p $g; then
				ITER=$((ITER + 1))
				usleep $(rnd 100000)
				if [ -n "$(cat $g/cgroup.procs)" ] && rmdir $g 2>/dev/null; then
					s_err "rmdir of $g with a process in it succeeded"
				fi
				s_cg_move $p
			fi
			s_cg_empty $g
			rmdir $g 2>/dev/null ||
				s_err "rmdir of the emptied $g failed: procs '$(cat $g/cgroup.procs 2>/dev/null | tr '\n' ' ')' $(grep populated $g/cgroup.events 2>/dev/null)"
		fi
		usleep $((20000 + $(rnd 200000)))
	done
	fio_collect cg-$run $wpid verify
	fio_collect cgr-$run $rpid load
done
echo "$run fio round(s), $tmp short-lived group(s)"
s_cg_fini
set_sched "$dev" none
rm_nullb cg0
s_finish

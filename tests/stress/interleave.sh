# Stress 5: interleaved readers and processes sharing an io_context.
# A region is written once with crc32c headers; then, round after round,
# four fio jobs read it in interleaved strides (job i reads blocks i, i+4,
# i+8, ... : close cooperators, which invite queue merging), psync and libaio
# alternately, verifying every block. Meanwhile /tests/cloneio keeps 6
# children made by clone(CLONE_IO) (one io_context for all) writing, reading
# back and checking interleaved blocks of another region, respawning them as
# they exit. Iterations: reader rounds + cloneio children.
. /tests/slib.sh
trap 'rm_nullb il0 >/dev/null 2>&1' EXIT

load_bfq || die "cannot load bfq"
dev=$(s_nullb il0 size=128 hw_queue_depth=8) || die "no null_blk"
[ -x /tests/cloneio ] || die "no /tests/cloneio"

/tests/cloneio /dev/$dev 64 32 $(s_left) 6 > /tmp/cloneio.out 2>&1 &
cpid=$!

fio_bg il-prep --filename=/dev/$dev --direct=1 --bs=4k --verify=crc32c \
    --do_verify=0 --name=prep --ioengine=libaio --iodepth=16 --rw=write \
    --offset=0 --size=4M
fio_collect il-prep $FIO_PID load

run=0
while s_running; do
	run=$((run + 1))
	if [ $((run % 2)) = 1 ]; then eng="--ioengine=psync"
	else eng="--ioengine=libaio --iodepth=4"; fi
	# size: each job's last block stays inside the 4 MiB written.
	fio_bg il-$run --filename=/dev/$dev --direct=1 --bs=4k \
	    --verify=crc32c --verify_fatal=1 --runtime=$(s_left) $eng \
	    --rw=read:12k --size=$((4096 - 16))k \
	    --name=r0 --offset=0 --name=r1 --offset=4k \
	    --name=r2 --offset=8k --name=r3 --offset=12k
	fio_collect il-$run $FIO_PID verify
	ITER=$((ITER + 1))
done
echo "$run reader round(s)"
s_wait $cpid $S_HANG || s_err "cloneio hung"
wait $cpid
crc=$?
cat /tmp/cloneio.out
set -- $(sed -n 's/^CLONEIO children=\([0-9]*\) verified=\([0-9]*\) errors=\([0-9]*\).*/\1 \2 \3/p' /tmp/cloneio.out)
if [ $# = 3 ]; then
	ITER=$((ITER + $1)); VERIFIED=$((VERIFIED + $2)); IOS=$((IOS + 2 * $2))
	[ "$3" = 0 ] || s_err "cloneio: $3 error(s)"
fi
[ "$crc" = 0 ] || s_err "cloneio exited $crc"
set_sched "$dev" none
rm_nullb il0
s_finish

# The ten tunables exist, good values are applied and read back, bad ones
# are refused (the write fails) and leave the value unchanged.
. /tests/lib.sh
trap 'rm_nullb nullb0 >/dev/null 2>&1' EXIT

load_bfq || die "insmod of the $VM_IMPL bfq.ko failed"
dev=$(mk_nullb nullb0) || die "cannot create null_blk nullb0"
set_sched "$dev" bfq || die "cannot select bfq on $dev"
D=/sys/block/$dev/queue/iosched
echo "iosched files: $(ls $D | tr '\n' ' ')"

TUNABLES="slice_idle slice_idle_us max_budget timeout_sync low_latency
strict_guarantees back_seek_max back_seek_penalty fifo_expire_sync
fifo_expire_async"
for t in $TUNABLES; do
	if v=$(cat "$D/$t" 2>/dev/null); then ok "$t exists, reads $v"
	else fail "$t missing or unreadable"; fi
done

# put T VALUE: the write succeeds.
put() { printf '%s\n' "$2" > "$D/$1" 2>/dev/null; }

# good T VALUE [EXPECTED]: the write succeeds and reads back EXPECTED
# (default VALUE).
good() {
	local t=$1 v=$2 want=${3:-$2} got
	[ -e "$D/$t" ] || { fail "$t: missing"; return; }
	if put "$t" "$v"; then
		got=$(cat "$D/$t")
		if [ "$got" = "$want" ]; then ok "$t: '$v' applied, reads $got"
		else fail "$t: '$v' accepted but reads back '$got' (want '$want')"; fi
	else
		fail "$t: good value '$v' refused"
	fi
}

# bad T: every malformed value is refused and leaves T as it was.
bad() {
	local t=$1 v before after
	[ -e "$D/$t" ] || { fail "$t: missing"; return; }
	for v in abc -1 99999999999999999999 '' 12x; do
		before=$(cat "$D/$t")
		if put "$t" "$v"; then
			fail "$t: bad value '$v' accepted (now reads '$(cat "$D/$t")', was '$before')"
		else
			after=$(cat "$D/$t")
			if [ "$after" = "$before" ]; then ok "$t: '$v' refused"
			else fail "$t: '$v' refused but value changed '$before' -> '$after'"; fi
		fi
	done
}

for t in $TUNABLES; do
	orig=$(cat "$D/$t" 2>/dev/null)
	bad "$t"
	case $t in
	slice_idle)
		good slice_idle 4
		good slice_idle 0
		check "slice_idle_us follows slice_idle (3 ms -> 3000 us)" \
			sh -c "echo 3 > $D/slice_idle && [ \$(cat $D/slice_idle_us) = 3000 ]" ;;
	slice_idle_us)
		good slice_idle_us 6000
		check "slice_idle follows slice_idle_us (6000 us -> 6 ms)" \
			[ "$(cat $D/slice_idle)" = 6 ]
		good slice_idle_us 0 ;;
	max_budget)
		good max_budget 4096
		# 0 is "automatic": accepted, whatever it then reads.
		check "max_budget: 0 (auto) accepted" put max_budget 0 ;;
	timeout_sync)
		good timeout_sync 200
		good timeout_sync 100 ;;
	low_latency|strict_guarantees)
		good $t 0
		good $t 1
		good $t 0 ;;
	back_seek_max)
		good back_seek_max 8192
		good back_seek_max 0 ;;
	back_seek_penalty)
		good back_seek_penalty 4
		good back_seek_penalty 1 ;;
	fifo_expire_sync|fifo_expire_async)
		good $t 200
		good $t 400 ;;
	esac
	[ -n "$orig" ] && put "$t" "$orig"
done
set_sched "$dev" none
rm_nullb nullb0
unload_bfq || fail "bfq unloads"
finish

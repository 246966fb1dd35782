# Our module and the stock one take turns (same module and elevator name):
# the helpers switch devices off bfq, unload one and load the other, and
# each serves I/O in its turn.
. /tests/lib.sh
trap 'rm_nullb nullb0 >/dev/null 2>&1' EXIT

dev=$(mk_nullb nullb0 size=64) || die "cannot create nullb0"
i=1
while [ $i -le 2 ]; do
	for which in ours stock; do
		if load_$which >/dev/null; then
			taint=$(cat /sys/module/bfq/taint)
			case $which in
			ours)  check "cycle $i: ours is loaded (taint '$taint' has O)" \
				sh -c "echo '$taint' | grep -q O" ;;
			stock) check "cycle $i: stock is loaded (taint '$taint' without O)" \
				sh -c "! echo '$taint' | grep -q O" ;;
			esac
			check "cycle $i: $which bfq selectable" set_sched "$dev" bfq
			check "cycle $i: I/O under $which bfq" \
				dd if=/dev/zero of=/dev/$dev bs=4k count=1024 oflag=direct
		else
			fail "cycle $i: load_$which"
		fi
	done
	i=$((i + 1))
done
check "unload_bfq switches the device away and unloads" unload_bfq
check "device back on none" [ "$(cur_sched "$dev")" = none ]
rm_nullb nullb0
finish

# vmtest-timeout: 4000
# Group shares for processes that issue one request at a time (fio psync,
# O_DIRECT 4 KiB reads, the way most programs do I/O): each case of
# cgroup-share with such readers, and two more:
#   a. weights 100 : 300, one reader each               -> 1:3
#   b. equal weights, 4 readers : 1 reader              -> 1:1
#   c. A(200){A1(100), A2(300)}, B(100){B1(100)}        -> 1/6, 1/2, 1/3
#   d. weights 100 : "default 100" + "MAJ:MIN 300"      -> 1:3
#   e. a. through a dm-linear device on the bfq disk    -> 1:3
#   f. equal weights, 8 readers : 1 reader              -> 1:1
#   g. 100 : 200 : 300 with 4, 2 and 1 readers          -> 1/6, 1/3, 1/2
# at hardware depth 1 (2 scheduler tags) and 32 (64), low_latency 0 and 1,
# sequential and random readers; the device's default nr_requests. The
# full form sets max_budget to 1024 sectors (128 requests, ~15 ms of the
# device): a turn at the automatic budget lasts up to ~120 ms, and a 2 s
# window's ratio then moves by a turn of the lighter group (2.6-3.4 for
# 1:3 in 5 windows); the quick form keeps the automatic one.
#
# A psync reader's queue empties at every completion, so its group is seen
# busy only while its next request is on the way and holds a tag: the
# shares hold only if bfq idles for a group that differs from the others
# and keeps a tag for a group holding none (rules 13 and 15 of
# bfq-cgroup.c). With low_latency 1 the readers are raised for up to 10 s
# after they start, and the measure begins after that (LEAD 11 s).
#
# Throughput: after each case of the full form at low_latency 0, the same
# readers run in the root group, all alike; the device's completions per
# second with the groups must be at least 0.9 of that at depth 1 (idling
# for groups must not cost more). At depth 32 it is reported only: five
# one-request readers do not fill that device, each goes as fast as its
# own requests allow, and a share that holds a group of four to the rate
# of a group of one cannot also keep their flat throughput (see
# Documentation/bfq-iosched.rst, Groups).
#
# Two forms:
#   full (VM_QUICK=0, make bench): the whole matrix, a null_blk with 100 us
#       timer completions, 5 windows of 2 s, shares within 5%. Run it
#       under VM_ICOUNT (make bench does): on plain TCG five psync readers
#       make the guest's CPU the bottleneck (about 900 requests a second
#       where the device does 10,000), and then no scheduler decides the
#       shares.
#   quick (VM_QUICK=1, make check): case b at depth 1, sequential,
#       low_latency 0, on a 4 ms device (250 requests a second, well
#       within the guest's CPU), 3 windows of 2 s, within 15%. make check
#       runs it under VM_ICOUNT too: on plain TCG a loaded host delays
#       the lone reader's next request past the idle slice now and then,
#       and its group loses turns it would keep on a real machine.
# Environment (the matrix's parts, for make bench's steps and for
# investigations; KEY=value on the guest's command line, lists with commas
# there): CGP_DEPTHS
# ("1 32"), CGP_RWS ("read randread"), CGP_LLS ("0 1"), CGP_CASES
# ("a b c d e f g"), CGP_CNSEC (completion time in ns), CGP_TPUT (0: no
# throughput check), CGP_BUDGET (max_budget; 0: automatic), CGP_NR
# (nr_requests instead of the device's default).
. /tests/lib.sh
G=$CG2/cgp
DM=cgp-lin
PIDS=
cleanup() {
	stop_readers
	rm_groups
	dmsetup --noudevsync remove --retry $DM 2>/dev/null
	rm_nullb cgp0
}
trap 'cleanup >/dev/null 2>&1' EXIT
export DM_DISABLE_UDEV=1
if [ "${VM_QUICK:-0}" = 1 ]; then
	WIN=2 ROUNDS=3 TOL=0.15
	DEPTHS=${CGP_DEPTHS:-1} RWS=${CGP_RWS:-read} LLS=${CGP_LLS:-0}
	CASES=${CGP_CASES:-b} CNSEC=${CGP_CNSEC:-4000000} TPUT=${CGP_TPUT:-0}
	BUDGET=${CGP_BUDGET:-0}
else
	WIN=2 ROUNDS=5 TOL=0.05
	DEPTHS=${CGP_DEPTHS:-1 32} RWS=${CGP_RWS:-read randread}
	LLS=${CGP_LLS:-0 1} CASES=${CGP_CASES:-a b c d e f g}
	CNSEC=${CGP_CNSEC:-100000} TPUT=${CGP_TPUT:-1}
	BUDGET=${CGP_BUDGET:-1024}
fi
# Lists from the kernel command line come comma-separated.
DEPTHS=$(echo $DEPTHS | tr , ' ') RWS=$(echo $RWS | tr , ' ')
LLS=$(echo $LLS | tr , ' ') CASES=$(echo $CASES | tr , ' ')
PCT=$(awk -v t=$TOL 'BEGIN { printf "%g", t * 100 }')

load_bfq || die "insmod of the $VM_IMPL bfq.ko failed"
cg2_io || die "no cgroup v2 io controller"
has_case() { case " $CASES " in *" $1 "*) return 0 ;; esac; return 1; }
if has_case e && [ "$VM_BUILTIN" != 1 ]; then modprobe dm-mod; fi

# fresh: the groups of the last case gone, G empty again.
fresh() {
	rm_groups
	mkdir $G && echo +io > $G/cgroup.subtree_control
}
# reader GROUP OFFSET_MB [fio args]: a psync reader in G/GROUP (or in the
# root group for GROUP "-") of its own 256 MiB at OFFSET_MB; FILE, the
# device by default.
FILE=
reader() {
	local g=$1 off=$2 cg=$G/$1
	shift 2
	[ "$g" = - ] && { cg=$CG2; g=flat; }
	cg_run "$cg" fio --name="${g##*/}" --filename="${FILE:-/dev/$dev}" \
		--direct=1 --ioengine=psync --rw=$RW --bs=4k --size=256M \
		--offset="${off}M" --time_based --runtime=600 \
		--output=/dev/null "$@"
	PIDS="$PIDS $!"
}
# readers GROUP N OFFSET_MB: N readers in GROUP, one after another's area.
readers() {
	reader "$1" "$3" --numjobs="$2" --offset_increment=256M
}
# Each case: its groups and readers (group_READERS lists "GROUP N OFFSET"
# per group, for the flat rerun), then what to measure.
setup_case() {
	FILE=
	case $1 in
	a|e) mkgroups ${1}1:100 ${1}2:300 || return 1
	     set -- "${1}1 1 0" "${1}2 1 256" ;;
	b)   mkgroups b1:100 b2:100 || return 1
	     set -- "b1 4 0" "b2 1 1024" ;;
	c)   mkgroups A:200 B:100 A/A1:100 A/A2:300 B/B1:100 || return 1
	     set -- "A/A1 1 0" "A/A2 1 256" "B/B1 1 512" ;;
	d)   mkgroups d1:100 d2:100 || return 1
	     echo "$MM 300" > $G/d2/io.bfq.weight || return 1
	     set -- "d1 1 0" "d2 1 256" ;;
	f)   mkgroups f1:100 f2:100 || return 1
	     set -- "f1 8 0" "f2 1 2304" ;;
	g)   mkgroups g1:100 g2:200 g3:300 || return 1
	     set -- "g1 4 0" "g2 2 1024" "g3 1 1536" ;;
	esac
	LAYOUT=$*
}
start_readers() {
	local grp n off
	echo "$LAYOUT" |
		awk '{ for (i = 1; i <= NF; i += 3) print $i, $(i + 1), $(i + 2) }' \
		> /tmp/cgp.layout
	while read -r grp n off; do
		[ "$1" = flat ] && grp=-
		readers "$grp" "$n" "$off"
	done < /tmp/cgp.layout
}
# want_of CASE: the groups to measure and the bound: "pair G1 G2 RATIO"
# (G2's bytes over G1's) or "shares G:SHARE...".
want_of() {
	case $1 in
	a|d|e) echo "pair ${1}1 ${1}2 3" ;;
	b|f)   echo "pair ${1}2 ${1}1 1" ;;
	c)     echo "shares A/A1:0.16667 A/A2:0.5 B/B1:0.33333" ;;
	g)     echo "shares g1:0.16667 g2:0.33333 g3:0.5" ;;
	esac
}
# device_rate: the median over the windows of the device's requests/s.
device_rate() {
	awk -v w=$WIN '{ printf "%d ", $1 / w }' $GRP_W | median
}

run_case() {
	local c=$1 tag=$2 kind g1 g2 want r m i gs grate frate
	setup_case $c || { fail "$tag $c: cannot make its groups"; fresh; return; }
	[ $c = e ] && FILE=/dev/mapper/$DM
	start_readers groups
	set -- $(want_of $c)
	kind=$1; shift
	if [ $kind = pair ]; then
		g1=$1 g2=$2 want=$3
		if grp_measure $g1 $g2; then
			r=$(grp_ratios); m=$(echo $r | median)
			echo "$tag $c: $g2:$g1 ratios: $r median $m (want $want)"
			check "$tag $c: median ratio $m within $PCT% of $want" \
				within "$m" "$want"
		else
			fail "$tag $c: no measurement"
		fi
	else
		gs=
		for i; do gs="$gs ${i%:*}"; done
		if grp_measure $gs; then
			i=0
			for g; do
				i=$((i + 1))
				r=$(grp_shares $i); m=$(echo $r | median)
				echo "$tag $c: ${g%:*} shares: $r median $m (want ${g#*:})"
				check "$tag $c: ${g%:*}'s median share $m within $PCT% of ${g#*:}" \
					within "$m" "${g#*:}"
			done
		else
			fail "$tag $c: no measurement"
		fi
	fi
	grate=$(device_rate)
	stop_readers
	if [ "$TPUT" = 1 ] && [ "$ll" = 0 ]; then
		start_readers flat
		grp_measure > /dev/null
		frate=$(device_rate)
		stop_readers
		echo "$tag $c: device requests/s: groups $grate, flat $frate"
		d="$tag $c: throughput with groups $grate/s >= 0.9 x flat $frate/s"
		if [ "$depth" = 1 ]; then
			check "$d" awk "BEGIN { exit !($grate >= 0.9 * $frate) }"
		elif awk "BEGIN { exit !($grate >= 0.9 * $frate) }"; then
			echo "bound met (reported): $d"
		else
			echo "bound not met (reported): $d"
		fi
	fi
	fresh
}

for depth in $DEPTHS; do
	dev=$(mk_nullb cgp0 size=4096 memory_backed=0 irqmode=2 \
		completion_nsec=$CNSEC hw_queue_depth=$depth submit_queues=1) ||
		die "cannot create cgp0"
	MM=$(cat /sys/block/$dev/dev)
	set_sched "$dev" bfq || die "cannot select bfq on $dev"
	echo $BUDGET > /sys/block/$dev/queue/iosched/max_budget
	if [ -n "${CGP_NR:-}" ]; then
		echo $CGP_NR > /sys/block/$dev/queue/nr_requests ||
			die "nr_requests $CGP_NR refused"
	fi
	echo "depth $depth: max_budget $BUDGET, nr_requests $(cat /sys/block/$dev/queue/nr_requests), completions $((CNSEC / 1000)) us"
	if has_case e &&
	   ! { dmsetup --noudevsync create $DM \
		--table "0 $(cat /sys/block/$dev/size) linear /dev/$dev 0" &&
	       { [ -e /dev/mapper/$DM ] || dmsetup --noudevsync mknodes $DM; } &&
	       [ -e /dev/mapper/$DM ]; }; then
		fail "depth $depth: cannot create dm-linear $DM over /dev/$dev"
	fi
	fresh || die "cannot make $G"
	for RW in $RWS; do
		for ll in $LLS; do
			echo $ll > /sys/block/$dev/queue/iosched/low_latency
			[ $ll = 1 ] && LEAD=11 || LEAD=2
			for c in $CASES; do
				run_case $c "depth $depth, $RW, ll $ll,"
			done
		done
	done
	rm_groups
	dmsetup --noudevsync remove --retry $DM 2>/dev/null
	rm_nullb cgp0
done
finish

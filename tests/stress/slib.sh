# Guest-side helpers of the stress matrix (busybox sh); sourced by the
# scenarios in tests/stress/ after /tests/lib.sh (the VM tests' helpers).
#
# A scenario runs for STRESS_SECS seconds (its share of the run, from the
# kernel command line: scripts/stress.sh), keeps four counters and ends with
# s_finish, which prints the one line the host parses:
#   STRESS-RESULT <scenario> iterations=N ios_verified=N ios=N errors=N secs=N
# and exits 1 when errors > 0.
#
#   s_running               true until the scenario's time is up
#   s_left                  seconds left (at least 1)
#   s_err MSG               count an error (printed as "stress error: MSG")
#   rnd N                   a random number in [0, N)
#   fio_bg TAG ARGS...      fio in the background, JSON report in
#                           /tmp/TAG.json, stderr in /tmp/TAG.err; its pid
#                           in $FIO_PID
#   fio_collect TAG PID MODE  wait (at most S_HANG seconds) for that fio and
#                           add up its report: MODE verify (every read is a
#                           verification: writers with verify=crc32c, or
#                           readers verifying what such a writer wrote),
#                           load (I/O only), or lossy (errors are expected:
#                           the device goes away under it; only a hang
#                           counts)
#   FIO_V                   common options of a verifying fio writer (and
#                           allow_file_create=0: a device node that went
#                           away must not become a regular file in /dev)
. /tests/lib.sh

S_NAME=${S_NAME:-$(basename "$0" .sh)}
SECS=${STRESS_SECS:-20}
S_T0=$(date +%s)
S_END=$((S_T0 + SECS))
# A fio that has not ended this long after it was told to stop is hung.
S_HANG=${STRESS_HANG:-60}
ITER=0 VERIFIED=0 IOS=0 ERRORS=0

s_running() { [ "$(date +%s)" -lt "$S_END" ]; }
s_left() {
	local l=$((S_END - $(date +%s)))
	[ $l -lt 1 ] && l=1
	echo $l
}
s_err() { echo "stress error: $*"; ERRORS=$((ERRORS + 1)); }
# $RANDOM is 15 bits in busybox ash.
rnd() { echo $(( ((RANDOM << 15) | RANDOM) % $1 )); }

FIO_V="--direct=1 --bs=4k --verify=crc32c --verify_fatal=1 --do_verify=1 --verify_state_save=0 --allow_file_create=0"

fio_bg() {
	local tag=$1; shift
	rm -f "/tmp/$tag.json" "/tmp/$tag.err"
	fio "$@" --output-format=json --output="/tmp/$tag.json" \
		2> "/tmp/$tag.err" > /dev/null &
	FIO_PID=$!
}

# fio_json FILE: "reads writes failed_jobs" of a fio JSON report.
fio_json() {
	[ -s "$1" ] || { echo "0 0 0"; return; }
	awk '
	/"read" : \{/ { d = "r" } /"write" : \{/ { d = "w" }
	/"trim" : \{/ { d = "t" } /"sync" : \{/ { d = "s" }
	/"total_ios" :/ { v = $3; gsub(/[^0-9]/, "", v)
		if (d == "r") r += v; else if (d == "w") w += v }
	/^ *"error" :/ { v = $3; gsub(/[^0-9]/, "", v); if (v + 0 > 0) e++ }
	END { print r + 0, w + 0, e + 0 }' "$1"
}

# s_wait PID SECS: wait for PID, at most SECS seconds; 1 if it is still
# there then (killed).
s_wait() {
	local pid=$1 n=0
	while kill -0 "$pid" 2>/dev/null; do
		if [ $n -ge $(($2 * 5)) ]; then
			kill -9 "$pid" 2>/dev/null
			return 1
		fi
		usleep 200000
		n=$((n + 1))
	done
	return 0
}

fio_collect() {
	local tag=$1 pid=$2 mode=$3 rc r w e
	if ! s_wait "$pid" "$S_HANG"; then
		s_err "fio $tag (pid $pid) still running ${S_HANG}s after its end: hung"
		ps -o pid,stat,args 2>/dev/null | grep '[f]io' | head -5
		return
	fi
	wait "$pid"
	rc=$?
	set -- $(fio_json "/tmp/$tag.json")
	r=$1 w=$2 e=$3
	case $mode in
	verify)
		VERIFIED=$((VERIFIED + r)); IOS=$((IOS + r + w))
		if [ "$rc" != 0 ] || [ "$e" != 0 ] ||
		   grep -qE 'verify:|bad (magic|header)|crc32c' "/tmp/$tag.err"; then
			s_err "fio $tag: rc=$rc, $e job(s) with errors"
			grep -E 'verify|err=|fio:' "/tmp/$tag.err" | head -5
		fi ;;
	load)
		IOS=$((IOS + r + w))
		if [ "$rc" != 0 ] || [ "$e" != 0 ]; then
			s_err "fio $tag: rc=$rc, $e job(s) with errors"
			grep -E 'err=|fio:' "/tmp/$tag.err" | head -5
		fi ;;
	lossy)
		IOS=$((IOS + r + w)) ;;
	esac
}

s_finish() {
	echo "STRESS-RESULT $S_NAME iterations=$ITER ios_verified=$VERIFIED ios=$IOS errors=$ERRORS secs=$(($(date +%s) - S_T0))"
	[ "$ERRORS" = 0 ] || exit 1
	exit 0
}

# s_nullb NAME [key=value ...]: mk_nullb with bfq selected on it; prints
# the disk name.
s_nullb() {
	local d
	d=$(mk_nullb "$@") || return 1
	set_sched "$d" bfq || { echo "cannot select bfq on $d" >&2; return 1; }
	echo "$d"
}

# s_ios DEV: reads + writes DEV has completed. s_io_wait DEV BASE [SECS]:
# wait (at most SECS, default 20) until that passes BASE by 16 (fio starts
# slowly under KASAN).
s_ios() {
	local st
	st=$(cat /sys/block/$1/stat 2>/dev/null) || { echo 0; return; }
	set -- $st
	echo $(($1 + $5))
}
s_io_wait() {
	local n=0
	while [ $n -lt $((${3:-20} * 10)) ]; do
		[ "$(s_ios $1)" -gt $(($2 + 16)) ] && return 0
		usleep 100000; n=$((n + 1))
	done
	return 1
}

# s_pids PID: PID and its descendants (fio forks its jobs).
s_pids() {
	cat /proc/[0-9]*/stat 2>/dev/null | sed 's/ (.*) / x /' |
	awk -v root="$1" '{ pp[$1] = $4 }
	END { out[root] = 1; ch = 1
	      while (ch) { ch = 0
		for (p in pp) if (!(p in out) && (pp[p] in out)) { out[p] = 1; ch = 1 } }
	      for (p in out) if (p in pp) print p }'
}

# cgroup v2 with the io controller, for the scenarios that move processes:
# s_cg_init makes /sys/fs/cgroup/stress/{a,b,c} and stress/n/{x,y} (io
# enabled down to the leaves, io.bfq.weight set at random where the file
# exists); S_CGROUPS lists the leaves and the root, where processes may
# live. Returns 1 when cgroup2 or its io controller is missing.
CG=/sys/fs/cgroup
s_cg_weight() {
	[ -e "$1/io.bfq.weight" ] || return 0
	echo $((1 + $(rnd 1000))) > "$1/io.bfq.weight" ||
		s_err "io.bfq.weight refused in $1"
}
s_cg_init() {
	local g
	mkdir -p $CG
	grep -q " $CG cgroup2 " /proc/mounts || mount -t cgroup2 none $CG || return 1
	grep -qw io $CG/cgroup.controllers || { echo "no io controller"; return 1; }
	echo +io > $CG/cgroup.subtree_control || return 1
	mkdir -p $CG/stress
	echo +io > $CG/stress/cgroup.subtree_control || return 1
	S_CGROUPS=$CG
	for g in a b c n; do
		mkdir -p $CG/stress/$g
		s_cg_weight $CG/stress/$g
	done
	echo +io > $CG/stress/n/cgroup.subtree_control || return 1
	for g in n/x n/y; do
		mkdir -p $CG/stress/$g
		s_cg_weight $CG/stress/$g
	done
	S_CGROUPS="$CG $CG/stress/a $CG/stress/b $CG/stress/c $CG/stress/n/x $CG/stress/n/y"
	echo "cgroups: $S_CGROUPS (io.bfq.weight: $([ -e $CG/stress/a/io.bfq.weight ] && echo yes || echo absent))"
}
# s_cg_pick: one of S_CGROUPS at random.
s_cg_pick() {
	set -- $S_CGROUPS
	shift $(rnd $#)
	echo "$1"
}
# s_cg_move PID [GROUP]: move PID (into GROUP, default a random one); 0
# when moved or when PID has exited meanwhile.
s_cg_move() {
	local g=${2:-$(s_cg_pick)}
	echo "$1" > "$g/cgroup.procs" 2>/dev/null && return 0
	kill -0 "$1" 2>/dev/null && return 1
	return 0
}
# s_cg_empty GROUP: cg_empty of lib.sh into one of the stress's groups.
s_cg_empty() {
	cg_empty "$1" "$(s_cg_pick)"
}
# s_cg_fini: every process back in the root, the groups removed.
s_cg_fini() {
	local g p
	[ -d $CG/stress ] || return 0
	for g in $CG/stress/n/x $CG/stress/n/y $CG/stress/a $CG/stress/b \
		 $CG/stress/c $CG/stress/n/* $CG/stress/n $CG/stress; do
		[ -d "$g" ] || continue
		for p in $(cat "$g/cgroup.procs" 2>/dev/null); do
			echo "$p" > $CG/cgroup.procs 2>/dev/null
		done
	done
	for g in $(find $CG/stress -depth -type d); do rmdir "$g" 2>/dev/null; done
	[ -d $CG/stress ] && echo "cgroups left: $(find $CG/stress -type d | tr '\n' ' ')"
	return 0
}

# Stress 8: hostile input to every file in /sys/block/DEV/queue/iosched/.
# Each case is one write(2) of some bytes: type edges (0, -1, 2^31-1, 2^31,
# 2^32, 2^63-1, 2^64-1, 2^64, -2^63), huge numbers, garbage, 4000-character
# strings, partial numbers ("12abc", "1 2", " 5", "0x10", "+3", "5\n\n"),
# empty, then random digits and random bytes until the time is up. Around
# each write the file is read: the write must either fail with the value
# unchanged, or succeed with the value read back equal to the decimal parse
# of the input (kstrtou64: an optional '+', digits, at most one trailing
# newline); a zero-length write changes nothing. Light verifying I/O runs
# meanwhile. Iterations: cases.
. /tests/slib.sh
trap 'rm_nullb ho0 >/dev/null 2>&1' EXIT

load_bfq || die "cannot load bfq"
dev=$(s_nullb ho0 size=64 hw_queue_depth=4) || die "no null_blk"
D=/sys/block/$dev/queue/iosched
files=$(ls $D)
echo "iosched: $(echo $files)"

fio_bg ho-w --filename=/dev/$dev $FIO_V --runtime=$(s_left) \
    --name=w --ioengine=psync --rw=randwrite --size=32M --verify_backlog=32
wpid=$FIO_PID

IN=/tmp/hostile.in
# expect FILE: "reject", or the normalized decimal value the bytes of FILE
# parse to.
expect() {
	local n body
	# The kernel sees the bytes up to the first NUL.
	n=$(od -An -v -tu1 $1 | tr -s ' ' '\n' | grep -v '^$' | grep -n '^0$' |
		head -1 | cut -d: -f1)
	body=$(if [ -n "$n" ]; then head -c $((n - 1)) $1; else cat $1; fi; echo x)
	body=${body%x}
	# One trailing newline is allowed.
	case "$body" in *"
") body=${body%?} ;; esac
	case "$body" in
	+*) body=${body#+} ;;
	esac
	case "$body" in
	''|*[!0-9]*) echo reject; return ;;
	esac
	# Leading zeros off; more than 2^64-1 overflows.
	body=$(echo "$body" | sed 's/^0*//')
	[ -z "$body" ] && body=0
	if [ ${#body} -gt 20 ] ||
	   { [ ${#body} = 20 ] && [ "$body" \> 18446744073709551615 ]; }; then
		echo reject; return
	fi
	echo "$body"
}

# case1 FILE INPUT WANT [FORMAT]: one write of the bytes of INPUT to FILE
# (by dd; or, with FORMAT, by the shell's printf FORMAT, which forks
# nothing), checked against WANT (expect's answer for those bytes, or
# "empty").
case1() {
	local f=$D/$1 in=$2 want=$3 before after ok
	read -r before < $f || { s_err "$1 unreadable"; return; }
	if [ $# = 4 ]; then
		if printf "$4" > $f 2>/dev/null; then ok=1; else ok=0; fi
	elif dd if=$in of=$f bs=8192 conv=notrunc 2>/dev/null; then ok=1
	else ok=0; fi
	read -r after < $f || { s_err "$1 unreadable after a write"; return; }
	ITER=$((ITER + 1))
	if [ "$want" = empty ]; then
		[ "$after" = "$before" ] || s_err "$1: empty write changed '$before' to '$after'"
		return
	fi
	[ $# = 4 ] && printf "$4" > $in
	if [ $ok = 0 ]; then
		REJ=$((REJ + 1))
		[ "$after" = "$before" ] ||
			s_err "$1: '$(show $in)' refused but value changed '$before' -> '$after'"
	elif [ "$want" = reject ]; then
		s_err "$1: '$(show $in)' is no decimal number but was accepted (reads '$after', was '$before')"
	else
		ACC=$((ACC + 1))
		[ "$after" = "$want" ] ||
			s_err "$1: '$(show $in)' accepted but reads '$after' (want $want)"
	fi
	# Back to where it was, so that the next case starts from sane values.
	[ "$after" = "$before" ] || echo "$before" > $f || s_err "$1: cannot restore $before"
}
show() { head -c 40 $1 | tr -c '[:print:]' '?'; }

long_digits=$(printf '%4000s' | tr ' ' 1)
long_alpha=$(printf '%4000s' | tr ' ' a)
# Each case as a printf format (no %).
CASES='0
0\n
1\n
-1
-0
2147483647
2147483648
4294967295
4294967296
9223372036854775807
9223372036854775808
18446744073709551615
18446744073709551616
-9223372036854775808
99999999999999999999999999999999999999
abc
12abc
1 2
 5
5 
0x10
+3
++3
+
-
5\n\n
\n5
\n
\t7
007
1e3
1.5
\0011
8\000
\377\376'
REJ=0 ACC=0
# The short edge cases are written by printf from their format; what each
# must parse to is worked out once, in W_1, W_2, ...
i=0
while IFS= read -r c; do
	i=$((i + 1)); printf "$c" > $IN; eval "W_$i=\$(expect $IN)"
done <<EOF
$CASES
EOF
# The empty and the long ones go through files and dd.
printf '%s' "$long_digits" > $IN.2
printf '%s' "$long_alpha" > $IN.3
printf '%s\n' "$long_digits" > $IN.4
for t in $files; do
	i=0
	while IFS= read -r c; do
		i=$((i + 1)); eval "w=\$W_$i"
		case1 $t $IN "$w" "$c"
	done <<EOF
$CASES
EOF
	: > $IN; case1 $t $IN empty
	for c in 2 3 4; do case1 $t $IN.$c reject; done
done
echo "edge cases: $ITER ($ACC accepted, $REJ refused) over $(echo $files | wc -w) files"

# Random cases until the time is up: numbers of 1-22 digits, sometimes
# signed, sometimes with a newline; or 1-64 random bytes.
set -- $files
nf=$#
while s_running; do
	set -- $files
	shift $(rnd $nf)
	t=$1
	case $(rnd 4) in
	0|1)	s=; n=$((1 + $(rnd 22)))
		while [ ${#s} -lt $n ]; do s=$s$((RANDOM % 10)); done
		case $(rnd 6) in 0) s=+$s ;; 1) s=-$s ;; esac
		if [ $(rnd 2) = 0 ]; then printf '%s\n' "$s" > $IN; else printf '%s' "$s" > $IN; fi ;;
	2)	printf '%s\n' $(rnd 2000000) > $IN ;;
	3)	head -c $((1 + $(rnd 64))) /dev/urandom > $IN ;;
	esac
	w=$(expect $IN)
	[ -s $IN ] || w=empty
	case1 $t $IN "$w"
done
echo "all cases: $ITER ($ACC accepted, $REJ refused)"
fio_collect ho-w $wpid verify
set_sched "$dev" none
rm_nullb ho0
s_finish

# The end of a debug-kernel run: a kmemleak scan (twice, 6 s apart, as
# kmemleak reports only objects older than 5 s). Each suspected leak is
# printed between KMEMLEAK-BEGIN and KMEMLEAK-END, headed by
# "KMEMLEAK-RECORD ours" when its text (allocation backtrace included)
# mentions bfq or blk, else "KMEMLEAK-RECORD other"; the host counts the
# first kind as reports and states the others. Skipped (with a note) when
# the kernel has no kmemleak.
. /tests/slib.sh
K=/sys/kernel/debug/kmemleak
if [ ! -e $K ]; then
	echo "no $K: kmemleak not enabled in $(uname -r)"
	echo "KMEMLEAK-END ours=0 other=0 scans=0"
	s_finish
fi
echo scan > $K || s_err "kmemleak scan refused"
sleep 6
echo scan > $K || s_err "kmemleak scan refused"
cat $K > /tmp/kmemleak.txt
echo "KMEMLEAK-BEGIN"
awk '
function flush() {
	if (rec == "") return
	k = (rec ~ /bfq|blk/) ? "ours" : "other"
	n[k]++
	printf "KMEMLEAK-RECORD %s\n%s", k, rec
	rec = ""
}
/unreferenced object/ { flush() }
{ rec = rec $0 "\n" }
END { flush(); printf "KMEMLEAK-END ours=%d other=%d scans=2\n", n["ours"], n["other"] }
' /tmp/kmemleak.txt
ITER=2
s_finish

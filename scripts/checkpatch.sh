#!/bin/bash
# checkpatch.sh KVER: run the kernel's scripts/checkpatch.pl --strict --no-tree
# -f on each of our C files (top-level bfq-*.c and bfq-*.h, the KUnit
# bfq-*-test.c included) and write one line per file,
#   PASS: checkpatch/<file>   or   FAIL: checkpatch/<file>
# to build/KVER/results/checkpatch.txt; the findings of failed files are
# printed and kept in build/KVER/results/checkpatch.log. Exits non-zero if a
# file fails. Any ERROR, WARNING or CHECK fails the file.
#
# One checkpatch is enough for both kernels: 6.12's (newer rules) is used when
# that series is in the cache, else KVER's own.
# Ignored message types, each with its reason, are in .checkpatch.conf at the
# repository root (checkpatch.pl reads it from the directory it runs in).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

KVER=${1:?usage: checkpatch.sh 6.1|6.12|latest}
kver_dir "$KVER" > /dev/null
if [ -f "$BFQ_CACHE/6.12/.fetched" ]; then
	cp_tree=$BFQ_CACHE/6.12/linux
else
	"$BFQ_TOP/scripts/fetch-kernel.sh" "$KVER"
	cp_tree=$(kver_dir "$KVER")/linux
fi
res=$BFQ_TOP/build/$KVER/results
mkdir -p "$res"
out=$res/checkpatch.txt
logf=$res/checkpatch.log
: > "$out"
: > "$logf"

cd "$BFQ_TOP"
shopt -s nullglob
files=(bfq-*.c bfq-*.h)
if [ ${#files[@]} -eq 0 ]; then
	echo "FAIL: checkpatch/no-sources" | tee "$out"
	exit 1
fi
fail=0
# Findings dropped one by one (not by type, which would hide real ones):
# CONSTANT_COMPARISON on a LINUX_VERSION_CODE line. checkpatch takes the
# all-capitals LINUX_VERSION_CODE for a constant and wants it on the right of
# `>= KERNEL_VERSION(...)`; such version tests exist only out of tree.
# SPACING on the TRACE_INCLUDE_FILE line of bfq-trace.h: define_trace.h
# includes "<path>/<TRACE_INCLUDE_FILE>.h", so it must be the file's name,
# dash included; checkpatch reads the dash as a minus.
drop_findings() {
	awk 'BEGIN { RS = ""; ORS = "\n\n" }
	     /^WARNING:CONSTANT_COMPARISON:/ && /\+#(el)?if .*LINUX_VERSION_CODE/ { next }
	     /^CHECK:SPACING:/ && /\+#define TRACE_INCLUDE_FILE bfq-trace/ { next }
	     { print }'
}
for f in "${files[@]}"; do
	o=$(perl "$cp_tree/scripts/checkpatch.pl" --strict --no-tree \
		--show-types --no-summary --color=never -q -f "$f" 2>&1) && rc=0 || rc=$?
	o=$(printf '%s\n' "$o" | drop_findings)
	if [ -z "$o" ] && { [ $rc = 0 ] || [ $rc = 1 ]; }; then
		echo "PASS: checkpatch/$f" >> "$out"
	else
		echo "FAIL: checkpatch/$f" >> "$out"
		printf '%s\n' "$o" | tee -a "$logf"
		fail=1
	fi
done
cat "$out"
exit $fail

#!/bin/bash
# kunit.sh KVER: run BFQ's KUnit suites (bfq_*) on Debian's linux-source KVER.
#
# Syncs our sources into the in-tree copy (scripts/intree.sh --sync-only),
# then from that tree runs
#   tools/testing/kunit/kunit.py run --arch=x86_64
#       --kunitconfig=tests/.kunitconfig --build_dir=$BFQ_CACHE/KVER/kunit-build
# which builds a small x86_64 kernel and boots it in qemu-system-x86_64 (TCG,
# no KVM needed). The build dir is kept, so a rerun recompiles only what
# changed. Prints kunit.py's summary, writes one line per test case,
#   PASS: kunit/KVER/<suite>.<case>   (FAIL:, or SKIP: which counts neither)
# to build/KVER/results/kunit.txt (kunit.py's log and JSON next to it), and
# exits non-zero if anything failed. A build failure is the single line
# FAIL: kunit/KVER/build.
#
# Environment: KUNITCONFIG (default tests/.kunitconfig), KUNIT_FILTER (default 'bfq*', kunit.py's filter_glob: only our
# suites run), KUNIT_TIMEOUT (seconds for the test run, default 600),
# KUNIT_ARGS (more kunit.py arguments, e.g. --kconfig_add=...), KUNIT_SLOT
# (a name: the in-tree copy and build dir get it as a suffix, so that two
# checkouts, e.g. git worktrees, can run their suites at the same time).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

KVER=${1:?usage: kunit.sh 6.1|6.12|latest}
dir=$(kver_dir "$KVER")
res=$BFQ_TOP/build/$KVER/results
mkdir -p "$res"
out=$res/kunit.txt
: > "$out"

slot=${KUNIT_SLOT:+-$KUNIT_SLOT}
tree=$dir/intree$slot
if ! "$BFQ_TOP/scripts/intree.sh" --sync-only "$KVER" "$tree"; then
	echo "FAIL: kunit/$KVER/build" | tee "$out"
	exit 1
fi
rm -f "$res/kunit.json"

# kunit.py run builds even when nothing changed: on a busy 2-core host
# make's walk of the tree alone takes a minute or more. When the inputs
# of the last good build (the config fragment, KUNIT_ARGS, the tree's
# version, block/ of the tree, which holds all of our sources) are this
# run's, the kernel is only booted (kunit.py exec).
bdir=$dir/kunit-build$slot
kcfg=${KUNITCONFIG:-$BFQ_TOP/tests/.kunitconfig}
stamp=$bdir/.bfq-inputs
key=$( { cat "$kcfg"; echo "${KUNIT_ARGS:-}"; head -n 5 "$tree/Makefile"
	 find "$tree/block" -maxdepth 1 -type f \( -name '*.[ch]' \
	      -o -name 'Kconfig*' -o -name 'Makefile*' \) -print0 |
		sort -z | xargs -0 sha256sum; } | sha256sum | cut -c1-32)
verb=run jobs=--jobs=$(nproc)
if [ -f "$bdir/arch/x86/boot/bzImage" ] &&
   [ "$(cat "$stamp" 2>/dev/null)" = "$key" ]; then
	verb=exec jobs=
	echo "== kunit/$KVER: $bdir is built from these sources: booting it"
fi
rm -f "$stamp"
# TCG only: kunit.py of 7.x asks qemu for "-accel kvm -accel hvf -accel
# tcg", and where /dev/kvm exists but cannot run the guest (a nested
# host without the CPU features it needs: "KVM internal error ...
# emulation failure") qemu stops at the first instruction KVM cannot
# emulate, and no test runs. A qemu-system-x86_64 first in PATH drops
# every accelerator but tcg; older kunit.py names none, and it changes
# nothing.
qbin=$(mktemp -d)
trap 'rm -rf "$qbin"' EXIT
real_qemu=$(command -v qemu-system-x86_64) || die "qemu-system-x86_64 missing: run scripts/deps.sh"
cat > "$qbin/qemu-system-x86_64" <<EOF
#!/bin/bash
args=()
while [ \$# -gt 0 ]; do
	if [ "\$1" = -accel ] && [ "\${2:-}" != tcg ]; then shift 2; continue; fi
	args+=("\$1")
	shift
done
exec $real_qemu "\${args[@]}"
EOF
chmod +x "$qbin/qemu-system-x86_64"
# shellcheck disable=SC2086 # KUNIT_ARGS is a list of arguments; jobs
(cd "$tree" && PATH=$qbin:$PATH python3 tools/testing/kunit/kunit.py $verb --arch=x86_64 \
	--kunitconfig="$kcfg" --build_dir="$bdir" $jobs \
	--timeout="${KUNIT_TIMEOUT:-600}" --json="$res/kunit.json" \
	${KUNIT_ARGS:-} "${KUNIT_FILTER:-bfq*}") > "$res/kunit.log" 2>&1 &&
	rc=0 || rc=$?
# The JSON is written once the kernel has booted: the build is good.
[ ! -s "$res/kunit.json" ] || echo "$key" > "$stamp"
# kunit.py's own report: what it did, the errors of a failed build, the
# summary ("Testing complete. Ran N tests: passed: ...").
grep -vE '^\[[0-9:]+\] +(\[(PASSED|SKIPPED)\]|=+ \[PASSED\])' "$res/kunit.log" |
	grep -vE '^\[[0-9:]+\] =+ [^ ]+ +\(?[0-9]* ?(subtests?\))? *=+$' |
	grep -v "^stty: 'standard input'" | tail -n 60

if [ ! -s "$res/kunit.json" ]; then
	# No JSON: kunit.py stopped before running tests (config or build).
	echo "FAIL: kunit/$KVER/build" | tee "$out"
	exit 1
fi

python3 "$BFQ_TOP/scripts/kunit-results.py" "$res/kunit.json" "$KVER" "$rc" >> "$out"
cat "$out"
! grep -q '^FAIL:' "$out"

#!/bin/bash
# blktests-table.sh KVER STOCK OURS: the table of two blktests result files
# (scripts/blktests.sh writes them: "<test> TAB <status> TAB <detail>"),
# test | stock | ours, each cell pass, fail, skip or not run ("-": no such
# file or line); the counts of each column; then for every test that passes
# with stock
#   PASS: blktests/KVER/<test>   when it passes with ours too
#   FAIL: blktests/KVER/<test>   when it does not (with ours' detail)
# and "N passed, N failed" last. A test that stock does not pass counts
# neither way; where ours passes it and stock does not, a NOTE says so.
# Exits 1 when any line is a FAIL.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

KVER=${1:?usage: blktests-table.sh KVER STOCK OURS}
stock=${2:?}
ours=${3:?}
for f in "$stock" "$ours"; do
	[ -f "$f" ] || log "no $f: its column is empty"
done

awk -F'\t' -v kver="$KVER" -v sf="$stock" -v of="$ours" '
	function load(file, st, dt,    line, n, a) {
		while ((getline line < file) > 0) {
			n = split(line, a, "\t")
			if (n < 2) continue
			st[a[1]] = a[2]; dt[a[1]] = a[3]
			if (!(a[1] in seen)) { seen[a[1]] = 1; ids[++nid] = a[1] }
		}
		close(file)
	}
	function cell(st, id) { return (id in st) ? st[id] : "-" }
	BEGIN {
		load(sf, ss, sd); load(of, os, od)
		# Sorted by name (block/001 ... dm/002, a device or condition
		# after its test).
		for (i = 1; i <= nid; i++)
			for (j = i + 1; j <= nid; j++)
				if (ids[j] < ids[i]) { t = ids[i]; ids[i] = ids[j]; ids[j] = t }
		printf "blktests on %s, bfq the scheduler of every test device:\n\n", kver
		print "| test | stock | ours |"
		print "| --- | --- | --- |"
		for (i = 1; i <= nid; i++) {
			id = ids[i]; s = cell(ss, id); o = cell(os, id)
			printf "| %s | %s | %s |\n", id, s, o
			cs[s]++; co[o]++
		}
		printf "\nstock: %d pass, %d fail, %d skip, %d not run\n", cs["pass"], cs["fail"], cs["skip"], cs["not run"]
		printf "ours:  %d pass, %d fail, %d skip, %d not run\n\n", co["pass"], co["fail"], co["skip"], co["not run"]
		for (i = 1; i <= nid; i++) {
			id = ids[i]; s = cell(ss, id); o = cell(os, id)
			if (s == "pass" && o == "pass") { printf "PASS: blktests/%s/%s\n", kver, id; np++ }
			else if (s == "pass") {
				printf "FAIL: blktests/%s/%s (ours: %s%s)\n", kver, id, o, (id in od && od[id] != "") ? ": " od[id] : ""
				nf++
			} else if (o == "pass")
				printf "NOTE: blktests/%s/%s passes with ours, stock: %s%s\n", kver, id, s, (id in sd && sd[id] != "") ? ": " sd[id] : ""
			else if (s != o)
				printf "NOTE: blktests/%s/%s stock: %s%s; ours: %s%s\n", kver, id, s, (id in sd && sd[id] != "") ? " (" sd[id] ")" : "", o, (id in od && od[id] != "") ? " (" od[id] ")" : ""
		}
		printf "%d passed, %d failed\n", np, nf
		exit nf > 0
	}'

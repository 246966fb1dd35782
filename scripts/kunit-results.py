#!/usr/bin/env python3
# kunit-results.py JSON NAME RC: kunit.py's JSON results as our result
# lines, one per test case:
#   PASS: kunit/NAME/<suite>.<case>   (FAIL:, or SKIP: which counts neither)
# A parameterised case passes when all its parameters do. No case at all is
# FAIL: kunit/NAME/no-tests-ran; a non-zero RC (kunit.py's or the boot's
# status) with every case passed is FAIL: kunit/NAME/run (a crash after the
# last test, a lost result). Used by scripts/kunit.sh and kunit-debug.sh.
import json, sys
path, kver, rc = sys.argv[1], sys.argv[2], int(sys.argv[3])
top = json.load(open(path))
lines = []

def verdict(statuses):
    if any(s not in ("PASS", "SKIP") for s in statuses):
        return "FAIL"
    return "SKIP" if statuses and all(s == "SKIP" for s in statuses) else "PASS"

def leaves(group):
    out = [c["status"] for c in group.get("test_cases", [])]
    for g in group.get("sub_groups", []):
        out += leaves(g)
    return out

for suite in top.get("sub_groups", []):
    for case in suite.get("test_cases", []):
        lines.append((case["status"] if case["status"] in ("PASS", "SKIP")
                      else "FAIL", suite["name"], case["name"]))
    # A parameterised case is a group of its parameters: it passes when
    # they all do.
    for case in suite.get("sub_groups", []):
        lines.append((verdict(leaves(case)), suite["name"], case["name"]))
for case in top.get("test_cases", []):
    lines.append(("FAIL" if case["status"] not in ("PASS", "SKIP")
                  else case["status"], "(top)", case["name"]))
for status, suite, case in lines:
    print(f"{status}: kunit/{kver}/{suite}.{case}")
if not lines:
    print(f"FAIL: kunit/{kver}/no-tests-ran")
elif rc != 0 and not any(s == "FAIL" for s, _, _ in lines):
    # kunit.py failed although every case parsed passed (e.g. a crash
    # after the last test, or a lost result).
    print(f"FAIL: kunit/{kver}/run")

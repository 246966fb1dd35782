#!/usr/bin/python3
"""demo-report.py LOG OUTDIR: read the VMDEMO blocks of a demo guest log
(scripts/vm/demo-guest.sh), print the scheduler x reader bandwidth table and
write OUTDIR/results.txt, OUTDIR/results.json and OUTDIR/bandwidth.png."""
import json
import os
import re
import sys

ORDER = ["ours", "stock", "mq-deadline"]
TITLES = {"ours": "our bfq.ko", "stock": "stock bfq.ko",
          "mq-deadline": "mq-deadline"}
READERS = ["prio0", "prio7"]


def blocks(path):
    """{(label, what): [lines]} from the VMDEMO-BEGIN/END blocks."""
    out, cur, key = {}, None, None
    prefix = re.compile(r"^\[demo-guest\] ?")
    kmsg = re.compile(r"^\[\s*\d+\.\d+\]")
    with open(path, errors="replace") as f:
        for raw in f:
            line = raw.replace("\r", "").rstrip("\n")
            if kmsg.match(line):        # kernel messages on the console
                continue
            line = prefix.sub("", line)
            if line.startswith("VMDEMO-BEGIN "):
                _, label, what = line.split()[:3]
                key, cur = (label, what), []
            elif line == "VMDEMO-END" and cur is not None:
                out[key] = cur
                cur = None
            elif cur is not None:
                cur.append(line)
    return out


def main():
    log, outdir = sys.argv[1], sys.argv[2]
    b = blocks(log)
    res = {}
    for label in ORDER:
        bw = {}
        for r in READERS:
            lines = b.get((label, "json-" + r))
            if not lines:
                continue
            text = "\n".join(lines)
            text = text[text.find("{"):]  # fio may print notes before it
            try:
                data = json.loads(text)
            except ValueError as e:
                print(f"demo: {label}/{r}: unreadable fio JSON ({e})",
                      file=sys.stderr)
                continue
            for j in data["jobs"]:
                bw[j["jobname"]] = j["read"]["bw"] / 1024.0
        if not bw:
            continue
        series = {}
        for r in READERS:
            pts = []
            for ln in b.get((label, "bwlog-" + r), []):
                f = [x.strip() for x in ln.split(",")]
                if len(f) >= 2 and f[0].isdigit():
                    pts.append((int(f[0]) / 1000.0, int(f[1]) / 1024.0))
            series[r] = pts
        # fio logs a 500 ms window only when the reader completed I/O in
        # it: a missing window is a starved one, plotted as 0.
        end = max([p[0] for r in READERS for p in series[r]] or [0])
        for r in READERS:
            have = {round(t * 2): v for t, v in series[r]}
            series[r] = [(k / 2.0, have.get(k, 0.0))
                         for k in range(1, round(end * 2) + 1)]
        res[label] = {"bw_MiBps": bw, "series": series}

    if not res:
        print("demo: no results in " + log, file=sys.stderr)
        return 1
    rows = ["%-14s %12s %12s %8s" % ("scheduler", "prio0 MiB/s",
                                       "prio7 MiB/s", "ratio")]
    for label in ORDER:
        if label not in res:
            rows.append("%-14s %12s %12s %8s" % (TITLES[label], "-", "-", "-"))
            continue
        bw = res[label]["bw_MiBps"]
        hi, lo = bw.get("prio0", 0.0), bw.get("prio7", 0.0)
        ratio = "%.2f" % (hi / lo) if lo > 0 else "inf"
        rows.append("%-14s %12.2f %12.2f %8s" % (TITLES[label], hi, lo, ratio))
    load = os.environ.get("DEMO_HOST_LOAD")
    if load:
        rows.append("(host load average before the boot: %s on %d cores; under"
                    " TCG the guest's timing depends on it)"
                    % (load, os.cpu_count()))
    table = "\n".join(rows)
    print(table)
    with open(f"{outdir}/results.txt", "w") as f:
        f.write(table + "\n")
    with open(f"{outdir}/results.json", "w") as f:
        json.dump(res, f, indent=1)

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    labels = [l for l in ORDER if l in res]
    fig, axes = plt.subplots(1, len(labels), figsize=(5.5 * len(labels), 4),
                             sharey=True, squeeze=False)
    for ax, label in zip(axes[0], labels):
        for r, style in zip(READERS, ["-", "--"]):
            pts = res[label]["series"][r]
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], style,
                        marker=".", label="%s (%.2f MiB/s)"
                        % (r, res[label]["bw_MiBps"].get(r, 0)))
        ax.set_title(TITLES[label])
        ax.set_xlabel("time (s)")
        ax.grid(True, alpha=0.3)
        ax.legend(loc="best", fontsize="small")
    axes[0][0].set_ylabel("bandwidth (MiB/s, 500 ms averages)")
    m = re.search(r"completion (\d+) ns", open(log, errors="replace").read())
    svc = " %.2f ms service," % (int(m.group(1)) / 1e6) if m else ""
    fig.suptitle("Two random 4k readers (libaio, 4 in flight), ionice -c2"
                 " -n0 vs -n7; null_blk" + svc + " hw_queue_depth=1,"
                 " nr_requests=64; bfq low_latency=0")
    fig.tight_layout()
    fig.savefig(f"{outdir}/bandwidth.png", dpi=100)
    print(f"plot: {outdir}/bandwidth.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())

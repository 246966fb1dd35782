#!/usr/bin/python3
"""report.py LABDIR: LABDIR/report.md from the lab's results.

Reads LABDIR/<KVER>/<experiment>.txt (the guest's LAB-TABLE blocks and
LAB-DATA lines, split out by scripts/lab.sh) and LABDIR/<KVER>/run.txt
for every kernel present; writes LABDIR/report.md with every table, BFQ's
published figures (../shared/bfq-results/, transcribed below with their
source) beside ours where the shapes compare, and PNG plots next to it.
"""
import os
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

EXPERIMENTS = ["calibrate", "quick-share", "quick-startup", "exp1-maxbudget",
               "exp2-shares", "exp3-webserver", "exp4-dbms", "exp5-video",
               "exp6-startup", "exp7-readers"]
SCHEDS = ["ours", "stock", "mq-deadline", "kyber", "none"]
V0 = "bfq-v0-results-linux-2.6.21.txt"
MQ = "bfq-mq-results-linux-4.19.txt"

# Published figures (bfq-v0-results-linux-2.6.21.txt): IBM DTLA-307030,
# ~36 MB/s outer zone. Experiment 1: best aggregate throughput of 2
# readers of 128 MB files at the two ends of the disk, MB/s.
PUB_EXP1 = [("BFQ (max_budget 16384)", 22.46), ("CFQ (slice 100 ms)", 16.91),
            ("C-LOOK", 20.59), ("AS", 32.97),
            ("SCAN-EDF (Tw=4ms)", 23.39), ("YFQ (Tw=4ms)", 10.80)]
PUB_PEAK = 36.0
# Experiment 2: per-reader MB/s, BFQ at max_budget 4096 and others.
PUB_EXP2 = [
    ("BFQ", "eq1,1", [9.95, 9.81]),
    ("BFQ", "eq1,1,1,1,1", [4.29, 4.30, 4.30, 4.29, 4.31]),
    ("BFQ", "2,1", [14.62, 7.31]),
    ("BFQ", "2,2,2,1,1", [5.60, 5.60, 5.60, 2.81, 2.81]),
    ("BFQ", "10,1", [26.81, 2.77]),
    ("BFQ", "10,2,2,1,1", [16.06, 3.25, 3.25, 1.64, 1.65]),
    ("CFQ", "eq1,1", [11.92, 8.61]),
    ("CFQ", "eq1,1,1,1,1", [5.24, 4.91, 4.66, 4.37, 4.01]),
    ("C-LOOK", "eq1,1", [11.52, 10.57]),
    ("C-LOOK", "eq1,1,1,1,1", [5.56, 5.14, 5.05, 4.95, 4.83]),
    ("AS", "eq1,1", [32.41, 17.78]),
    ("AS", "eq1,1,1,1,1", [32.83, 31.72, 29.80, 12.56, 18.29]),
]
# Experiment 3: small-file completion s, large-file MB/s, total MB/s.
PUB_EXP3 = [("BFQ", 1.74, 2.26, 17.13), ("CFQ", 3.86, 2.97, 18.20),
            ("SCAN-EDF", 7.68, 3.29, 8.71), ("YFQ", 0.40, 1.36, 6.87),
            ("C-LOOK", 7.78, 9.65, 19.47), ("AS", 7.69, 16.61, 20.60)]
# Experiment 4: (depth, completion s, MB/s).
PUB_EXP4 = [("BFQ", 1, 0.92, 0.44), ("BFQ", 10, 7.93, 0.49),
            ("CFQ", 1, 0.91, 0.45), ("CFQ", 10, 8.01, 0.49),
            ("SCAN-EDF", 1, 0.93, 0.44), ("SCAN-EDF", 10, 6.49, 0.60),
            ("YFQ", 1, 0.69, 0.59), ("YFQ", 10, 6.59, 0.59),
            ("C-LOOK/AS", 1, 0.67, 0.62), ("C-LOOK/AS", 10, 5.52, 0.71)]
# Experiment 5: streams sustained, MB/s in the last 5 s.
PUB_EXP5 = [("BFQ 4096 sect", 24.00, 7.56), ("BFQ 8192 sect", 23.95, 8.15),
            ("BFQ 16384 sect", 18.70, 12.78), ("CFQ 20 ms", 14.35, 12.59),
            ("SCAN-EDF 20 ms", 12.00, 8.93), ("YFQ 4 reqs", 19.00, 5.85),
            ("C-LOOK", 1.8, 22.66), ("AS", 1.1, 28.39)]


def parse(path):
    """(tables, data): tables as {name: [lines]}, data as [dict]."""
    tables, data, cur = {}, [], None
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("LAB-TABLE-BEGIN "):
                cur = line.split(" ", 1)[1]
                tables[cur] = []
            elif line == "LAB-TABLE-END":
                cur = None
            elif line.startswith("LAB-DATA "):
                parts = line.split()[1:]
                d = {"exp": parts[0]}
                for kv in parts[1:]:
                    k, _, v = kv.partition("=")
                    d[k] = v
                data.append(d)
            elif cur is not None:
                tables[cur].append(line)
    return tables, data


def load(labdir):
    runs = {}
    for kver in sorted(os.listdir(labdir)):
        d = os.path.join(labdir, kver)
        if not os.path.isdir(d):
            continue
        run = {"info": "", "exps": {}}
        info = os.path.join(d, "run.txt")
        if os.path.exists(info):
            run["info"] = open(info).read().strip()
        for e in EXPERIMENTS:
            p = os.path.join(d, e + ".txt")
            if os.path.exists(p) and os.path.getsize(p):
                run["exps"][e] = parse(p)
        runs[kver] = run
    return runs


def num(d, k):
    try:
        return float(d.get(k, "nan"))
    except ValueError:
        return float("nan")


def md_table(head, rows):
    out = ["| " + " | ".join(head) + " |",
           "|" + "|".join("---" for _ in head) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return out + [""]


def raw_tables(run, exp):
    out = []
    for name, lines in run["exps"].get(exp, ({}, []))[0].items():
        out += ["```", *lines, "```", ""]
    return out


def plot_exp1(labdir, kver, data):
    rows = [d for d in data if d["exp"] == "exp1"]
    if not rows:
        return None
    fig, ax = plt.subplots(figsize=(6, 4))
    xs = [0, 4096, 8192, 16384]
    for s in ("ours", "stock", "bfq"):
        pts = [(int(d["max_budget"]), num(d, "mbps"), num(d, "ci"))
               for d in rows if d["sched"] == s]
        if pts:
            pts.sort()
            ax.errorbar(range(len(pts)), [p[1] for p in pts],
                        yerr=[p[2] if p[2] == p[2] else 0 for p in pts],
                        marker="o", capsize=3,
                        label="bfq (%s)" % s)
    for s in ("mq-deadline", "kyber", "none"):
        for d in rows:
            if d["sched"] == s:
                ax.axhline(num(d, "mbps"), linestyle="--", linewidth=1,
                           label=s, color={"mq-deadline": "gray",
                                           "kyber": "olive",
                                           "none": "black"}[s])
    ax.set_xticks(range(len(xs)))
    ax.set_xticklabels(["auto (0)"] + [str(x) for x in xs[1:]])
    ax.set_xlabel("max_budget [sectors]")
    ax.set_ylabel("aggregate throughput [MB/s]")
    ax.set_title("2 sequential readers at the disk's two ends (%s)" % kver)
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8)
    name = "exp1-maxbudget-%s.png" % kver
    fig.tight_layout()
    fig.savefig(os.path.join(labdir, name), dpi=90)
    plt.close(fig)
    return name


def plot_bars(labdir, name, title, ylabel, groups, series):
    """groups: x labels; series: {label: [values per group]}."""
    fig, ax = plt.subplots(figsize=(7, 4))
    w = 0.8 / max(len(series), 1)
    for i, (label, vals) in enumerate(series.items()):
        ax.bar([g + i * w for g in range(len(groups))], vals, w, label=label)
    ax.set_xticks([g + 0.4 - w / 2 for g in range(len(groups))])
    ax.set_xticklabels(groups, fontsize=8)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(labdir, name), dpi=90)
    plt.close(fig)
    return name


# The percentiles of exp3's small_pct_ms and exp4's clat_pct_ms.
PCT_LABELS = ["p10", "p50", "p90", "p95", "p99", "p99.9", "max"]


def pcts(d, key):
    vals = [float(v) for v in d.get(key, "").split(",") if v]
    return vals if len(vals) == len(PCT_LABELS) else None


def plot_latency(labdir, kver, runs_exps):
    """exp3's small-file and exp4's request completion-time percentiles,
    one panel per case, a line per scheduler (log scale)."""
    panels = []
    if "exp3-webserver" in runs_exps:
        data = [d for d in runs_exps["exp3-webserver"][1] if d["exp"] == "exp3"]
        panels.append(("exp3: small (16 KiB) file", data, "small_pct_ms"))
    if "exp4-dbms" in runs_exps:
        data = [d for d in runs_exps["exp4-dbms"][1] if d["exp"] == "exp4"]
        for depth in ("1", "10"):
            panels.append(("exp4: 4 KiB read, %s outstanding" % depth,
                           [d for d in data if d.get("depth") == depth],
                           "clat_pct_ms"))
    panels = [p for p in panels if any(pcts(d, p[2]) for d in p[1])]
    if not panels:
        return None
    fig, axes = plt.subplots(1, len(panels), figsize=(4.5 * len(panels), 4),
                             squeeze=False)
    for ax, (title, data, key) in zip(axes[0], panels):
        for d in data:
            vals = pcts(d, key)
            if vals:
                ax.plot(range(len(vals)), [max(v, 0.1) for v in vals],
                        marker="o", label=d["sched"])
        ax.set_xticks(range(len(PCT_LABELS)))
        ax.set_xticklabels(PCT_LABELS, fontsize=8)
        ax.set_yscale("log")
        ax.set_ylabel("completion time [ms]")
        ax.set_title(title, fontsize=9)
        ax.legend(fontsize=7)
    fig.suptitle("latency distributions (%s)" % kver, fontsize=10)
    name = "latency-%s.png" % kver
    fig.tight_layout()
    fig.savefig(os.path.join(labdir, name), dpi=90)
    plt.close(fig)
    return name


def section_latency(labdir, runs):
    out = ["## Latency distributions (experiments 3 and 4)", "",
           "Completion-time percentiles of the web server's small files and "
           "of the DBMS mix's reads, per scheduler (the tables above give "
           "the means).", ""]
    for kver, run in runs.items():
        png = plot_latency(labdir, kver, run["exps"])
        if png:
            out += ["### %s" % kver, "", "![latency %s](%s)" % (kver, png), ""]
    return out


def section_calibrate(labdir, runs):
    out = ["## Calibration", "",
           "The model (tests/lab/diskmodel.c, defaults) against fio in the "
           "guest, scheduler none: sequential 1 MiB direct reads at the "
           "outer and inner edge, 4 KiB random reads at depth 1 over the "
           "whole disk. `model` is `diskmodel -E`.", ""]
    for kver, run in runs.items():
        if "calibrate" in run["exps"]:
            out += ["### %s" % kver, ""] + raw_tables(run, "calibrate")
    return out


def section_quick(labdir, runs):
    out = ["## Quick cases (make lab QUICK=1)", ""]
    for kver, run in runs.items():
        for e in ("quick-share", "quick-startup"):
            if e in run["exps"]:
                out += ["### %s, %s" % (kver, e), ""] + raw_tables(run, e)
    return out


def section_exp1(labdir, runs):
    out = ["## Experiment 1: throughput vs max_budget", "",
           "Published (%s, best value per scheduler, 2 readers of 128 MB "
           "files at the two ends of a ~%d MB/s disk):" % (V0, PUB_PEAK), ""]
    out += md_table(["scheduler", "MB/s", "% of peak"],
                    [(n, v, "%.0f" % (v / PUB_PEAK * 100)) for n, v in PUB_EXP1])
    for kver, run in runs.items():
        if "exp1-maxbudget" not in run["exps"]:
            continue
        data = run["exps"]["exp1-maxbudget"][1]
        out += ["### %s" % kver, ""]
        rows = [(d["sched"], d["max_budget"], d["mbps"], d["ci"],
                 "%.0f" % (num(d, "mbps") / num(d, "peak") * 100))
                for d in data if d["exp"] == "exp1"]
        out += md_table(["scheduler", "max_budget", "MB/s", "+-95%",
                         "% of peak"], rows)
        png = plot_exp1(labdir, kver, data)
        if png:
            out += ["![exp1 %s](%s)" % (kver, png), ""]
    return out


def dev_pct(vals, ws):
    tot, wsum = sum(vals), sum(ws)
    return max(abs(v - tot * w / wsum) / (tot * w / wsum) * 100
               for v, w in zip(vals, ws))


def section_exp2(labdir, runs):
    out = ["## Experiment 2: bandwidth distribution", "",
           "Readers from the outer edge (first) to the inner one (last). "
           "`dev`: the largest deviation of a reader from its ideal share "
           "of the measured total. Published (%s; BFQ at max_budget "
           "4096; weights are per reader):" % V0, ""]
    rows = []
    for s, ws, vals in PUB_EXP2:
        w = [float(x) for x in ws.replace("eq", "").split(",")]
        rows.append((s, ws, " / ".join("%.2f" % v for v in vals),
                     "%.1f%%" % dev_pct(vals, w)))
    out += md_table(["scheduler", "weights", "MB/s per reader", "dev"], rows)
    for kver, run in runs.items():
        if "exp2-shares" not in run["exps"]:
            continue
        data = [d for d in run["exps"]["exp2-shares"][1] if d["exp"] == "exp2"]
        out += ["### %s" % kver, ""]
        rows = []
        for d in data:
            n = len(d["weights"].replace("eq", "").split(","))
            per = " / ".join("%.2f+-%.2f" % (num(d, "r%d" % i), num(d, "ci%d" % i))
                             for i in range(1, n + 1))
            rows.append((d["sched"], d["weights"], d["total"], per,
                         "%.1f%%" % num(d, "maxdev")))
        out += md_table(["scheduler", "weights", "total MB/s",
                         "MB/s per reader +-95%", "dev"], rows)
        cases = []
        for d in data:
            if d["weights"] not in cases:
                cases.append(d["weights"])
        series = {}
        for s in SCHEDS:
            vals = []
            for c in cases:
                m = [num(d, "maxdev") for d in data
                     if d["sched"] == s and d["weights"] == c]
                vals.append(m[0] if m else 0)
            if any(vals):
                series[s] = vals
        if series:
            png = plot_bars(labdir, "exp2-shares-%s.png" % kver,
                            "largest deviation from the ideal share (%s)" % kver,
                            "deviation [%]", cases, series)
            out += ["![exp2 %s](%s)" % (kver, png), ""]
    return out


def section_simple(labdir, runs, exp, key, title, pub_head, pub_rows, cols):
    out = ["## %s" % title, ""]
    if pub_rows:
        out += ["Published (%s):" % V0, ""]
        out += md_table(pub_head, pub_rows)
    for kver, run in runs.items():
        if exp not in run["exps"]:
            continue
        data = [d for d in run["exps"][exp][1] if d["exp"] == key]
        out += ["### %s" % kver, ""]
        out += md_table([c for c, _ in cols],
                        [[d.get(k, "") for _, k in cols] for d in data])
    return out


def section_exp6(labdir, runs):
    out = ["## Experiment 6: start-up time under heavy background I/O", "",
           "Published (%s): on an HDD, BFQ's start-up time under 10r-seq "
           "and 5r5w-seq about as on an idle disk, the other schedulers "
           "fail to start the application within 60 s; on an SSD BFQ's "
           "throughput within ~3%% of the best (10r-rand), the others' "
           "start-up much slower." % MQ, ""]
    for kver, run in runs.items():
        if "exp6-startup" not in run["exps"]:
            continue
        data = [d for d in run["exps"]["exp6-startup"][1] if d["exp"] == "exp6"]
        out += ["### %s" % kver, ""]
        out += md_table(["device", "scheduler", "workload", "start-up ms",
                         "background MB/s, head start (written)",
                         "guest CPU busy, head start",
                         "background MB/s, start-up", "device MB/s, start-up"],
                        [(d["device"], d["sched"], d["workload"],
                          d["startup_ms"],
                          "%s (%s)" % (d["mbps"], d.get("wr_mbps", "")),
                          d.get("cpu_pct", "") + "%",
                          d.get("win_mbps", ""), d.get("dev_win_mbps", ""))
                         for d in data])
        for dev in ("disk", "ssd"):
            kinds = []
            for d in data:
                if d["device"] == dev and d["workload"] != "idle" \
                        and d["workload"] not in kinds:
                    kinds.append(d["workload"])
            series = {}
            for s in SCHEDS:
                vals = [next((num(d, "startup_ms") / 1000 for d in data
                              if d["device"] == dev and d["sched"] == s
                              and d["workload"] == k), 0) for k in kinds]
                if any(vals):
                    series[s] = vals
            if series:
                png = plot_bars(labdir, "exp6-startup-%s-%s.png" % (dev, kver),
                                "start-up time on the %s model (%s)" % (dev, kver),
                                "seconds", kinds, series)
                out += ["![exp6 %s %s](%s)" % (dev, kver, png), ""]
    return out


def main():
    labdir = sys.argv[1]
    runs = load(labdir)
    out = ["# The lab: BFQ's published experiments on a disk model", "",
           "Written by tests/lab/report.py from `make lab` "
           "(tests/lab/README.md: the model, its figures and sources, how "
           "to rerun an experiment on a real disk). Ours is "
           "build/KVER/bfq.ko; stock is Debian's bfq.ko of the same kernel.",
           ""]
    for kver, run in runs.items():
        out += ["Run on %s:" % kver, "", "```", run["info"], "```", ""]
    out += section_calibrate(labdir, runs)
    out += section_quick(labdir, runs)
    out += section_exp1(labdir, runs)
    out += section_exp2(labdir, runs)
    out += section_exp6(labdir, runs)
    out += section_simple(
        labdir, runs, "exp3-webserver", "exp3", "Experiment 3: web-server mix",
        ["scheduler", "small file s", "large file MB/s", "total MB/s"],
        PUB_EXP3,
        [("scheduler", "sched"), ("small files", "small"),
         ("small ms", "small_ms"), ("small p95 ms", "small_p95_ms"),
         ("large files", "large"), ("large MB/s", "large_mbps"),
         ("total MB/s", "total_mbps"),
         ("small ms " + "/".join(PCT_LABELS), "small_pct_ms")])
    out += section_simple(
        labdir, runs, "exp4-dbms", "exp4", "Experiment 4: DBMS mix",
        ["scheduler", "outstanding", "completion s", "MB/s"], PUB_EXP4,
        [("scheduler", "sched"), ("outstanding", "depth"),
         ("completion ms", "completion_ms"), ("MB/s", "mbps"),
         ("IOPS", "iops"),
         ("ms " + "/".join(PCT_LABELS), "clat_pct_ms")])
    out += section_simple(
        labdir, runs, "exp5-video", "exp5", "Experiment 5: video streaming",
        ["scheduler", "streams", "MB/s"], PUB_EXP5,
        [("scheduler", "sched"), ("streams", "streams"),
         ("lost % (last interval)", "lost_pct"), ("MB/s", "mbps"),
         ("worst % > 40 ms late (earlier intervals)", "late40_pct"),
         ("% > 40 ms late (all earlier intervals)", "late40_all_pct")])
    out += section_simple(
        labdir, runs, "exp7-readers", "exp7",
        "Experiment 7: sequential readers together (no published figure)",
        None, None,
        [("scheduler", "sched"), ("readers", "kind"),
         ("readers' MB/s", "read_mbps"), ("device MB/s", "dev_mbps")])
    out += section_latency(labdir, runs)
    with open(os.path.join(labdir, "report.md"), "w") as f:
        f.write("\n".join(out) + "\n")
    print("report: %s" % os.path.join(labdir, "report.md"))


if __name__ == "__main__":
    main()

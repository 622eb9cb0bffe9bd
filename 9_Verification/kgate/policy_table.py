#!/usr/bin/env python3
"""policy_table.py: the policy profiles' measured trade-off, from kgate's JSON reports.

  policy_table.py --marker=NAME --readme=FILE RUN.json [MORE.json ...]

Each candidate's verdict under each profile (default, published, strict,
lenient) is derived, not re-run: a profile that stops the candidate
statically (the report's policy_stops) gives P0 at the time its static scan
answered (seconds_static); any other profile gives the verdict the candidate
got past the static track, from whichever report ran it that far (a run under
a laxer policy: that is what MORE.json is for), at its total time. When no
report has that verdict, the profile's figures say how many are undetermined.
A candidate a report marks beyond_run (labeled with a sanitizer tool that
run did not run) takes its verdict from another report (run_corpus.sh's
sanitizer pass, --sanitize=all).

The table (one row per profile: bad candidates stopped, interception, good
candidates stopped, false kills, median seconds per candidate) replaces what
lies between <!-- NAME:begin --> and <!-- NAME:end --> in FILE, under a line
naming the reports, their mode, device, commit and date. The commit and the
date are the run's: from the provenance lines (# commit:, # date:) of the
text report beside the first JSON file (RUN.txt, as run_corpus.sh writes
it), else KGATE_COMMIT and today. So the table can be made on another
machine than the run, from the files the run left. Without --readme the
table is printed.
"""
import json
import os
import statistics
import sys
import time

POLICIES = ["default", "published", "strict", "lenient"]
STOP = {"P0", "L1", "L2", "L3", "L4"}
GOOD = {"PASS", "EXTERNAL"}


def load(path):
    with open(path) as f:
        return json.load(f)


def provenance(json_path):
    """The run's commit and date from the text report beside a JSON report
    (run_corpus.sh's provenance lines: '# commit: X', '# date: Y'), or {}."""
    txt = os.path.splitext(json_path)[0] + ".txt"
    out = {}
    try:
        with open(txt, errors="replace") as f:
            for line in f:
                if not line.startswith("#"):
                    break
                for key in ("commit", "date"):
                    if line.startswith("# %s: " % key):
                        out[key] = line.split(": ", 1)[1].strip()
    except OSError:
        pass
    return out


def derive(reports):
    """{file: {policy: (verdict or None, seconds)}} and the labels."""
    cands = {}
    for rep in reports:
        run_policy = rep.get("policy", "default")
        for c in rep["candidates"]:
            e = cands.setdefault(c["file"], {"label": c.get("label"), "stops": c.get("policy_stops", {}),
                                             "t_static": c.get("seconds_static"), "dynamic": None, "t_total": None})
            stopped_here = c["verdict"] == "P0" and c.get("policy_stops", {}).get(run_policy, False)
            if rep.get("mode") == "static-only":
                # the static stage: a profile that does not stop it lets it through
                e["dynamic"] = c["verdict"] if c["verdict"] != "P0" else "STATIC-OK"
                e["t_total"] = c.get("seconds_static")
            elif (not stopped_here and c["verdict"] != "SKIPPED" and not c.get("beyond_run")
                  and e["dynamic"] is None):
                # (beyond_run: its label's sanitizer tool did not run there; another report has it)
                e["dynamic"] = c["verdict"]
                e["t_total"] = c.get("seconds_total")
            if c["verdict"] == "SKIPPED":
                e["skipped"] = True
    out = {}
    for f, e in cands.items():
        if e.get("skipped") and e["dynamic"] is None and not any(e["stops"].values()):
            continue
        row = {}
        for p in POLICIES:
            if e["stops"].get(p):
                row[p] = ("P0", e["t_static"])
            else:
                row[p] = (e["dynamic"], e["t_total"])
        out[f] = (e["label"], row)
    return out


def table(reports, title):
    d = derive(reports)
    lines = [title, "",
             "| policy | bad stopped | interception | good stopped | false kills | median s per candidate | undetermined |",
             "|---|---|---|---|---|---|---|"]
    for p in POLICIES:
        bad = good = bad_stop = good_stop = unknown = 0
        times = []
        for f, (label, row) in d.items():
            v, t = row[p]
            if v is None:
                unknown += 1
                continue
            if t is not None:
                times.append(t)
            if label in GOOD:
                good += 1
                good_stop += v in STOP
            elif label in STOP:
                bad += 1
                bad_stop += v in STOP
        pct = lambda a, b: "%.1f%%" % (100.0 * a / b) if b else "n/a"
        med = "%.3f" % statistics.median(times) if times else "n/a"
        lines.append("| `%s` | %d / %d | %s | %d / %d | %s | %s | %d |" % (
            p, bad_stop, bad, pct(bad_stop, bad), good_stop, good, pct(good_stop, good), med, unknown))
    return "\n".join(lines)


def main(argv):
    marker = readme = None
    files = []
    for a in argv[1:]:
        if a.startswith("--marker="):
            marker = a[9:]
        elif a.startswith("--readme="):
            readme = a[9:]
        elif a.startswith("-"):
            print(__doc__, file=sys.stderr)
            return 2
        else:
            files.append(a)
    if not files:
        print(__doc__, file=sys.stderr)
        return 2
    reports = [load(f) for f in files]
    modes = sorted({r.get("mode", "?") for r in reports})
    device = reports[0].get("device", "?")
    run = provenance(files[0])
    commit = run.get("commit") or os.environ.get("KGATE_COMMIT", "")
    if commit == "unknown":
        commit = os.environ.get("KGATE_COMMIT", "")
    date = (run.get("date") or "")[:10] or time.strftime("%Y-%m-%d")
    title = "%s (%s; device: %s; %s%s)" % (
        ", ".join(modes), ", ".join("%s under %s" % (os.path.basename(f), r.get("policy", "default"))
                                    for f, r in zip(files, reports)),
        device, ("commit %s; " % commit) if commit else "",
        ("run on %s" % date) if run.get("date") else "made by policy_table.py on %s" % date)
    t = table(reports, "Stage: " + title)
    if not readme:
        print(t)
        return 0
    text = open(readme).read()
    begin, end = "<!-- %s:begin -->" % marker, "<!-- %s:end -->" % marker
    i, j = text.find(begin), text.find(end)
    if i < 0 or j < i:
        print("%s: no %s ... %s markers" % (readme, begin, end), file=sys.stderr)
        return 1
    text = text[:i + len(begin)] + "\n" + t + "\n" + text[j:]
    with open(readme, "w") as f:
        f.write(text)
    print("%s: table %s written" % (readme, marker))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

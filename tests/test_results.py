#!/usr/bin/env python3
"""test_results.py: tests of tools/results.py, tools/charts.py and
tools/bench.sh on the CPU, from the committed results (results/H200: real
H200 output) and from small synthetic outputs (numbers that are obviously
made up: 1, 2, 100 ...). Run by tests/test_results.sh; ends with
"results tools: N passed, M failed".
"""
import collections
import copy
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import xml.dom.minidom
from contextlib import redirect_stdout

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import results as R  # noqa: E402
import charts as C   # noqa: E402

# The fixture: real H200 run files as committed on 2026-11-30 (before the
# matrixMul and bandwidthTest shmoo files were withdrawn to results/H200/stale/),
# so these tests do not change whenever `make bench` replaces results/H200.
H200 = os.path.join(ROOT, "tests", "fixtures", "results_H200")
H200_JSON = os.path.join(H200, "results.json")
LIVE = os.path.join(ROOT, "results")


def quiet(fn, *a, **k):
    """Call fn with stdout captured; returns (result, text)."""
    buf = io.StringIO()
    with redirect_stdout(buf):
        r = fn(*a, **k)
    return r, buf.getvalue()


def recs(text):
    return R.parse_output(text.strip().splitlines())[0]


def fixture():
    return R.load(H200_JSON)


def write(path, text, mode=None):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    if mode:
        os.chmod(path, mode)

# ---- parsing -----------------------------------------------------------------


class Parsing(unittest.TestCase):
    def test_values(self):
        self.assertEqual(R.parse_value("268435456"), 268435456)
        self.assertEqual(R.parse_value("98.21"), 98.21)
        self.assertEqual(R.parse_value("-0.5"), -0.5)
        self.assertIsNone(R.parse_value("nan"))
        self.assertIsNone(R.parse_value("-inf"))
        self.assertEqual(R.parse_value("events+spin"), "events+spin")
        self.assertEqual(R.parse_value("10393d1"), "10393d1")
        self.assertEqual(R.parse_value('"a b \\"q\\""'), 'a b "q"')

    def test_result_line_keeps_order_and_quotes(self):
        r = recs('RESULT sample=s variant=v n=5 status=PASS time_ms=0.5 gbps=nan note="x y" min_ms=1')[0]
        self.assertEqual(list(r), ["sample", "variant", "n", "status", "time_ms", "gbps", "note", "min_ms"])
        self.assertIsNone(r["gbps"])
        self.assertEqual(r["note"], "x y")
        self.assertEqual(R.size_items(r), [("n", 5)])

    def test_csv_block(self):
        rs, other = R.parse_output([
            "# note", "sample,variant,bytes,status,gbps,peak",
            'bw,h2d,1024,PASS,0.5,"pcie, gen5"', "bw,d2d,2048,PASS,,hbm", "bw: PASS"])
        self.assertEqual(len(rs), 2)
        self.assertEqual(rs[0]["peak"], "pcie, gen5")
        self.assertIsNone(rs[1]["gbps"])
        self.assertEqual(other, ["# note", "bw: PASS"])

    def test_run_file_new_format(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "s__n_5.txt")
            write(p, "\n".join([
                "# gpu: NVIDIA Test", "# driver: 1.2", "# cuda: 13.0", "# date: 2026-01-02T03:04:05Z",
                "# commit: abc1234", "# dirty: yes", "# command: make bench (bin/s --n=5)",
                "# clocks before: clocks.sm=1980 pstate=P0", "# device 0: a note",
                "RESULT sample=s variant=v n=5 status=PASS time_ms=1 gbps=2", "s: PASS",
                "# clocks after: clocks.sm=1755 pstate=P0", "# seconds: 3.5", "# exit: 0"]) + "\n")
            run = R.parse_run_file(p)
        self.assertEqual((run["sample"], run["args"], run["command"]), ("s", "--n=5", "bin/s --n=5"))
        self.assertEqual((run["commit"], run["dirty"], run["exit"], run["seconds"]), ("abc1234", True, 0, 3.5))
        self.assertEqual(run["clocks_before"], {"clocks.sm": 1980, "pstate": "P0"})
        self.assertEqual(run["clocks_after"]["clocks.sm"], 1755)
        self.assertEqual(run["output"], ["# device 0: a note", "s: PASS"])
        self.assertEqual(len(run["records"]), 1)

    def test_run_file_of_a_several_gpu_bench(self):
        """tools/bench_gpus.sh's `# ran on:` line is provenance (ran_on), not output; a
        serial run has no ran_on key at all (results.json of before is unchanged)."""
        with tempfile.TemporaryDirectory() as d:
            head = ["# gpu: NVIDIA Test", "# date: 2026-01-02T03:04:05Z", "# commit: abc1234",
                    "# dirty: no", "# command: make bench (bin/%s)"]
            tail = ["RESULT sample=%s variant=v n=5 status=PASS time_ms=1 gbps=2", "%s: PASS",
                    "# exit: 0"]
            write(os.path.join(d, "a.txt"), "\n".join(
                head + ["# ran on: device 1 (BENCH_JOBS=2: 2 samples at once, one per GPU)",
                        "# clocks before: clocks.sm=1980"] + tail).replace("%s", "a") + "\n")
            write(os.path.join(d, "b.txt"), "\n".join(head + tail).replace("%s", "b") + "\n")
            a, b = R.parse_run_file(os.path.join(d, "a.txt")), R.parse_run_file(os.path.join(d, "b.txt"))
            self.assertEqual(a["ran_on"], "device 1 (BENCH_JOBS=2: 2 samples at once, one per GPU)")
            self.assertEqual(a["output"], ["a: PASS"])
            self.assertEqual(a["clocks_before"], {"clocks.sm": 1980})
            self.assertNotIn("ran_on", b)
            doc = R.convert(d, ROOT)
            self.assertEqual([r["sample"] for r in doc["runs"]], ["a", "b"])
            md = R.report(doc, ROOT)
            self.assertIn("| several GPUs | 1 of 2 runs made by `BENCH_JOBS=N make bench`", md)
            self.assertIn("exit 0, ran on device 1 (BENCH_JOBS=2", md)
            os.remove(os.path.join(d, "a.txt"))
            self.assertNotIn("several GPUs", R.report(R.convert(d, ROOT), ROOT))

    def test_run_file_old_format_and_non_bench_files(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "s.txt")
            write(p, "# gpu: G\n# commit: abc+uncommitted changes\n# command: make bench (bin/s )\n"
                     "RESULT sample=s variant=v status=PASS\n# exit: 1\n")
            run = R.parse_run_file(p)
            self.assertEqual((run["commit"], run["dirty"], run["exit"], run["args"]), ("abc", True, 1, ""))
            self.assertIsNone(run["clocks_before"])
        self.assertIsNone(R.parse_run_file(os.path.join(H200, "make_run.txt")))
        self.assertIsNone(R.parse_run_file(os.path.join(H200, "matrixMul_tile32_ab.txt")))

# ---- the committed fixture -------------------------------------------------------


class Fixture(unittest.TestCase):
    def test_committed_results_json_is_what_the_run_files_give(self):
        """Every committed results/<gpu>/results.json is made from its run files and nothing else."""
        for gpu in sorted(os.listdir(LIVE)):
            js = os.path.join(LIVE, gpu, "results.json")
            if not os.path.isfile(js):
                continue
            with open(js) as f:
                committed = f.read()
            self.assertEqual(R.dumps(R.convert(os.path.join(LIVE, gpu), ROOT)), committed,
                             "results/%s/results.json differs from `tools/results.py convert results/%s`"
                             % (gpu, gpu))

    def test_results_json_is_what_the_run_files_give(self):
        """results.json is made from the run files and nothing else."""
        with open(H200_JSON) as f:
            committed = f.read()
        self.assertEqual(R.dumps(R.convert(H200, ROOT)), committed,
                         "results/H200/results.json differs from `tools/results.py convert results/H200`")

    def test_every_record_of_the_text_files_is_there(self):
        n = 0
        for name in os.listdir(H200):
            if name.endswith(".txt") and R.parse_run_file(os.path.join(H200, name)):
                with open(os.path.join(H200, name)) as f:
                    lines = f.read().splitlines()
                n += sum(1 for l in lines if l.startswith("RESULT "))
                if any(l.startswith("sample,variant,") for l in lines):
                    n += sum(1 for l in lines if l.startswith("bandwidthTest,"))
        doc = fixture()
        self.assertEqual(sum(len(r["records"]) for r in doc["runs"]), n)
        self.assertEqual(doc["gpu"], "NVIDIA H200")
        self.assertEqual(doc["driver"], "580.159.04")
        self.assertEqual(doc["devices"][0]["peak_memory_bandwidth_gbps"], 4814.3)

    def test_fixture_headlines(self):
        doc = fixture()
        want = {"vectorAdd": "grid_stride_float4", "matrixMul": "warptile_128x128x16_1blk",
                "reduction": "warp_shuffle_u4", "threadFenceReduction": "single_pass_b1024",
                "bandwidthTest": "d2d"}
        for s, v in want.items():
            self.assertEqual(R.headline(R.default_run(doc, s)["records"])["variant"], v, s)
        self.assertIsNone(R.headline(R.default_run(doc, "deviceQuery")["records"]))

# ---- figures and the headline rule ----------------------------------------------


class Headline(unittest.TestCase):
    def test_figure_priority_and_direction(self):
        self.assertEqual(R.figure({"gbps": 2, "speedup": 3})[0], "gbps")
        self.assertEqual(R.figure({"gflops": 1, "gbps": 2})[0], "gflops")
        f = R.figure({"time_ms": 1, "us_per_kernel": 0.7})
        self.assertEqual((f[0], f[2], f[3]), ("us_per_kernel", "us/kernel", False))
        self.assertEqual(R.figure_text(R.figure({"overlap": 7.5})), "7.5x overlap")
        self.assertIsNone(R.figure({"time_ms": 1, "gbps": None}))

    def test_rule(self):
        base = ("RESULT sample=s variant=cpu n=1 status=PASS time_ms=1 gbps=1000\n"
                "RESULT sample=s variant=lib n=1 status=PASS time_ms=1 gbps=100 ref=lib pct_ref=100\n"
                "RESULT sample=s variant=ctx n=1 status=PASS time_ms=1 gbps=900 ref=lib pct_ref=900 role=context\n"
                "RESULT sample=s variant=bad n=1 status=FAIL\n"
                "RESULT sample=s variant=a n=1 status=PASS time_ms=1 gbps=50 ref=lib pct_ref=50\n"
                "RESULT sample=s variant=b n=1 status=PASS time_ms=1 gbps=80 ref=lib pct_ref=80\n")
        self.assertEqual(R.headline(recs(base))["variant"], "b")
        marked = base + "RESULT sample=s variant=m n=1 status=PASS time_ms=1 gbps=1 headline=1\n"
        self.assertEqual(R.headline(recs(marked))["variant"], "m")
        self.assertEqual(R.headline_text(R.headline(recs(base))), "b 80 GB/s (80% of lib)")

    def test_time_figures_lower_is_better_without_a_reference(self):
        r = recs("RESULT sample=s variant=x iters=10 status=PASS time_ms=2 us_per_iter=20\n"
                 "RESULT sample=s variant=y iters=10 status=PASS time_ms=1 us_per_iter=10\n")
        self.assertEqual(R.headline(r)["variant"], "y")

    def test_new_sample_shapes(self):
        # key shapes of cudaGraphs, streamOrderedAllocation, concurrentKernels (made-up values)
        graphs = recs(
            "RESULT sample=g variant=stream kernels=100 n=1000 status=PASS time_ms=0.4 us_per_kernel=4 min_ms=0.4\n"
            "RESULT sample=g variant=graph_capture kernels=100 n=1000 status=PASS time_ms=0.1 us_per_kernel=1 ref=stream pct_ref=400 build_ms=1\n"
            "RESULT sample=g variant=graph_explicit kernels=100 n=1000 status=PASS time_ms=0.2 us_per_kernel=2 ref=stream pct_ref=200\n"
            "RESULT sample=g variant=node_set_params kernels=100 n=1000 status=PASS update_us=3 instantiate_us=4\n")
        self.assertEqual(R.headline_text(R.headline(graphs)), "graph_capture 1 us/kernel (400% of stream)")
        soa = recs(
            "RESULT sample=o variant=malloc_free n=1 iters=10 status=PASS time_ms=10 us_per_iter=1000\n"
            "RESULT sample=o variant=preallocated n=1 iters=10 status=PASS time_ms=1 us_per_iter=100 ref=malloc_free pct_ref=1000 role=floor\n"
            "RESULT sample=o variant=async_keep n=1 iters=10 status=PASS time_ms=2 us_per_iter=200 ref=malloc_free pct_ref=500 threshold=max\n")
        self.assertEqual(R.headline(soa)["variant"], "async_keep")
        ck = recs(
            "RESULT sample=c variant=kernels_serial kernels=8 status=PASS time_ms=8 streams=1\n"
            "RESULT sample=c variant=kernels_concurrent kernels=8 status=PASS time_ms=2 ref=kernels_serial pct_ref=400 overlap=4 bound=8\n"
            "RESULT sample=c variant=copy_overlap n=4 chunks=16 status=PASS time_ms=1 gbps=3 ref=copy_serial pct_ref=150 speedup=1.5\n")
        self.assertEqual(R.headline(ck)["variant"], "kernels_concurrent")
        table = "\n".join(R.records_table(ck))
        self.assertIn("| `kernels_concurrent` | kernels=8 | PASS | 2 | 4x overlap |", table)
        self.assertIn("400% of kernels_serial", table)

    def test_headline_command(self):
        with tempfile.TemporaryDirectory() as d:
            log = os.path.join(d, "x.log")
            write(log, "RESULT sample=s variant=a n=1 status=PASS time_ms=1 gflops=5\ns: PASS\n")
            _, out = quiet(R.main, ["headline", log])
            self.assertEqual(out, "a 5 GFLOP/s\nn=1\n")
            write(log, "s: WAIVED (no CUDA device)\n")
            _, out = quiet(R.main, ["headline", log])
            self.assertEqual(out.strip(), "-")
            self.assertEqual(quiet(R.main, ["headline", os.path.join(d, "gone.log")])[0], 2)


# three inputs at two sizes, the shape of histogram's default run (made-up values)
INPUTS = recs("".join(
    "RESULT sample=h variant=%s n=%d input=%s bins=256 status=PASS time_ms=1 gbps=%g ref=lib pct_ref=%g\n"
    % (v, n, i, g, p) for v, n, i, g, p in (
        ("lib", 512, "uniform", 100, 100), ("fast", 512, "uniform", 200, 200), ("slow", 512, "uniform", 50, 50),
        ("lib", 512, "skewed", 150, 100), ("fast", 512, "skewed", 210, 140), ("slow", 512, "skewed", 60, 40),
        ("lib", 512, "degenerate", 300, 100), ("fast", 512, "degenerate", 330, 110),
        ("slow", 512, "degenerate", 330, 110), ("fast", 64, "uniform", 20, 400))))


class Declarations(unittest.TestCase):
    def decl(self, text):
        return R.parse_declaration(text, "x/headline")

    def test_parse(self):
        d = self.decl("# a comment\ncase: input=skewed n=512\nacross: input\nwhy: the usual input\n")
        self.assertEqual(d, {"case": [("input", "skewed"), ("n", "512")], "variant": None,
                             "across": ["input"], "why": "the usual input"})
        self.assertEqual(self.decl("case:\nvariant: fast\nwhy: w\n")["variant"], "fast")
        for bad, msg in (("case: x\nwhy: w\n", "not key=value"), ("why: w\n", "needs a 'case:'"),
                         ("case:\n", "needs a 'why:'"), ("case:\nwhy:\n", "needs a 'why:'"),
                         ("case:\ncase:\nwhy: w\n", "x/headline:2: 'case:' given twice"),
                         ("case:\nwhy: w\nhedline: x\n", "x/headline:3: want one of")):
            with self.assertRaises(R.InputError) as e:
                self.decl(bad)
            self.assertIn(msg, str(e.exception))

    def test_the_declared_case_is_the_headline_and_is_named(self):
        self.assertEqual(R.headline(INPUTS)["pct_ref"], 400)          # the rule alone: the best case
        d = self.decl("case: input=skewed n=512\nwhy: w\n")
        text, detail = R.headline_lines(INPUTS, d)
        self.assertEqual(text, "fast 210 GB/s (140% of lib)")
        self.assertEqual(detail, "n=512 input=skewed bins=256")
        d = self.decl("case: input=skewed n=512\nvariant: slow\nwhy: w\n")
        self.assertEqual(R.headline(INPUTS, d)["gbps"], 60)
        # a case that matches nothing (a --quick run): the rule over every record, its case named
        text, detail = R.headline_lines(INPUTS, self.decl("case: input=other\nwhy: w\n"))
        self.assertEqual((text, detail), ("fast 20 GB/s (400% of lib)", "n=64 input=uniform bins=256"))

    def test_the_range_over_the_other_inputs(self):
        d = self.decl("case: input=uniform n=512\nacross: input\nwhy: w\n")
        text, detail = R.headline_lines(INPUTS, d)
        self.assertEqual(text, "fast 200 GB/s (200% of lib)")
        self.assertEqual(detail, "n=512 input=uniform bins=256; 110% (330 GB/s, input=degenerate) to 200% "
                                 "(200 GB/s, input=uniform) of lib, over 3 input values")
        # the other size (n=64) is another case, not another input: left out
        self.assertNotIn("400", detail)
        # without a reference: the figure itself, lower is better for times
        t = recs("RESULT sample=g variant=graph chain=store kernels=9 status=PASS time_ms=1 us_per_kernel=0.9\n"
                 "RESULT sample=g variant=graph chain=data kernels=9 status=PASS time_ms=1 us_per_kernel=1.1\n")
        d = self.decl("case: chain=data\nacross: chain\nwhy: w\n")
        self.assertEqual(R.headline_lines(t, d)[1], "chain=data kernels=9; 1.1 us/kernel (chain=data) to "
                                                    "0.9 us/kernel (chain=store), over 2 chain values")
        self.assertEqual(R.range_text(R.headline(t, d), t, self.decl("case:\nwhy: w\n")), "")

    def test_every_sample_declares_a_case_the_results_have(self):
        rc, out = quiet(R.main, ["declarations"])
        self.assertEqual(rc, 0, out)

    def test_declarations_check_fails(self):
        with tempfile.TemporaryDirectory() as d:
            make_root(d, samples=("0_Simple/vectorAdd", "0_Simple/reduction"))
            rc, out = quiet(R.check_declarations, d)
            self.assertEqual(rc, 1)
            self.assertIn("0_Simple/vectorAdd/headline: missing", out)
            write(os.path.join(d, "0_Simple/vectorAdd/headline"), "case: n=1\nwhy: w\n")
            write(os.path.join(d, "0_Simple/reduction/headline"), "case:\nacross: colour\nwhy: w\n")
            rc, out = quiet(R.check_declarations, d)
            self.assertIn("0_Simple/vectorAdd/headline: case n=1 matches no PASS record of vectorAdd's "
                          "default run in results/H200/results.json", out)
            self.assertIn("0_Simple/reduction/headline: across colour: no record", out)
            write(os.path.join(d, "0_Simple/vectorAdd/headline"), "case:\nvariant: nosuch\nwhy: w\n")
            write(os.path.join(d, "0_Simple/reduction/headline"), "case:\nacross: type\nwhy: w\n")
            rc, out = quiet(R.check_declarations, d)
            self.assertEqual(out.strip(), "results: 0_Simple/vectorAdd/headline: variant nosuch has no PASS "
                                          "record in the case in results/H200/results.json")
            write(os.path.join(d, "0_Simple/vectorAdd/headline"), "case:\nwhy: w\n")
            self.assertEqual(quiet(R.check_declarations, d), (0, ""))


class InputErrors(unittest.TestCase):
    """A missing file, bad JSON, no gnuplot: one line and exit 2, never a traceback."""

    def run_tool(self, tool, *args, env=None):
        return subprocess.run([sys.executable, os.path.join(ROOT, "tools", tool)] + list(args),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                              env=env)

    def test_compare_and_report(self):
        with tempfile.TemporaryDirectory() as d:
            bad = os.path.join(d, "bad.json")
            write(bad, "{ not json")
            other = os.path.join(d, "other.json")
            write(other, '{"schema": "something/1"}')
            gone = os.path.join(d, "gone.json")
            for args, msg in ((["compare", gone, H200_JSON], "gone.json: No such file or directory"),
                              (["compare", H200_JSON, bad], "bad.json: not JSON"),
                              (["compare", H200_JSON, other], "is not a cuda-samples-results/1 document"),
                              (["report", gone], "gone.json"), (["convert", d], "no `make bench` run files"),
                              (["compare", H200_JSON], "the following arguments are required: b")):
                p = self.run_tool("results.py", *args)
                self.assertEqual(p.returncode, 2, (args, p.stdout, p.stderr))
                self.assertIn(msg, p.stderr)
                self.assertNotIn("Traceback", p.stderr)
                if args[0] != "compare" or len(args) == 3:
                    self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)

    def test_charts(self):
        with tempfile.TemporaryDirectory() as d:
            write(os.path.join(d, "gnuplot"), "#!/bin/sh\nexit 0\n", 0o755)
            only_python = os.pathsep.join([d, os.path.dirname(sys.executable)])
            p = self.run_tool("charts.py", os.path.join(d, "gone.json"), env=dict(os.environ, PATH=only_python))
            self.assertEqual((p.returncode, p.stdout), (2, ""), p.stderr)
            self.assertIn("charts: %s: No such file or directory" % os.path.join(d, "gone.json"), p.stderr)
            os.remove(os.path.join(d, "gnuplot"))
            p = self.run_tool("charts.py", H200_JSON, env=dict(os.environ, PATH=only_python))
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertEqual(p.stderr.strip().splitlines(), [
                "charts: gnuplot is not installed (Debian package gnuplot-nox; make charts installs it "
                "where it can): no chart drawn"])

# ---- tables and the report ---------------------------------------------------------


def make_root(d, samples=("0_Simple/vectorAdd", "0_Simple/matrixMul", "1_Utilities/deviceQuery",
                          "6_Advanced/cudaGraphs")):
    """A copy of the parts of the tree the tables read: results, READMEs, Makefiles."""
    for s in samples:
        for f in ("README.md", "Makefile"):
            os.makedirs(os.path.join(d, s), exist_ok=True)
            shutil.copy(os.path.join(ROOT, s, f), os.path.join(d, s, f))
    os.makedirs(os.path.join(d, "results", "H200"))
    shutil.copy(H200_JSON, os.path.join(d, "results", "H200", "results.json"))
    shutil.copy(os.path.join(ROOT, R.NVIDIA_FILE), os.path.join(d, R.NVIDIA_FILE))
    shutil.copytree(os.path.join(ROOT, "tools"), os.path.join(d, "tools"))


def between(path):
    text = open(path).read()
    return text[text.index(R.BEGIN) + len(R.BEGIN):text.index(R.END)]


class Tables(unittest.TestCase):
    def test_committed_readme_tables_agree_with_results_json(self):
        rc, out = quiet(R.tables, [], ROOT, True)
        self.assertEqual(rc, 0, out)

    def test_committed_report_agrees_with_results_json(self):
        for p in sorted(__import__("glob").glob(os.path.join(ROOT, "results", "*", "results.json"))):
            rc, out = quiet(R.main, ["report", p, "--check"])
            self.assertEqual(rc, 0, out)

    def test_check_fails_on_an_edited_table_and_regeneration_fixes_it(self):
        with tempfile.TemporaryDirectory() as d:
            make_root(d)
            # The README comes from the live tree, whose table follows the live
            # results; make it the fixture's first (as the test below does).
            quiet(R.tables, [], d, False)
            readme = os.path.join(d, "0_Simple/vectorAdd/README.md")
            text = open(readme).read()
            self.assertIn("| 4144 GB/s |", text)
            write(readme, text.replace("| 4144 GB/s |", "| 4145 GB/s |"))
            rc, out = quiet(R.tables, [], d, True)
            self.assertEqual(rc, 1)
            self.assertIn("0_Simple/vectorAdd/README.md", out)
            self.assertIn("| 4145 GB/s |", open(readme).read())     # --check wrote nothing
            quiet(R.tables, [], d, False)
            self.assertEqual(open(readme).read(), text)
            self.assertEqual(quiet(R.tables, [], d, True)[0], 0)

    def test_check_fails_when_results_json_changes(self):
        with tempfile.TemporaryDirectory() as d:
            make_root(d)
            quiet(R.tables, [], d, False)
            js = os.path.join(d, "results/H200/results.json")
            text = open(js).read()
            self.assertIn('"gbps": 4144,', text)
            write(js, text.replace('"gbps": 4144,', '"gbps": 4000,', 1))
            rc, out = quiet(R.tables, [], d, True)
            self.assertEqual(rc, 1)
            self.assertIn("vectorAdd", out)

    def test_section_contents(self):
        with tempfile.TemporaryDirectory() as d:
            make_root(d)
            quiet(R.tables, [], d, False)
            va = between(os.path.join(d, "0_Simple/vectorAdd/README.md"))
            self.assertIn("| `grid_stride_float4` | n=268435456 | PASS | 0.7773 | 4144 GB/s | 86.08 | "
                          "98.21% of memcpy_d2d | min_ms=0.7731 |", va)
            self.assertIn("[results.json](../../results/H200/results.json)", va)
            mm = between(os.path.join(d, "0_Simple/matrixMul/README.md"))
            self.assertIn("| NVIDIA's `matrixMul` (context) | 4096^3 |", mm)
            self.assertIn("9100 GFLOP/s", mm)
            self.assertNotIn("NVIDIA's", va)              # no NVIDIA vectorAdd figure in the data file
            dq = between(os.path.join(d, "1_Utilities/deviceQuery/README.md"))
            self.assertIn("```\nCUDA driver version 13.0", dq)
            self.assertEqual(between(os.path.join(d, "6_Advanced/cudaGraphs/README.md")), "\n")

    def test_context_only_on_its_gpu(self):
        doc = fixture()
        nv = R.nvidia_figures(ROOT)
        self.assertTrue(R.context_rows(doc, "matrixMul", nv))
        doc["gpu"] = "NVIDIA Other"
        self.assertEqual(R.context_rows(doc, "matrixMul", nv), [])

    def test_nvidia_data_file(self):
        rows = R.nvidia_figures(ROOT)
        self.assertGreaterEqual(len(rows), 6)
        for r in rows:
            self.assertTrue(r["source"] and r["nvidia_sample"] and r["size"])
            self.assertRegex(r["date"], r"^\d{4}-\d\d-\d\d$")
        with tempfile.TemporaryDirectory() as d:
            write(os.path.join(d, R.NVIDIA_FILE), "NVIDIA H200\tx\ty\tz\t12\tteraflops\ts\t2026-01-01\n")
            with self.assertRaises(R.InputError):
                R.nvidia_figures(d)

    def test_report(self):
        text = R.report(fixture(), ROOT)
        self.assertIn("| [vectorAdd](#vectoradd) | grid_stride_float4 4144 GB/s (98.21% of memcpy_d2d) "
                      "| n=268435456 | - | - |", text)
        self.assertIn("![roofline](roofline.svg)", text)
        self.assertIn("![bandwidthTest_shmoo](bandwidthTest_shmoo.svg)", text)
        self.assertIn("147 records (147 PASS)", text)       # the shmoo run, summarised
        self.assertIn("`bin/reduction --type=double`", text)
        self.assertIn("| clocks before | not recorded |", text)
        with tempfile.TemporaryDirectory() as d:
            make_root(d)
            js = os.path.join(d, "results/H200/results.json")
            self.assertEqual(quiet(R.main, ["report", js, "--root", d])[0], 0)
            self.assertEqual(quiet(R.main, ["report", js, "--check", "--root", d])[0], 0)
            md = os.path.join(d, "results/H200/RESULTS.md")
            write(md, open(md).read().replace("4144 GB/s", "4145 GB/s"))
            rc, out = quiet(R.main, ["report", js, "--check", "--root", d])
            self.assertEqual(rc, 1, out)

# ---- compare --------------------------------------------------------------------


def tweak(doc, sample, variant, key, factor, args=""):
    d = copy.deepcopy(doc)
    for run in d["runs"]:
        if run["sample"] == sample and run["args"] == args:
            for r in run["records"]:
                if r.get("variant") == variant:
                    r[key] = r[key] * factor if factor is not None else r[key]
                    return d
    raise AssertionError("no %s/%s" % (sample, variant))


class Compare(unittest.TestCase):
    def run_compare(self, a, b, threshold=5.0):
        return quiet(R.compare, a, b, threshold)

    def test_same_is_clean(self):
        a = fixture()
        n, out = self.run_compare(a, a)
        self.assertEqual(n, 0)
        self.assertIn("0 flagged regressions", out)
        self.assertNotIn("REGRESSION", out)

    def test_thresholds_and_directions(self):
        a = fixture()
        n, out = self.run_compare(a, tweak(a, "vectorAdd", "naive", "gbps", 0.9))
        self.assertEqual(n, 1)
        self.assertRegex(out, r"vectorAdd\s+naive\s+n=268435456\s+3437 GB/s\s+3093.3 GB/s\s+0.900\s+REGRESSION")
        self.assertEqual(self.run_compare(a, tweak(a, "vectorAdd", "naive", "gbps", 0.97))[0], 0)
        self.assertEqual(self.run_compare(a, tweak(a, "vectorAdd", "naive", "gbps", 0.97), 2.0)[0], 1)
        n, out = self.run_compare(a, tweak(a, "matrixMul", "naive", "gflops", 1.2))
        self.assertEqual(n, 0)
        self.assertRegex(out, r"1.200\s+faster")
        n, out = self.run_compare(a, tweak(a, "vectorAdd", "cpu", "gbps", 0.5))
        self.assertEqual(n, 0)
        self.assertIn("not gated", out)

    def test_time_figures_and_status(self):
        a = {"_path": "a", "gpu": "G", "driver": "1", "commit": "c", "dirty": False, "runs": [
            {"sample": "g", "args": "", "records": recs(
                "RESULT sample=g variant=graph kernels=10 status=PASS time_ms=1 us_per_kernel=1\n"
                "RESULT sample=g variant=stream kernels=10 status=PASS time_ms=4\n"
                "RESULT sample=g variant=x kernels=10 status=PASS time_ms=1 gbps=1\n")}]}
        slower = tweak(a, "g", "graph", "us_per_kernel", 1.1)
        self.assertEqual(self.run_compare(a, slower)[0], 1)
        self.assertEqual(self.run_compare(a, tweak(a, "g", "graph", "us_per_kernel", 0.9))[0], 0)
        self.assertEqual(self.run_compare(a, tweak(a, "g", "stream", "time_ms", 1.2))[0], 1)
        failed = copy.deepcopy(a)
        failed["runs"][0]["records"][2] = collections.OrderedDict(
            [("sample", "g"), ("variant", "x"), ("kernels", 10), ("status", "FAIL")])
        n, out = self.run_compare(a, failed)
        self.assertEqual(n, 1)
        self.assertIn("REGRESSION (status FAIL)", out)

    def test_exit_status_and_missing_records(self):
        with tempfile.TemporaryDirectory() as d:
            a = os.path.join(d, "a.json")
            b = os.path.join(d, "b.json")
            doc = fixture()
            worse = tweak(doc, "reduction", "warp_shuffle", "gbps", 0.5)
            worse["runs"] = [r for r in worse["runs"] if r["sample"] != "vectorAdd"]
            for p, x in ((a, doc), (b, worse)):
                x.pop("_path", None)
                write(p, R.dumps(x))
            rc, out = quiet(R.main, ["compare", a, b])
            self.assertEqual(rc, 1)
            self.assertIn("only in A (4): vectorAdd/cpu", out)
            self.assertEqual(quiet(R.main, ["compare", a, a])[0], 0)

# ---- charts ----------------------------------------------------------------------


class Charts(unittest.TestCase):
    def test_expressions(self):
        rec = {"m": 2, "n": 3, "k": 4, "type": "float"}
        self.assertEqual(C.evaluate("2*m*n*k", rec), 48)
        self.assertEqual(C.evaluate("(2*k+1)**2 - -1", rec), 82)
        with self.assertRaises(KeyError):
            C.evaluate("2*z", rec)
        for bad in ("__import__('os')", "m.real", "[m]", "type"):
            with self.assertRaises((ValueError, KeyError)):
                C.evaluate(bad, rec)

    def test_roofline_data(self):
        data = C.roofline_data(fixture(), ROOT)
        kinds = [(k, v) for k, v, _ in data["ceilings"]]
        self.assertEqual(kinds, [("bandwidth", 4814.3), ("compute", 66908.2), ("copy", 4237)])
        pts = {(p["sample"], p["variant"]): p for p in data["points"]}
        self.assertEqual(len(pts), 2 + 12 + 5 + 15)   # vectorAdd, reduction, threadFenceReduction, matrixMul
        self.assertNotIn(("vectorAdd", "cpu"), pts)
        self.assertNotIn(("vectorAdd", "memcpy_d2d"), pts)   # the copy is a ceiling, not a point
        p = pts[("vectorAdd", "grid_stride_float4")]
        self.assertAlmostEqual(p["x"], 1 / 12)
        self.assertAlmostEqual(p["y"] / (4144 / 12), 1, delta=0.002)
        p = pts[("matrixMul", "cublas")]
        self.assertAlmostEqual(p["x"], 2 * 4096 / 12)
        self.assertAlmostEqual(p["y"] / 51385, 1, delta=0.002)

    def test_tensor_ceilings_when_the_device_has_them(self):
        doc = fixture()
        doc["devices"][0]["peak_tf32_gflops"] = 1000.0   # made up
        doc["devices"][0]["peak_bf16_gflops"] = 2000.0
        data = C.roofline_data(doc, ROOT)
        labels = [l for _, _, l in data["ceilings"]]
        self.assertIn("TF32 tensor peak 1 TFLOP/s", labels)
        self.assertIn("BF16 tensor peak 2 TFLOP/s", labels)
        script = C.roofline_script(doc, data, "roofline")
        self.assertIn('"TF32 tensor peak 1 TFLOP/s"', script)
        self.assertIn("(x >= %r ? 2000.0 : 1/0)" % (2000.0 / 4814.3), script)

    def test_a_wrong_work_line_is_refused(self):
        with tempfile.TemporaryDirectory() as d:
            make_root(d)
            wf = os.path.join(d, C.WORK_FILE)
            write(wf, open(wf).read().replace("vectorAdd\t-\tn\t12*n", "vectorAdd\t-\tn\t8*n"))
            warnings = []
            data = C.roofline_data(fixture(), d, warnings.append)
            self.assertFalse([p for p in data["points"] if p["sample"] == "vectorAdd"])
            self.assertTrue(any("vectorAdd/naive" in w for w in warnings))

    def test_labels_do_not_overlap(self):
        pts = [(300.0, 400.0 + 0.5 * i, "variant_%d" % i) for i in range(20)] + \
              [(310.0, 300.0, "another_one"), (900.0, 500.0, "far")]
        spots = C.place_labels(pts, [(0, 600, 200, 664)])
        boxes = []
        for (px, py, text), (x, y, side, moved) in zip(pts, spots):
            w = len(text) * C.CHAR_W + 4
            x0 = x if side == "left" else x - w
            boxes.append((x0, y - C.LINE_H / 2, x0 + w, y + C.LINE_H / 2))
            self.assertTrue(0 <= x0 and x0 + w <= C.PLOT_W and 0 <= y - C.LINE_H / 2)
        for i in range(len(boxes)):
            for j in range(i):
                a, b = boxes[i], boxes[j]
                self.assertFalse(a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3],
                                 "labels %d and %d overlap" % (i, j))
        self.assertFalse(spots[-1][3])                  # a lone point keeps its label beside it

    def test_shmoo(self):
        doc = fixture()
        runs = R.shmoo_runs(doc)
        self.assertEqual(list(runs), ["bandwidthTest"])
        run, rs = runs["bandwidthTest"]
        self.assertEqual(run["args"], "--mode=shmoo --csv")
        self.assertEqual(len(rs), 147)
        script = C.shmoo_script(doc, run, rs, "bandwidthTest_shmoo")
        self.assertEqual(script.count(" << EOD"), 7)
        self.assertIn('"peak pcie_gen5_x16: 63.02 GB/s"', script)
        self.assertIn('"1 GiB" 1073741824', script)
        self.assertEqual(R.chart_stems(doc), ["roofline", "bandwidthTest_shmoo"])

    def test_committed_charts_exist(self):
        for p in __import__("glob").glob(os.path.join(ROOT, "results", "*", "results.json")):
            for stem in R.chart_stems(R.load(p)):
                for ext in (".svg", ".png"):
                    self.assertTrue(os.path.exists(os.path.join(os.path.dirname(p), stem + ext)),
                                    "%s%s missing beside %s: run make charts" % (stem, ext, p))

    @unittest.skipUnless(shutil.which("gnuplot"), "gnuplot is not installed (make charts installs it)")
    def test_gnuplot_draws_both_formats(self):
        with tempfile.TemporaryDirectory() as d:
            make_root(d)
            js = os.path.join(d, "results/H200/results.json")
            rc, out = quiet(C.main, [js, "--root", d])
            self.assertEqual(rc, 0, out)
            for stem in ("roofline", "bandwidthTest_shmoo"):
                svg = xml.dom.minidom.parse(os.path.join(d, "results/H200", stem + ".svg"))
                self.assertEqual(svg.documentElement.tagName, "svg")
                with open(os.path.join(d, "results/H200", stem + ".png"), "rb") as f:
                    self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
            text = open(os.path.join(d, "results/H200/roofline.svg")).read()
            self.assertIn("warptile_128x128x16_1blk", text)
            self.assertIn("measured copy 4237 GB/s", text)

# ---- bench.sh and make bench -------------------------------------------------------


FAKE_SMI = r"""#!/usr/bin/env bash
# a fake nvidia-smi: one GPU, or none when FAKE_NO_GPU=1
[ "${FAKE_NO_GPU:-0}" = 1 ] && { echo "NVIDIA-SMI has failed" >&2; exit 9; }
case " $* " in *" -i "[!0]*) echo "No devices were found"; exit 6;; esac   # GPU 0 only
case "$*" in
  *-L*) echo "GPU 0: NVIDIA Fake GPU (UUID: GPU-0)";;
  *clocks_event_reasons*) echo 'Field "clocks_event_reasons.active" is not a valid field to query.'; exit 2;;
  *clocks.sm*) echo "1980, 2619, 1980, 2619, P0, 41, 95.50";;
  *driver_version*) echo "999.01";;
  *name*) echo "NVIDIA Fake GPU";;
esac
"""

FAKE_SAMPLE = r"""#!/usr/bin/env bash
# a fake sample: RESULT lines from its arguments
n=1000; [ "${1:-}" = --n=5 ] && n=5
echo "# device 0: NVIDIA Fake GPU"
echo "RESULT sample=fakeSample variant=ref n=$n status=PASS time_ms=1 gbps=100 ref=ref pct_ref=100"
echo "RESULT sample=fakeSample variant=fast n=$n status=PASS time_ms=2 gbps=50 ref=ref pct_ref=50"
echo "fakeSample: PASS"
"""


class Bench(unittest.TestCase):
    def fake_tree(self, d):
        write(os.path.join(d, "fakebin/nvidia-smi"), FAKE_SMI, 0o755)
        write(os.path.join(d, "fakenvcc/nvcc"), "#!/bin/sh\necho 'Cuda compilation tools, release 13.0, V13.0.88'\n", 0o755)
        tree = os.path.join(d, "tree")
        shutil.copytree(os.path.join(ROOT, "tools"), os.path.join(tree, "tools"))
        write(os.path.join(tree, "0_Test/fakeSample/Makefile"), "include ../../common/sample.mk\n")
        write(os.path.join(tree, "0_Test/fakeSample/bench.args"), "# one more run\n--n=5\n")
        write(os.path.join(tree, "0_Test/fakeSample/README.md"),
              "# fakeSample\n\nA fake.\n\n## Results\n\n%s\n%s\n\n## Try next\n" % (R.BEGIN, R.END))
        write(os.path.join(tree, "bin/fakeSample"), FAKE_SAMPLE, 0o755)
        write(os.path.join(tree, "results/nvidia_samples.tsv"),
              "NVIDIA Fake GPU\tfakeSample\tfake\t1 KB\t7\tgbps\ta test line\t2026-01-01\n")
        env = dict(os.environ, PATH=os.pathsep.join(
            [os.path.join(d, "fakebin"), os.path.join(d, "fakenvcc"), os.environ["PATH"]]),
            GIT_COMMIT="abc1234", GIT_DIRTY="no")
        return tree, env

    def test_no_gpu_exits_2_with_the_reason(self):
        with tempfile.TemporaryDirectory() as d:
            tree, env = self.fake_tree(d)
            env["FAKE_NO_GPU"] = "1"
            p = subprocess.run(["bash", "tools/bench.sh"], cwd=tree, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
            self.assertEqual(p.returncode, 2, p.stdout)
            self.assertIn("no CUDA device visible", p.stdout)
            self.assertFalse(os.path.exists(os.path.join(tree, "results/Fake_GPU")))
            env["PATH"] = os.path.join(d, "fakebin") + os.pathsep + os.environ["PATH"]   # the real nvcc
            p = subprocess.run(["make", "-s", "--no-print-directory", "bench"], cwd=ROOT, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
            self.assertEqual(p.returncode, 2, p.stdout)
            self.assertIn("bench: no CUDA device visible", p.stdout)
            self.assertNotIn("nvcc", p.stdout)     # nothing was built first

    def test_a_bench_on_a_fake_gpu(self):
        with tempfile.TemporaryDirectory() as d:
            tree, env = self.fake_tree(d)
            out = os.path.join(tree, "results/Fake_GPU")
            write(os.path.join(out, "fakeSample__gone.txt"),     # a run of a bench.args line since removed
                  "# gpu: NVIDIA Fake GPU\n# command: make bench (bin/fakeSample --gone)\n# exit: 0\n")
            p = subprocess.run(["bash", "tools/bench.sh"], cwd=tree, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
            self.assertEqual(p.returncode, 0, p.stdout)
            charts = ["roofline.png", "roofline.svg"] if shutil.which("gnuplot") else []
            self.assertEqual(sorted(os.listdir(out)), sorted(
                ["RESULTS.md", "fakeSample.txt", "fakeSample__n_5.txt", "results.json"] + charts))
            doc = R.load(os.path.join(out, "results.json"))
            self.assertEqual((doc["gpu"], doc["driver"], doc["cuda_toolkit"], doc["commit"], doc["dirty"]),
                             ("NVIDIA Fake GPU", "999.01", "13.0", "abc1234", False))
            self.assertEqual([(r["args"], r["exit"], len(r["records"])) for r in doc["runs"]],
                             [("", 0, 2), ("--n=5", 0, 2)])
            before = doc["clocks"]["before"]
            self.assertEqual(before, {"clocks.sm": 1980, "clocks.mem": 2619, "clocks.max.sm": 1980,
                                      "clocks.max.mem": 2619, "pstate": "P0", "temperature.gpu": 41,
                                      "power.draw": 95.5})
            self.assertEqual(doc["clocks"]["after"], before)
            self.assertIsNotNone(doc["runs"][0]["seconds"])
            readme = between(os.path.join(tree, "0_Test/fakeSample/README.md"))
            self.assertIn("| `fast` | n=1000 | PASS | 2 | 50 GB/s | 50% of ref |", readme)
            self.assertIn("| NVIDIA's `fake` (context) | 1 KB |  |  | 7 GB/s |  | a test line, 2026-01-01 |", readme)
            self.assertIn("Further runs (`bench.args`): `--n=5`", readme)
            self.assertIn("chart: results/Fake_GPU/roofline.svg" if charts else "gnuplot is not installed",
                          p.stdout)
            # a failing sample: exit 1, the run recorded with its exit status
            write(os.path.join(tree, "bin/fakeSample"), "#!/bin/sh\necho 'fakeSample: FAIL'\nexit 1\n", 0o755)
            p = subprocess.run(["bash", "tools/bench.sh", "fakeSample"], cwd=tree, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
            self.assertEqual(p.returncode, 1, p.stdout)
            doc = R.load(os.path.join(out, "results.json"))
            self.assertEqual([r["exit"] for r in doc["runs"]], [1, 1])


class Summary(unittest.TextTestResult):
    pass


if __name__ == "__main__":
    runner = unittest.TextTestRunner(verbosity=2, stream=sys.stdout)
    result = runner.run(unittest.defaultTestLoader.loadTestsFromModule(sys.modules[__name__]))
    failed = len(result.failures) + len(result.errors)
    passed = result.testsRun - failed - len(result.skipped)
    print("results tools: %d passed, %d failed%s" % (
        passed, failed, " (%d skipped)" % len(result.skipped) if result.skipped else ""))
    sys.exit(1 if failed else 0)

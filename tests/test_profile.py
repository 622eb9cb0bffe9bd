#!/usr/bin/env python3
"""test_profile.py: tests of tools/profile.py (`make profile`, `make profile-diff`, the
NVTX filter check) on the CPU. Fixtures (tests/fixtures/profile/):
  raw_ncu2022.3_addConstDouble.csv      a real `ncu --import --csv --page raw --print-units
                                         base --metrics ...` export of the example report Debian's
                                         nsight-compute 2022.3 ships (RTX A2000; no NVTX column)
  raw_handwritten_*.csv                 written by hand in the layout of ncu's raw page with the
                                         NVTX stack column, every number made up: the lead replaces
                                         them with captures from the H200
  query_suffix_gh100_ncu2022.3.txt      real `ncu --query-metrics-mode suffix --metrics <bases>
                                         --chips gh100` output (ncu 2022.3, no GPU needed), trimmed
  query_base_stalls_gh100_ncu2022.3.txt real `ncu --query-metrics --chips gh100`, the stall lines
  captured/<sample>__<variant>.csv      real H200 profiles, when the lead has copied some there
Run by tests/test_profile.sh; ends with "profile tools: N passed, M failed".
"""
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
import importlib.util  # noqa: E402

# tools/profile.py, loaded under another name: `import profile` is the standard library's.
_spec = importlib.util.spec_from_file_location("profile_tool", os.path.join(ROOT, "tools", "profile.py"))
P = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(P)

FX = os.path.join(ROOT, "tests", "fixtures", "profile")
RED = os.path.join(FX, "raw_handwritten_reduction_sequential.csv")
MM = os.path.join(FX, "raw_handwritten_matrixMul_smem_tile32.csv")
REAL = os.path.join(FX, "raw_ncu2022.3_addConstDouble.csv")
SUFFIX = os.path.join(FX, "query_suffix_gh100_ncu2022.3.txt")
BASE = os.path.join(FX, "query_base_stalls_gh100_ncu2022.3.txt")



def read(path):
    with open(path) as f:
        return f.read()


def write(path, text, mode=None):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    if mode:
        os.chmod(path, mode)


METRICS = P.load_metrics()

# ---- ncu's CSV -------------------------------------------------------------------------------------


class CsvParsing(unittest.TestCase):
    def test_a_real_ncu_export(self):
        header, units, rows = P.parse_raw_csv(read(REAL))
        self.assertEqual(header[:5], ["ID", "Process ID", "Process Name", "Host Name", "Kernel Name"])
        self.assertEqual(len(rows), 1)
        self.assertEqual(rows[0][header.index("Kernel Name")], "addConstDouble(int, double *, double, double *)")
        self.assertEqual(units[header.index("launch__registers_per_thread")], "register/thread")
        launches, has_nvtx = P.launches_from_csv(read(REAL), METRICS, required=False)
        self.assertFalse(has_nvtx)
        v = launches[0].values
        self.assertAlmostEqual(v["duration"], 0.239008)          # 239008 nsecond, in ms
        self.assertEqual((v["registers"], v["grid"], v["block"], v["smem_static"]), (16, 12288, 256, 0))
        self.assertAlmostEqual(v["occupancy"], 74.45)
        self.assertAlmostEqual(v["l2_hit"], 50.17)
        self.assertEqual(v["threads_per_inst"], 32)
        self.assertIsNone(launches[0].stack)

    def test_a_metric_missing_from_the_csv_fails_loudly_by_name(self):
        # this 2022 report has no dram__throughput and no per_warp_active stall metrics
        with self.assertRaises(P.ProfileError) as e:
            P.launches_from_csv(read(REAL), METRICS)
        msg = str(e.exception)
        self.assertIn("dram__throughput.avg.pct_of_peak_sustained_elapsed", msg)
        self.assertIn("smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct", msg)
        self.assertIn("renamed", msg)

    def test_the_handwritten_fixture_with_nvtx_stacks(self):
        launches, has_nvtx = P.launches_from_csv(read(RED), METRICS)
        self.assertTrue(has_nvtx)
        self.assertEqual(len(launches), 16)
        self.assertEqual(launches[0].stack, ["reduction", "sequential"])
        self.assertEqual(launches[0].values["grid"], 1048576)     # "1,048,576"
        self.assertAlmostEqual(launches[0].values["duration"], 1.002)
        self.assertEqual(launches[0].name, "void reduce_tile<2, 256>(const float *, float *, unsigned long)")
        self.assertEqual([l.values["grid"] for l in launches[:5]], [1048576, 4096, 16, 1, 1048576])

    def test_quotes_commas_app_output_and_na(self):
        text = ("matrixMul: some output, with a comma\n==PROF== Connected\n"
                '"ID","Kernel Name","gpu__time_duration.sum","launch__grid_size"\n'
                '"","","usecond",""\n'
                '"0","k<1, 2>(float *, ""quoted"")","1,500.5","2,048"\n'
                '"1","k2","n/a","1"\n'
                "==PROF== Disconnected\n")
        m = [x for x in METRICS if x[0] in ("duration", "grid")]
        launches, _ = P.launches_from_csv(text, m, required=False)
        self.assertEqual(launches[0].name, 'k<1, 2>(float *, "quoted")')
        self.assertAlmostEqual(launches[0].values["duration"], 1.5005)    # usecond -> ms
        self.assertEqual(launches[0].values["grid"], 2048)
        self.assertNotIn("duration", launches[1].values)
        with self.assertRaises(P.ProfileError) as e:
            P.launches_from_csv(text, m)
        self.assertIn("launch 1 (k2): gpu__time_duration.sum has no value ('n/a')", str(e.exception))

    def test_no_header_or_a_ragged_row_is_an_error(self):
        with self.assertRaises(P.ProfileError):
            P.parse_raw_csv("==PROF== No kernels were profiled.\n")
        with self.assertRaises(P.ProfileError):
            P.parse_raw_csv('"ID","Kernel Name","x"\n"","",""\n"0","k"\n')

    def test_units(self):
        self.assertEqual(P.unit_scale("time", "nsecond", "m"), 1e-6)
        self.assertEqual(P.unit_scale("time", "second", "m"), 1e3)
        self.assertEqual(P.unit_scale("bytes", "Kbyte/block", "m"), 1e3)
        self.assertEqual(P.unit_scale("%", "%", "m"), 1.0)
        for kind, unit in (("%", ""), ("%", "proportion"), ("time", "cycle"), ("bytes", "sector")):
            with self.assertRaises(P.ProfileError):
                P.unit_scale(kind, unit, "m")

    def test_numbers(self):
        self.assertEqual(P.parse_number("1,234,567"), 1234567)
        self.assertEqual(P.parse_number(" 12.50 "), 12.5)
        for t in ("", "n/a", "nan", "(!) 3"):
            self.assertIsNone(P.parse_number(t))

    def test_nvtx_stack_cells(self):
        cell = ('4242  "<default domain>:matrixMul:none:none:none:none:none:none"  '
                '"<default domain>:naive:none:none:none:none:none:none" ')
        self.assertEqual(P.nvtx_stack(cell), ["matrixMul", "naive"])
        self.assertEqual(P.nvtx_stack('1 "<default domain>:a:b:none:none:none:none:none:none"'), ["a:b"])
        self.assertEqual(P.nvtx_stack(""), [])
        self.assertEqual(P.nvtx_stack("17"), [])
        self.assertIsNone(P.nvtx_stack('1 "garbage"'))
        self.assertIsNone(P.nvtx_stack("something else"))

    def test_short_kernel_names(self):
        self.assertEqual(P.short_kernel_name("void mm_smem<32>(int, float *)"), "mm_smem<32>")
        self.assertEqual(P.short_kernel_name("k(int)"), "k")
        self.assertEqual(P.short_kernel_name("sm90_xmma_gemm_f32f32_tn"), "sm90_xmma_gemm_f32f32_tn")
        self.assertEqual(P.short_kernel_name("void f<(int)4>(int)"), "f<(int)4>")


class RealCaptures(unittest.TestCase):
    """Raw CSVs of real profiles (build/profile/<sample>__<variant>.csv from the GPU machine),
    dropped into tests/fixtures/profile/captured/ under the same names: each must parse with
    every metric, carry the NVTX stack of its variant on every launch, and summarize to a
    sane row."""

    def test_every_capture(self):
        d = os.path.join(FX, "captured")
        files = sorted(f for f in os.listdir(d) if f.endswith(".csv")) if os.path.isdir(d) else []
        if not files:
            self.skipTest("no real capture in tests/fixtures/profile/captured/ yet")
        for f in files:
            sample, variant = f[:-4].split("__", 1)
            launches, has_nvtx = P.launches_from_csv(read(os.path.join(d, f)), METRICS)
            self.assertTrue(has_nvtx, f)
            self.assertEqual(P.check_stacks(launches, sample, variant), len(launches), f)
            cells, nums = P.summarize(launches, METRICS)
            self.assertGreater(nums["ms/run"], 0, f)
            for c in ("occupancy %", "DRAM % peak", "L1 hit %", "L2 hit %", "warp eff. %"):
                self.assertTrue(0 <= nums[c] <= 100.5, (f, c, nums[c]))
            self.assertTrue(0 < nums["top stall"][1] <= 100.5, f)


# ---- one profile's row ---------------------------------------------------------------------------


def launches_of(path):
    return P.launches_from_csv(read(path), METRICS)[0]


class Summary(unittest.TestCase):
    def test_a_multi_kernel_variant(self):
        cells, nums = P.summarize(launches_of(RED), METRICS)
        # one run: pass 1 median(1002000, 998000, 1000000, 1040000) ns + 8000 + 4000 + 2000
        self.assertAlmostEqual(nums["ms/run"], 1.015)
        self.assertEqual(cells["ms/run"], "1.015")
        self.assertEqual(cells["launches"], "4")
        # every other cell is the dominant launch's: pass 1
        self.assertEqual(cells["occupancy %"], "90.0")
        self.assertEqual(cells["L2 hit %"], "10.0")
        self.assertEqual(cells["DRAM % peak"], "50.0")
        self.assertEqual(cells["smem B/block"], "1024")
        self.assertEqual(cells["warp eff. %"], "62.5")            # 20 threads / 32
        self.assertEqual(cells["top stall"], "long_scoreboard 60.0%")
        self.assertEqual(cells["kernel"], "`reduce_tile<2, 256>` (99% of the run)")

    def test_a_single_kernel_variant(self):
        cells, _ = P.summarize(launches_of(MM), METRICS)
        self.assertEqual(cells["ms/run"], "14.01")                # median of 13.99 14.00 14.02 14.03
        self.assertEqual(cells["kernel"], "`mm_smem<32>`")
        self.assertEqual(cells["top stall"], "mio_throttle 40.0%")
        self.assertEqual(cells["bank conflicts"], "1000")
        self.assertEqual(cells["smem B/block"], "8192")
        self.assertEqual(cells["warp eff. %"], "100.0")

    def test_the_dominant_launch_need_not_be_the_first(self):
        launches = launches_of(RED)
        for r in range(P.RUNS):
            launches[r * 4 + 1].values["duration"] = 3.0      # pass 2 (grid 4096) now takes 3 ms
        cells, nums = P.summarize(launches, METRICS)
        self.assertAlmostEqual(nums["ms/run"], 1.001 + 3.0 + 0.004 + 0.002)
        self.assertEqual(cells["occupancy %"], "50.0")              # pass 2's
        self.assertEqual(cells["top stall"], "barrier 40.0%")
        self.assertEqual(cells["kernel"], "`reduce_tile<2, 256>` (75% of the run)")

    def test_dynamic_shared_memory_is_added(self):
        launches = launches_of(MM)
        for l in launches:
            l.values["smem_dynamic"] = 4096
        self.assertEqual(P.summarize(launches, METRICS)[0]["smem B/block"], str(8192 + 4096))

    def test_launches_must_split_into_the_runs(self):
        launches = launches_of(RED)
        with self.assertRaises(P.ProfileError) as e:
            P.summarize(launches[:-1], METRICS)           # 15 launches
        self.assertIn("not a multiple of the 4 runs", str(e.exception))
        launches[9].values["grid"] = 8192                  # run 3 launched differently
        with self.assertRaises(P.ProfileError) as e:
            P.summarize(launches, METRICS)
        self.assertIn("did not launch the same kernels", str(e.exception))
        with self.assertRaises(P.ProfileError):
            P.summarize([], METRICS)

    def test_runs_follow_the_timing_layer(self):
        """RUNS = time_gpu's warm-ups + the one timed run: the constant must follow
        common/timing.c, or every profile of a real sample fails its split."""
        m = re.search(r"c\.warmups\s*=\s*(\d+);", read(os.path.join(ROOT, "common", "timing.c")))
        self.assertIsNotNone(m)
        self.assertEqual(P.WARMUPS, int(m.group(1)))
        self.assertEqual(P.RUNS, P.WARMUPS + P.REPS)

    def test_a_launch_outside_the_variant_range_is_caught(self):
        launches = launches_of(RED)
        self.assertEqual(P.check_stacks(launches, "reduction", "sequential"), 16)
        launches[5].stack = ["reduction", "cub"]
        with self.assertRaises(P.ProfileError) as e:
            P.check_stacks(launches, "reduction", "sequential")
        self.assertIn("launch 5", str(e.exception))
        self.assertIn("reduction/cub", str(e.exception))
        launches[5].stack = []                              # a check launch, outside every range
        with self.assertRaises(P.ProfileError):
            P.check_stacks(launches, "reduction", "sequential")
        launches[5].stack = ["sequential"]                  # the variant's name alone
        with self.assertRaises(P.ProfileError):
            P.check_stacks(launches, "reduction", "sequential")
        launches[5].stack = ["cub", "reduction"]            # another variant, innermost first
        with self.assertRaises(P.ProfileError):
            P.check_stacks(launches, "reduction", "sequential")

    def test_a_library_range_inside_the_variant_is_the_variant(self):
        """CUB pushes its own range inside reduction/cub (ncu 2025.3.1 on the H200 listed
        reduction/cub/cub::DeviceReduce::Sum:none:none:none:none): still the variant's."""
        launches = launches_of(RED)
        for ln in launches:
            ln.stack = ["reduction", "cub", "cub::DeviceReduce::Sum:none:none:none:none"]
        self.assertEqual(P.check_stacks(launches, "reduction", "cub"), len(launches))
        for ln in launches:
            ln.stack = ["cub::DeviceReduce::Sum:none:none:none:none", "cub", "reduction"]
        self.assertEqual(P.check_stacks(launches, "reduction", "cub"), len(launches))
        with self.assertRaises(P.ProfileError):
            P.check_stacks(launches, "reduction", "sequential")

    def test_significant_digits(self):
        self.assertEqual(P.fmt_sig(275.8123, 4), "275.8")
        self.assertEqual(P.fmt_sig(1.015, 4), "1.015")
        self.assertEqual(P.fmt_sig(0.0123456, 4), "0.01235")
        self.assertEqual(P.fmt_sig(12345.6, 4), "12346")
        self.assertEqual(P.fmt_sig(0, 4), "0")


# ---- the notebook ---------------------------------------------------------------------------------


def row(variant="smem_tile32", note="tile 16 -> 32", ms="13.78", stall="long_scoreboard 61.2%"):
    v = {c: "x" for c in P.COLUMNS}
    v.update({"date (UTC)": "2026-12-01 10:00", "commit": "abc1234", "dirty": "no", "GPU": "H200",
              "ncu": "2025.3.1.0", "variant": variant, "args": "", "note": note, "ms/run": ms,
              "launches": "1", "regs": "32", "top stall": stall, "kernel": "`mm_smem<32>`"})
    return v


class Notebook(unittest.TestCase):
    def test_created_with_its_header_then_appended(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "NOTEBOOK.md")
            P.append_row(path, "matrixMul", METRICS, row(note="first"))
            text = read(path)
            self.assertTrue(text.startswith("# matrixMul: lab notebook\n"))
            for _, metric, _, _ in METRICS:          # every metric behind a column is named
                if not metric.startswith("smsp__warp_issue_stalled_") and metric not in (
                        "launch__grid_size", "launch__block_size"):
                    self.assertIn("`%s`" % metric, text)
            self.assertIn("smsp__warp_issue_stalled_<reason>_per_warp_active.pct", text)
            self.assertIn('make profile SAMPLE=matrixMul VARIANT=<variant> NOTE="what you changed"', text)
            P.append_row(path, "matrixMul", METRICS, row(note="a | pipe\nand a newline", ms="10"))
            cols, rows = P.read_notebook(path)
            self.assertEqual(cols, P.COLUMNS)
            self.assertEqual([r["note"] for r in rows], ["first", "a | pipe and a newline"])
            self.assertEqual(rows[1]["ms/run"], "10")
            self.assertEqual(text.count("# matrixMul: lab notebook"), 1)
            self.assertEqual(read(path).count("| date (UTC) |"), 1)

    def test_a_notebook_with_other_columns_is_not_appended_to(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "NOTEBOOK.md")
            write(path, "# x\n\n| date (UTC) | commit |\n|---|---|\n| a | b |\n")
            with self.assertRaises(P.ProfileError) as e:
                P.append_row(path, "x", METRICS, row())
            self.assertIn("move the old notebook", str(e.exception))
            self.assertEqual(read(path).count("\n"), 5)

    def test_a_row_lacking_a_column_is_refused(self):
        v = row()
        del v["L2 hit %"]
        with self.assertRaises(P.ProfileError):
            P.format_row(v)


class Diff(unittest.TestCase):
    def test_changes_are_marked_and_numbers_get_ratios(self):
        cols = P.COLUMNS
        a = row(variant="smem_tile16", ms="16.51", stall="long_scoreboard 60.0%")
        b = row(variant="smem_tile32", ms="13.78", stall="long_scoreboard 30.0%")
        lines = {l.split()[1] if l.startswith("*") else l.split()[0]: l
                 for l in P.diff_rows(a, b, cols)}
        self.assertTrue(lines["variant"].startswith("*"))
        self.assertTrue(lines["ms/run"].startswith("*"))
        self.assertIn("x0.835", lines["ms/run"])
        self.assertIn("x0.5", lines["top"])                  # same reason: the share's ratio
        self.assertTrue(lines["commit"].startswith(" "))
        self.assertNotIn("x", lines["commit"].split("abc1234")[-1])
        c = row(stall="barrier 30.0%")
        stall = [l for l in P.diff_rows(a, c, cols) if "top stall" in l][0]
        self.assertTrue(stall.startswith("*"))
        self.assertNotIn(" x", stall.split("barrier 30.0%")[-1])   # another reason: no ratio

    def test_numbers_in_cells(self):
        self.assertEqual(P.split_number("13.78"), ("", 13.78))
        self.assertEqual(P.split_number("1,024"), ("", 1024))
        self.assertEqual(P.split_number("long_scoreboard 61.2%"), ("long_scoreboard", 61.2))
        self.assertIsNone(P.split_number("`mm_smem<32>`"))
        self.assertIsNone(P.split_number("abc1234"))


# ---- metric names against ncu's own list ----------------------------------------------------------------


class MetricNames(unittest.TestCase):
    def test_every_name_is_in_ncu_s_listing(self):
        missing, extra = P.validate_names(METRICS, read(SUFFIX), read(BASE))
        self.assertEqual(missing, [])
        self.assertEqual(extra, [])

    def test_a_renamed_metric_is_reported(self):
        listing = read(SUFFIX).replace("lts__t_sector_hit_rate.pct ", "lts__t_sector_hit_rate.pctx")
        missing, _ = P.validate_names(METRICS, listing)
        self.assertEqual(missing, ["lts__t_sector_hit_rate.pct"])
        renamed = [(k, m.replace("dram__throughput", "dram__throughput_old"), u, t) for k, m, u, t in METRICS]
        missing, _ = P.validate_names(renamed, read(SUFFIX))
        self.assertEqual(missing, ["dram__throughput_old.avg.pct_of_peak_sustained_elapsed"])

    def test_names_ncu_warns_about_are_not_known(self):
        text = ("Chip gh100\n==WARNING== The below metrics are either invalid or don't have suffixes.\n"
                "bogus__metric_x\n----- -----\nMetric Name  Metric Type\n-----\n"
                "gpu__time_duration.sum   Counter   nsecond   equals to\n"
                "                                             wrapped description__line\n")
        names, invalid = P.parse_query_metrics(text)
        self.assertEqual(names, {"gpu__time_duration.sum"})
        self.assertEqual(invalid, {"bogus__metric_x"})
        with self.assertRaises(P.ProfileError):
            P.validate_names(METRICS, "==ERROR== no device\n")

    def test_a_stall_reason_the_set_does_not_collect_is_noticed(self):
        base = read(BASE) + ("smsp__warp_issue_stalled_gmma_per_warp_active" + " " * 20 +
                             "Ratio  proportion  waiting for a tensor core\n")
        self.assertEqual(P.validate_names(METRICS, read(SUFFIX), base)[1], ["gmma"])

    def test_the_data_file(self):
        keys = [m[0] for m in METRICS]
        self.assertEqual(len(keys), len(set(keys)))
        for _, name, _, _ in METRICS:
            self.assertRegex(name, r"^[a-z0-9]+__[a-z0-9_]+(\.[a-z0-9_]+)*$")
        self.assertNotIn("stall:selected", keys)            # issuing is not a stall
        with tempfile.TemporaryDirectory() as d:
            bad = os.path.join(d, "m.tsv")
            write(bad, "duration\tgpu__time_duration.sum\tseconds\tx\n")
            with self.assertRaises(P.ProfileError):
                P.load_metrics(bad)


class Variants(unittest.TestCase):
    def test_from_help(self):
        text = ("Usage: x\n\nVariants:\n  cub                         cub::DeviceReduce::Sum (reference)\n"
                "  interleaved_divergent       0: interleaved\n  cpu                         CPU\n"
                "--quick: n = 2^17+3\n")
        self.assertEqual(P.variants_from_help(text), ["cub", "interleaved_divergent", "cpu"])
        self.assertEqual(P.variants_from_help("Variants: h2d_pinned d2h_pinned d2d.\n"),
                         ["h2d_pinned", "d2h_pinned", "d2d"])
        self.assertEqual(P.variants_from_help("no list here\n"), [])

    def test_the_built_samples_list_theirs(self):
        for s, want in (("matrixMul", "smem_tile32"), ("reduction", "sequential"), ("vectorAdd", "naive")):
            if not os.access(os.path.join(ROOT, "bin", s), os.X_OK):
                self.skipTest("bin/%s not built" % s)
            got = P.kernel_variants(s)
            self.assertIn(want, got)
            self.assertNotIn("cpu", got)


# ---- the command on a machine without a GPU, or without ncu, or with a fake ncu ----------------------

FAKE_SMI = r"""#!/usr/bin/env bash
[ "${FAKE_NO_GPU:-0}" = 1 ] && { echo "NVIDIA-SMI has failed" >&2; exit 9; }
case "$*" in
  *-L*) echo "GPU 0: NVIDIA Fake GPU (UUID: GPU-0)";;
  *name*) echo "NVIDIA Fake GPU";;
esac
"""

# A fake sample: --help lists variants; a run prints its verdict (FAKE_SAMPLE_FAIL=1: FAIL).
FAKE_SAMPLE = r"""#!/usr/bin/env bash
if [ "${1:-}" = --help ]; then
  printf 'reduction: fake\n\nVariants:\n  cub          the reference\n  sequential   2: sequential\n  cpu          the CPU\n'
  exit 0
fi
echo "RESULT sample=reduction variant=x status=PASS"
[ "${FAKE_SAMPLE_FAIL:-0}" = 1 ] && { echo "reduction: FAIL"; exit 1; }
echo "reduction: PASS"
"""

# A fake ncu: logs its argv, answers the queries from fixtures, runs the program it is given
# and writes as its "report" the CSV FAKE_NCU_CSV_DIR holds for the NVTX filter (all.csv
# without one, else the filter with / as _, then .csv), which --import prints; with no such
# CSV it profiled no kernel and writes no report.
FAKE_NCU = r"""#!/usr/bin/env python3
import os, subprocess, sys
a = sys.argv[1:]
with open(os.environ["FAKE_NCU_LOG"], "a") as f:
    f.write(repr(a) + "\n")
if a == ["--version"]:
    print("NVIDIA (R) Nsight Compute Command Line Profiler\nVersion 2025.3.1.0 (build 1) (public-release)")
    sys.exit(0)
if "--query-metrics-mode" in a:
    sys.stdout.write(open(os.environ["FAKE_NCU_SUFFIX"]).read()); sys.exit(0)
if "--query-metrics" in a:
    sys.stdout.write(open(os.environ["FAKE_NCU_BASE"]).read()); sys.exit(0)
if "--import" in a:
    sys.stdout.write(open(a[a.index("--import") + 1]).read())
    sys.exit(0)
inc = a[a.index("--nvtx-include") + 1] if "--nvtx-include" in a else ""
i = a.index("--force-overwrite")
print("==PROF== Connected to process 1")
sys.stdout.flush()
rc = subprocess.call(a[i + 1:])
name = "all.csv" if not inc else inc.replace("/", "_") + ".csv"
p = os.path.join(os.environ["FAKE_NCU_CSV_DIR"], name)
if os.path.exists(p):
    open(a[a.index("--export") + 1] + ".ncu-rep", "w").write(open(p).read())
else:
    print("==WARNING== No kernels were profiled.")
sys.exit(rc)
"""


def no_ncu_path():
    """PATH without any directory that holds an ncu (the GPU machine has one)."""
    return os.pathsep.join(d for d in os.environ["PATH"].split(os.pathsep)
                           if d and not os.path.exists(os.path.join(d, "ncu")))


class Command(unittest.TestCase):
    def tree(self, d):
        """A copy of tools/ with a fake sample `reduction`, a fake GPU and a fake ncu."""
        t = os.path.join(d, "tree")
        shutil.copytree(os.path.join(ROOT, "tools"), os.path.join(t, "tools"),
                        ignore=shutil.ignore_patterns("__pycache__"))
        write(os.path.join(t, "0_Test/reduction/Makefile"), "include ../../common/sample.mk\n")
        write(os.path.join(t, "bin/reduction"), FAKE_SAMPLE, 0o755)
        write(os.path.join(d, "fakebin/nvidia-smi"), FAKE_SMI, 0o755)
        write(os.path.join(d, "ncubin/ncu"), FAKE_NCU, 0o755)
        csvdir = os.path.join(d, "csv")
        write(os.path.join(csvdir, "reduction_sequential_.csv"), read(RED))
        env = dict(os.environ, PATH=os.pathsep.join([os.path.join(d, "fakebin"), os.path.join(d, "ncubin"),
                                                     no_ncu_path()]),
                   GIT_COMMIT="abc1234", GIT_DIRTY="no", FAKE_NCU_LOG=os.path.join(d, "ncu.log"),
                   FAKE_NCU_SUFFIX=SUFFIX, FAKE_NCU_BASE=BASE, FAKE_NCU_CSV_DIR=csvdir,
                   PROFILE_NCU_GLOBS="")
        env.pop("NCU", None)
        return t, env

    def run_tool(self, tree, env, *args):
        return subprocess.run([sys.executable, "tools/profile.py"] + list(args), cwd=tree, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)

    def test_no_gpu_exits_2_with_the_reason(self):
        with tempfile.TemporaryDirectory() as d:
            t, env = self.tree(d)
            env["FAKE_NO_GPU"] = "1"
            for args in (["run", "--sample=reduction", "--variant=sequential"], ["check"],
                         ["nvtx-check", "reduction"], ["validate"]):
                p = self.run_tool(t, env, *args)
                self.assertEqual(p.returncode, 2, p.stdout)
                self.assertIn("no CUDA device visible", p.stdout)
            self.assertFalse(os.path.exists(os.path.join(t, "0_Test/reduction/NOTEBOOK.md")))

    def test_no_ncu_exits_2_with_the_reason(self):
        with tempfile.TemporaryDirectory() as d:
            t, env = self.tree(d)
            env["PATH"] = os.pathsep.join([os.path.join(d, "fakebin"), no_ncu_path()])
            p = self.run_tool(t, env, "run", "--sample=reduction", "--variant=sequential")
            self.assertEqual(p.returncode, 2, p.stdout)
            self.assertIn("Nsight Compute (ncu) not found", p.stdout)
            env["NCU"] = os.path.join(d, "nothing/ncu")
            p = self.run_tool(t, env, "check")
            self.assertEqual(p.returncode, 2, p.stdout)
            self.assertIn("is not an executable file", p.stdout)

    def test_make_profile_without_a_gpu_builds_nothing(self):
        with tempfile.TemporaryDirectory() as d:
            _, env = self.tree(d)
            env["FAKE_NO_GPU"] = "1"
            p = subprocess.run(["make", "-s", "--no-print-directory", "profile", "SAMPLE=matrixMul",
                                "VARIANT=naive", "NOTE=it's a note"], cwd=ROOT, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
            self.assertEqual(p.returncode, 2, p.stdout)
            self.assertIn("profile: no CUDA device visible", p.stdout)
            self.assertNotIn("nvcc", p.stdout)
            p = subprocess.run(["make", "-s", "--no-print-directory", "profile", "SAMPLE=matrixMul"],
                               cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               universal_newlines=True)
            self.assertNotEqual(p.returncode, 0)
            self.assertIn("usage: make profile SAMPLE=name VARIANT=name", p.stdout)

    def test_a_profile_on_a_fake_gpu_appends_a_row(self):
        with tempfile.TemporaryDirectory() as d:
            t, env = self.tree(d)
            env["PROFILE_NOTE"] = "first | try"
            p = self.run_tool(t, env, "run", "--sample=reduction", "--variant=sequential")
            self.assertEqual(p.returncode, 0, p.stdout)
            calls = [eval(l) for l in read(os.path.join(d, "ncu.log")).splitlines()]
            prof = [c for c in calls if "--export" in c][0]
            self.assertEqual(prof[:5], ["--clock-control", "none", "--nvtx", "--nvtx-include",
                                        "reduction/sequential/"])
            self.assertEqual(prof[prof.index("--metrics") + 1], ",".join(m[1] for m in METRICS))
            self.assertEqual(prof[-2:], ["--variant=sequential", "--reps=1"])
            self.assertTrue(prof[-3].endswith("bin/reduction"))
            self.assertTrue(any("--query-metrics-mode" in c for c in calls))
            imp = [c for c in calls if "--import" in c][0]
            self.assertEqual(imp[-5:], ["--csv", "--page", "raw", "--print-units", "base"])
            nb = os.path.join(t, "0_Test/reduction/NOTEBOOK.md")
            cols, rows = P.read_notebook(nb)
            r = rows[0]
            self.assertEqual((r["commit"], r["dirty"], r["GPU"], r["ncu"], r["variant"], r["args"], r["note"]),
                             ("abc1234", "no", "Fake GPU", "2025.3.1.0", "sequential", "", "first | try"))
            self.assertEqual((r["ms/run"], r["launches"], r["top stall"]), ("1.015", "4", "long_scoreboard 60.0%"))
            self.assertRegex(r["date (UTC)"], r"^20\d\d-\d\d-\d\d \d\d:\d\d$")
            # the metric names were checked once for this ncu and GPU: not again
            env["PROFILE_NOTE"] = "second"
            env["PROFILE_ARGS"] = "--n=1000"
            n_queries = sum("--query-metrics-mode" in c for c in calls)
            p = self.run_tool(t, env, "run", "--sample=reduction", "--variant=sequential")
            self.assertEqual(p.returncode, 0, p.stdout)
            calls = [eval(l) for l in read(os.path.join(d, "ncu.log")).splitlines()]
            self.assertEqual(sum("--query-metrics-mode" in c for c in calls), n_queries)
            self.assertEqual([c for c in calls if "--export" in c][-1][-3:],
                             ["--n=1000", "--variant=sequential", "--reps=1"])
            _, rows = P.read_notebook(nb)
            self.assertEqual([(x["note"], x["args"]) for x in rows], [("first | try", ""), ("second", "--n=1000")])
            p = self.run_tool(t, env, "diff", "--sample=reduction")
            self.assertEqual(p.returncode, 0, p.stdout)
            self.assertIn("row 1 against row 2", p.stdout)
            self.assertRegex(p.stdout, r"\* note\s+first \| try\s+second")
            self.assertRegex(p.stdout, r"\n  ms/run\s+1.015\s+1.015\n")

    def test_refused_runs_append_nothing(self):
        with tempfile.TemporaryDirectory() as d:
            t, env = self.tree(d)
            nb = os.path.join(t, "0_Test/reduction/NOTEBOOK.md")
            cases = [
                (["--variant=nosuch"], {}, "no variant 'nosuch'"),
                (["--variant=cpu"], {}, "no variant 'cpu'"),
                (["--variant=cub"], {}, "ncu profiled no kernel in the NVTX range reduction/cub/"),
                (["--variant=sequential"], {"PROFILE_ARGS": "--reps=5"}, "sets --variant and --reps itself"),
                (["--variant=sequential"], {"FAKE_SAMPLE_FAIL": "1"}, "did not PASS"),
                (["--sample=nosuch", "--variant=x"], {}, "no sample named 'nosuch'"),
            ]
            for args, extra, msg in cases:
                e = dict(env, **extra)
                a = args if any(x.startswith("--sample") for x in args) else ["--sample=reduction"] + args
                p = self.run_tool(t, e, "run", *a)
                self.assertEqual(p.returncode, 1, p.stdout)
                self.assertIn(msg, p.stdout)
                self.assertFalse(os.path.exists(nb), msg)

    def test_a_report_left_by_an_earlier_run_is_not_read_again(self):
        with tempfile.TemporaryDirectory() as d:
            t, env = self.tree(d)
            p = self.run_tool(t, env, "run", "--sample=reduction", "--variant=sequential")
            self.assertEqual(p.returncode, 0, p.stdout)
            os.remove(os.path.join(env["FAKE_NCU_CSV_DIR"], "reduction_sequential_.csv"))   # now: no kernel
            p = self.run_tool(t, env, "run", "--sample=reduction", "--variant=sequential")
            self.assertEqual(p.returncode, 1, p.stdout)
            self.assertIn("ncu profiled no kernel in the NVTX range reduction/sequential/", p.stdout)
            self.assertEqual(len(P.read_notebook(os.path.join(t, "0_Test/reduction/NOTEBOOK.md"))[1]), 1)

    def test_a_metric_this_ncu_lacks_fails_before_profiling(self):
        with tempfile.TemporaryDirectory() as d:
            t, env = self.tree(d)
            listing = os.path.join(d, "suffix.txt")
            write(listing, "\n".join(l for l in read(SUFFIX).splitlines()
                                     if not l.startswith("l1tex__t_sector_hit_rate.pct")) + "\n")
            env["FAKE_NCU_SUFFIX"] = listing
            p = self.run_tool(t, env, "run", "--sample=reduction", "--variant=sequential")
            self.assertEqual(p.returncode, 1, p.stdout)
            self.assertIn("does not know l1tex__t_sector_hit_rate.pct", p.stdout)
            calls = read(os.path.join(d, "ncu.log"))
            self.assertNotIn("--export", calls)
            self.assertFalse(os.path.exists(os.path.join(t, "0_Test/reduction/NOTEBOOK.md")))

    def test_validate_for_a_chip_needs_no_gpu(self):
        with tempfile.TemporaryDirectory() as d:
            t, env = self.tree(d)
            env["FAKE_NO_GPU"] = "1"
            p = self.run_tool(t, env, "validate", "--chip=gh100")
            self.assertEqual(p.returncode, 0, p.stdout)
            self.assertIn("knows all 24 metric names on gh100", p.stdout)
            calls = [eval(l) for l in read(os.path.join(d, "ncu.log")).splitlines()]
            self.assertTrue(all(c[-2:] == ["--chips", "gh100"] for c in calls if "--version" not in c))
            env["FAKE_NCU_SUFFIX"] = os.path.join(d, "empty.txt")
            write(env["FAKE_NCU_SUFFIX"], "==ERROR== unknown chip\n")
            p = self.run_tool(t, env, "validate", "--chip=gh100")
            self.assertEqual(p.returncode, 1, p.stdout)
            self.assertIn("printed no metric names", p.stdout)

    def test_diff_needs_two_rows(self):
        with tempfile.TemporaryDirectory() as d:
            t, env = self.tree(d)
            p = self.run_tool(t, env, "diff", "--sample=reduction")
            self.assertEqual(p.returncode, 1)
            self.assertIn("no notebook yet", p.stdout)
            nb = os.path.join(t, "0_Test/reduction/NOTEBOOK.md")
            P.append_row(nb, "reduction", METRICS, row(variant="a", ms="2"))
            P.append_row(nb, "reduction", METRICS, row(variant="b", ms="3"))
            P.append_row(nb, "reduction", METRICS, row(variant="a", ms="1"))
            p = self.run_tool(t, env, "diff", "--sample=reduction", "--variant=b")
            self.assertEqual(p.returncode, 1)
            self.assertIn("1 row(s) of variant b", p.stdout)
            p = self.run_tool(t, env, "diff", "--sample=reduction", "--variant=a")
            self.assertEqual(p.returncode, 0, p.stdout)
            self.assertIn("row 1 against row 3", p.stdout)
            self.assertIn("x0.5", p.stdout)
            p = self.run_tool(t, env, "diff", "--sample=reduction")
            self.assertIn("row 2 against row 3", p.stdout)


def with_stack(text, stack_of):
    """The fixture's CSV with each launch's NVTX stack cell replaced by stack_of(index)."""
    head, table = text.split('"ID",', 1)
    lines = ('"ID",' + table).splitlines()
    out = lines[:2]
    for i, l in enumerate(lines[2:]):
        ranges = stack_of(i)
        cell = "1  " + "  ".join('""<default domain>:%s:none:none:none:none:none:none""' % r for r in ranges)
        out.append(re.sub(r'^("[^"]*","[^"]*","[^"]*","[^"]*",)"(?:[^"]|"")*"', lambda m: m.group(1) + '"%s"' % cell, l))
    return "\n".join(out) + "\n"


class ProfileAll(unittest.TestCase):
    def test_every_variant_of_the_help_gets_a_row(self):
        with tempfile.TemporaryDirectory() as d:
            t, env = Command().tree(d)
            write(os.path.join(t, "Makefile"), "reduction:\n\t@echo built $@\n")
            write(os.path.join(env["FAKE_NCU_CSV_DIR"], "reduction_cub_.csv"),
                  with_stack(read(RED), lambda i: ["reduction", "cub"]))
            env["OUT"] = os.path.join(d, "out")
            p = subprocess.run(["bash", "tools/profile_all.sh", "reduction"], cwd=t, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
            self.assertEqual(p.returncode, 0, p.stdout)
            _, rows = P.read_notebook(os.path.join(t, "0_Test/reduction/NOTEBOOK.md"))
            self.assertEqual([r["variant"] for r in rows], ["cub", "sequential"])     # from --help, no cpu
            self.assertEqual(rows[0]["note"], "profile_all.sh: every variant")
            self.assertRegex(p.stdout, r"profile_all: reduction/sequential took [0-9.]+ s")
            self.assertTrue(os.path.exists(os.path.join(d, "out/profile/reduction_NOTEBOOK.md")))
            self.assertTrue(os.path.exists(os.path.join(d, "out/profile/reduction__cub.csv")))
            # a variant that fails is reported and fails the whole, the others still run
            os.remove(os.path.join(env["FAKE_NCU_CSV_DIR"], "reduction_cub_.csv"))
            p = subprocess.run(["bash", "tools/profile_all.sh", "reduction"], cwd=t, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
            self.assertEqual(p.returncode, 1, p.stdout)
            self.assertEqual(len(P.read_notebook(os.path.join(t, "0_Test/reduction/NOTEBOOK.md"))[1]), 3)
            env["FAKE_NO_GPU"] = "1"
            p = subprocess.run(["bash", "tools/profile_all.sh"], cwd=t, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
            self.assertEqual(p.returncode, 2, p.stdout)
            self.assertIn("no CUDA device visible", p.stdout)
            self.assertNotIn("built", p.stdout)


class NvtxCheck(unittest.TestCase):
    """The GPU check's logic, on a fake ncu: the unfiltered run's launches, attributed by their
    NVTX stacks, are the truth each filtered run must match."""

    def setup(self, d, leak=False):
        t, env = Command().tree(d)
        csvdir = env["FAKE_NCU_CSV_DIR"]
        base = read(RED)
        lines = base[base.index('"ID",'):].splitlines()
        # unfiltered: 4 "check" launches outside any range, then the variant's 16
        allcsv = "\n".join(lines[:2] + lines[2:6] + lines[2:]) + "\n"
        write(os.path.join(csvdir, "all.csv"),
              with_stack(allcsv, lambda i: [] if i < 4 else ["reduction", "sequential"]))
        filt = with_stack(base, lambda i: ["reduction", "sequential"])
        if leak:   # the filter also picked up a check launch
            fl = filt.splitlines()
            filt = "\n".join(fl + [fl[2]]) + "\n"
        write(os.path.join(csvdir, "reduction_sequential_.csv"), filt)
        write(os.path.join(csvdir, "reduction_.csv"), filt)
        return t, env

    def test_a_filter_that_selects_exactly_the_variant_passes(self):
        with tempfile.TemporaryDirectory() as d:
            t, env = self.setup(d)
            p = Command().run_tool(t, env, "nvtx-check", "reduction")
            self.assertEqual(p.returncode, 0, p.stdout)
            self.assertIn("nvtx-check: 5 passed, 0 failed", p.stdout)
            self.assertIn('ok   reduction: --nvtx-include "reduction/sequential/" selected 16 launches', p.stdout)
            self.assertIn("ok   reduction: cub launches no kernel in its range", p.stdout)
            calls = [eval(l) for l in read(os.path.join(d, "ncu.log")).splitlines() if "--export" in l]
            self.assertEqual([c[c.index("--nvtx-include") + 1] if "--nvtx-include" in c else None for c in calls],
                             [None, "reduction/cub/", "reduction/sequential/", "reduction/no_such_variant/",
                              "reduction/"])
            self.assertTrue(all(c[-2:] == ["--quick", "--reps=1"] for c in calls))

    def test_a_leaking_filter_fails(self):
        with tempfile.TemporaryDirectory() as d:
            t, env = self.setup(d, leak=True)
            p = Command().run_tool(t, env, "nvtx-check", "reduction")
            self.assertEqual(p.returncode, 1, p.stdout)
            self.assertIn('FAIL reduction: --nvtx-include "reduction/sequential/" selected 17 launches', p.stdout)
            self.assertIn("nvtx-check: 3 passed, 2 failed", p.stdout)


if __name__ == "__main__":
    runner = unittest.TextTestRunner(verbosity=2, stream=sys.stdout)
    result = runner.run(unittest.defaultTestLoader.loadTestsFromModule(sys.modules[__name__]))
    failed = len(result.failures) + len(result.errors)
    passed = result.testsRun - failed - len(result.skipped)
    print("profile tools: %d passed, %d failed%s" % (
        passed, failed, " (%d skipped)" % len(result.skipped) if result.skipped else ""))
    sys.exit(1 if failed else 0)

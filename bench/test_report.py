"""Unit tests of bench/report.py: python3 -m unittest discover -s bench (scripts/test runs them).

The figures are checked against numbers worked out by hand from canned wrk outputs, so that a
change of a formula, a rounding or a verdict rule shows up here rather than in a benchmark.
"""

import io
import json
import os
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

import report

# What bench/run captures of one wrk run: wrk's own lines, the wrk script's BENCH line (one
# line: the backslash joins it), and bench/run's WRKCPU line. 2,000 requests in 4.0 s.
CANNED_WRK = """\
Running 4s test @ http://127.0.0.1:18880
  1 threads and 32 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency    16.01ms    3.10ms  80.00ms   90.00%
    Req/Sec   500.00     40.00   600.00     70.00%
  2000 requests in 4.00s, 1.20MB read
Requests/sec:    500.00
Transfer/sec:    307.20KB
BENCH requests=2000 duration_us=4000000 rps=500.0 p50_us=16004 p90_us=20000 p99_us=40015 \
max_us=80000 non2xx=0 nosuccess=0 connect=0 read=0 write=0 timeout=0 status=0
WRKCPU ticks=40
"""


def bench(requests, rps, p50_us=10000, p99_us=20000, duration_us=4000000, **errors):
    """A BENCH line (and the WRKCPU line) of the wrk script with the given figures."""
    counters = {name: errors.get(name, 0) for name in report.ERROR_COUNTERS + ("status",)}
    return (f"BENCH requests={requests} duration_us={duration_us} rps={rps} p50_us={p50_us} "
            f"p90_us={p50_us} p99_us={p99_us} max_us={p99_us} "
            + " ".join(f"{k}={v}" for k, v in counters.items()) + "\nWRKCPU ticks=0\n")


FACTS = {
    "stamp": "20250101T000000Z", "git_rev": "abc1234", "build_dir": "/repo/build-bench",
    "cpus": "2", "cpu_model": "Test CPU", "mem_total_kib": "24712345", "kernel": "Linux 6.1",
    "load_before": "0.10 0.20 0.30", "load_after": "1.00 1.10 1.20", "threads": "1",
    "connections": "32", "warmup": "1", "duration": "4", "rounds": "1", "workers": "2",
    "log_level": "info", "clk_tck": "100", "customers": "1000", "tickets": "200",
    "surveys": "10000", "seed_seconds": "6", "worker_idle": "7000 1500 4000 2500",
    "worker_hwm_kib": "8100",
}


class Stack:
    """A stack directory as bench/run leaves it: measurements.jsonl and wrk/."""

    def __init__(self, path):
        self.path = path
        self.lines = [json.dumps({"record": "facts", **FACTS})]
        os.makedirs(os.path.join(path, "wrk"))

    def facts(self, **facts):
        self.lines.append(json.dumps({"record": "facts", **facts}))

    def measure(self, row, round_, wrk, warmup=None, worker_mem="", **ticks):
        names = {}
        for kind, text in (("wrk", wrk), ("warmup", warmup or bench(100, "100.0"))):
            names[kind] = f"wrk/{row}.{round_}{'.warmup' if kind == 'warmup' else ''}.txt"
            with open(os.path.join(self.path, names[kind]), "w") as f:
                f.write(text)
        fields = {"responder_ticks": 0, "db_ticks": 0, "nginx_ticks": 0, "machine_ticks": 0,
                  "questions": 0, "tmp_tables": 0, "tmp_disk_tables": 0, **ticks}
        self.lines.append(json.dumps({"record": "measure", "row": row, "round": str(round_),
                                      **names, "worker_mem": worker_mem,
                                      **{k: str(v) for k, v in fields.items()}}))

    def lag(self, row, lags_ms, errors=0):
        self.lines.append(json.dumps({"record": "lag", "row": row, "samples": str(len(lags_ms)),
                                      "errors": str(errors),
                                      "lags_ms": " ".join(str(x) for x in lags_ms)}))

    def probe(self, row, codes, seconds):
        self.lines.append(json.dumps({"record": "probe", "row": row, "codes": codes,
                                      "seconds": seconds}))

    def records(self):
        with open(os.path.join(self.path, report.DATA_FILE), "w") as f:
            f.write("\n".join(self.lines) + "\n")
        return report.read_records(self.path)


class StackTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.stack = Stack(os.path.join(self.tmp.name, "bench"))

    def full_run(self, s1_rps="850.0", s1_errors=0, s1_mem="8000 2000 4000 3000"):
        """Every row of a default run: R1 at 1000 req/s, the scenarios at chosen speeds."""
        speeds = {"R0": "9000.0", "R1": "1000.0", "R2": "500.0", "S1": s1_rps, "S2": "400.0",
                  "S3": "750.0", "S4": "500.0", "S5": "400.0", "S6": "500.0"}
        for row, rps in speeds.items():
            wrk = bench(int(float(rps) * 4), rps, non2xx=s1_errors if row == "S1" else 0)
            mem = s1_mem if row == "S1" else ("7900 2000 4000 3000" if row.startswith("S") else "")
            self.stack.measure(row, 1, wrk, worker_mem=mem)
        for row in ("S1", "S3", "S4", "S6"):
            self.stack.probe(row, "200 200 200", "0.001 0.003 0.002")
        return self.stack.records()


class ReadingWrkOutput(StackTest):
    def test_bench_line_fields(self):
        self.stack.measure("S1", 1, CANNED_WRK)
        fields = report.read_bench_line(os.path.join(self.stack.path, "wrk/S1.1.txt"))
        self.assertEqual(fields["requests"], "2000")
        self.assertEqual(fields["rps"], "500.0")
        self.assertEqual(report.read_wrk_cpu_ticks(os.path.join(self.stack.path, "wrk/S1.1.txt")),
                         40)

    def test_errors_leave_out_wrk_status_errors(self):
        # wrk's "status" errors are non-2xx responses the script counted already.
        line = bench(10, "2.5", non2xx=3, nosuccess=1, connect=1, timeout=2, status=3)
        self.stack.measure("S1", 1, line)
        fields = report.read_bench_line(os.path.join(self.stack.path, "wrk/S1.1.txt"))
        self.assertEqual(report.error_count(fields, "test"), 7)

    def test_missing_bench_line_is_unreadable(self):
        self.stack.measure("S1", 1, "wrk: connection refused\n")
        with self.assertRaises(report.ReportError):
            report.run_figures(self.stack.records(), self.stack.records().measures[0])


class FiguresOfOneRun(StackTest):
    def test_canned_run(self):
        # 2000 requests; ticks at 100 Hz: 50 ticks = 0.5 s = 250 µs per request.
        self.stack.measure("S1", 1, CANNED_WRK, warmup=bench(100, "100.0", timeout=2),
                           responder_ticks=50, db_ticks=30, nginx_ticks=10, machine_ticks=190,
                           questions=4001, tmp_tables=2000, tmp_disk_tables=1,
                           worker_mem="8000 2000 4000 3000")
        records = self.stack.records()
        f = report.run_figures(records, records.measures[0])
        self.assertEqual((f.rps, f.p50, f.p99), ("500.0", "16.00", "40.02"))  # 16.004, 40.015 ms
        self.assertEqual((f.errors, f.warmup_errors), (2, 2))
        self.assertEqual((f.cpu_responder, f.cpu_db, f.cpu_nginx, f.cpu_wrk),
                         ("250", "150", "50", "200"))
        self.assertEqual(f.cpu_total(), "650")
        # 190 - 50 - 30 - 10 - 40 (wrk) = 60 ticks = 0.6 s over 4 s: 0.15 cores.
        self.assertEqual(f.other_load, "0.15")
        # The question asking for the counters is not the row's: (4001 - 1) / 2000.
        self.assertEqual((f.statements, f.tmp_tables, f.tmp_disk_tables), ("2.00", "1.00", "0.00"))
        self.assertEqual(f.worker_mem.vmrss, 8000)
        self.assertEqual(report.run_log_line(f),
                         "S1: 500.0 req/s, p50 16.00 ms, p99 40.02 ms, errors 2 (warm-up 2); CPU "
                         "us/req: responder 250, MariaDB 150, nginx 50, wrk 200; other load 0.15 "
                         "cores; DB statements/req 2.00, tmp tables/req 1.00 (on disk 0.00)")

    def test_write_counters_and_the_deliverer(self):
        # 2000 requests: 7000 rows written, 4 MB of redo, 20 ticks of the deliverer (100 µs).
        self.stack.measure("S5", 1, CANNED_WRK, responder_ticks=50, db_ticks=30,
                           nginx_ticks=10, machine_ticks=190, rows_written=7000,
                           redo_bytes=4000000, deliverer_ticks=20)
        records = self.stack.records()
        f = report.run_figures(records, records.measures[0])
        self.assertEqual((f.rows_written, f.redo_bytes, f.cpu_deliverer), ("3.50", "2000", "100"))
        # The deliverer's ticks are its own, not the machine's other load: 60 - 20 = 40 ticks.
        self.assertEqual(f.other_load, "0.10")

    def test_records_of_older_runs_have_no_write_counters(self):
        self.stack.measure("S5", 1, CANNED_WRK, responder_ticks=50, db_ticks=30,
                           nginx_ticks=10, machine_ticks=190)
        records = self.stack.records()
        f = report.run_figures(records, records.measures[0])
        self.assertEqual((f.rows_written, f.redo_bytes, f.cpu_deliverer), ("n/a",) * 3)

    def test_own_question_is_left_out(self):
        self.stack.measure("S1", 1, bench(10, "2.5"), questions=21)
        records = self.stack.records()
        self.assertEqual(report.run_figures(records, records.measures[0]).statements, "2.00")

    def test_other_load_is_never_negative(self):
        self.stack.measure("S1", 1, CANNED_WRK, responder_ticks=50, machine_ticks=10)
        records = self.stack.records()
        self.assertEqual(report.run_figures(records, records.measures[0]).other_load, "0.00")

    def test_no_request_completed(self):
        self.stack.measure("S6-brand", 1, bench(0, "0.0", read=32), responder_ticks=400)
        records = self.stack.records()
        f = report.run_figures(records, records.measures[0])
        self.assertEqual((f.rps, f.p50, f.p99, f.cpu_responder, f.cpu_total()),
                         ("0", "n/a", "n/a", "n/a", "n/a"))
        self.assertEqual(f.errors, 32)


class RoundsAndVerdicts(StackTest):
    def runs(self, *rps):
        return [report.RunFigures("S1", i + 1, r, "1.00", "2.00", 0, 0, *["1"] * 8, None)
                for i, r in enumerate(rps)]

    def test_median_round_is_the_lower_middle(self):
        self.assertEqual(report.median_run(self.runs("300.0", "100.0", "200.0")).round, 3)
        self.assertEqual(report.median_run(self.runs("300.0", "100.0", "200.0", "400.0")).round, 3)
        self.assertEqual(report.median_run(self.runs("5.0")).round, 1)

    def test_equal_rounds_in_text_order(self):
        # As `sort -g` ordered "RPS ROUND" lines: 1, 10, 2, 3, 4, ... so the 5th is round 4.
        self.assertEqual(report.median_run(self.runs(*["100.0"] * 10)).round, 4)

    def test_ratio_is_compared_as_shown(self):
        # 849.6 / 1000 shows as 0.85: PASS, as the table says.
        rows = report.row_figures(self.full_run(s1_rps="849.6"))
        v = report.verdict_of("S1", rows["S1"], rows)
        self.assertEqual((v.ratio, v.target, v.result), ("0.85×", "≥ 0.85× R1", "PASS"))
        rows = report.row_figures(self.full_run(s1_rps="844.9"))
        self.assertEqual(report.verdict_of("S1", rows["S1"], rows).result, "FAIL")

    def test_p99_rule(self):
        self.stack.measure("R1", 1, bench(4000, "1000.0"))
        # Compared as shown: 30.004 ms shows as 30.00, which is 3 × 10.00.
        self.stack.measure("S1", 1, bench(4000, "1000.0", p50_us=10000, p99_us=30004))
        self.stack.measure("S3", 1, bench(4000, "1000.0", p50_us=10000, p99_us=30010))
        rows = report.row_figures(self.stack.records())
        self.assertEqual(report.verdict_of("S1", rows["S1"], rows).p99_check, "PASS")
        s3 = report.verdict_of("S3", rows["S3"], rows)
        self.assertEqual((s3.p99_check, s3.result, s3.missed), ("FAIL", "FAIL", True))

    def test_scale_rows(self):
        self.stack.measure("R1", 1, bench(4000, "1000.0"))
        self.stack.measure("S6", 1, bench(2000, "500.0", p50_us=10000, p99_us=20000))
        self.stack.measure("S6-1M", 1, bench(1000, "250.0", p50_us=20000, p99_us=40000))
        self.stack.measure("S6-1M-old", 1, bench(400, "100.0", p50_us=90000, p99_us=900000))
        self.stack.measure("S6-brand", 1, bench(40, "10.0", p50_us=90000, p99_us=100000))
        rows = report.row_figures(self.stack.records())
        one_m = report.verdict_of("S6-1M", rows["S6-1M"], rows)
        self.assertEqual((one_m.target, one_m.result), ("p50 ≤ 2× S6 p50 (10.00 ms)", "PASS"))
        old = report.verdict_of("S6-1M-old", rows["S6-1M-old"], rows)
        self.assertEqual((old.target, old.result, old.missed),
                         ("(information only)", "info", False))
        brand = report.verdict_of("S6-brand", rows["S6-brand"], rows)
        self.assertEqual((brand.target, brand.result, brand.missed), ("(none)", "no target", False))

    def test_keepalive_rows_are_bounded_by_the_keepalive_rung(self):
        self.stack.measure("R1", 1, bench(4000, "1000.0"))
        self.stack.measure("R1+ka", 1, bench(5000, "1250.0"))
        self.stack.measure("S1", 1, bench(3400, "850.0"))
        self.stack.measure("S1+ka", 1, bench(4000, "1000.0"))
        rows = report.row_figures(self.stack.records())
        ka = report.verdict_of("S1+ka", rows["S1+ka"], rows)
        self.assertEqual((ka.bound, ka.ratio, ka.target, ka.result),
                         ("R1+ka", "0.80×", "≥ 0.85× R1+ka", "FAIL"))
        self.assertEqual(report.verdict_of("S1", rows["S1"], rows).bound, "R1")
        self.assertEqual(report.description("S1+ka"), "GET customer, keep-alive")

    def test_rungs_only_count_errors(self):
        self.stack.measure("R0", 1, bench(0, "0.0"))
        self.stack.measure("R1", 1, bench(4000, "1000.0", nosuccess=1))
        rows = report.row_figures(self.stack.records())
        self.assertEqual(report.verdict_of("R0", rows["R0"], rows).result, "ok")
        r1 = report.verdict_of("R1", rows["R1"], rows)
        self.assertEqual((r1.result, r1.failed_run), ("FAIL (errors)", True))

    def test_probe(self):
        p = report.probe_figures({"row": "S1", "codes": "200 000 404 201",
                                  "seconds": "0.004 0 0.002 0.0031"})
        self.assertEqual((p.requests, p.median_ms, p.max_ms, p.errors), (4, "2.00", "4.00", 2))


class WholeReport(StackTest):
    def test_every_target_met(self):
        text, status = report.report(self.full_run())
        self.assertEqual(status, report.EXIT_MET)
        self.assertIn("- verdict: valid run; every target met\n", text)
        self.assertIn("| S1 | GET customer | 850 | 10.00 | 20.00 | 0 | R1 | 0.85× | ≥ 0.85× R1 "
                      "| PASS | PASS |\n", text)
        self.assertIn("| VmRSS busy (mid-run, largest over the S rows: S1) | 8000 | 7.8 "
                      "| 2000 / 4000 | 3000 | ≤ 8 MiB | PASS |\n", text)
        self.assertIn("| S1 | GET customer | 3 | 2.00 | 3.00 | 0 |  |  |\n", text)
        self.assertNotIn("- rounds:", text)
        self.assertNotIn("- scale:", text)

    def test_rounds_and_scale_lines(self):
        self.stack.facts(rounds="3", scale_surveys="1000000", scale_brand_surveys="1100000",
                         scale_start_day="2025-01-01", scale_load_seconds="12",
                         scale_rebuild_seconds="2")
        text, _ = report.report(self.full_run())
        self.assertIn("- rounds: 3 (each row: the round with the median req/s; errors summed "
                      "over rounds)\n", text)
        self.assertIn("- scale: 1000000 surveys in one shop from 2025-01-01 (90 UTC days), brand "
                      "of 5 shops with 1100000 in total; LOAD DATA 12s, survey_daily_counts "
                      "rebuild 2s\n", text)

    def test_target_missed(self):
        text, status = report.report(self.full_run(s1_rps="700.0"))
        self.assertEqual(status, report.EXIT_MISSED)
        self.assertIn("- verdict: valid run; some targets missed (FAIL above)\n", text)

    def test_worker_memory_target(self):
        text, status = report.report(self.full_run(s1_mem="8193 2000 4000 3000"))
        self.assertEqual(status, report.EXIT_MISSED)
        self.assertIn("| 8193 | 8.0 | 2000 / 4000 | 3000 | ≤ 8 MiB | FAIL |", text)

    def test_busy_worker_is_the_first_of_the_largest(self):
        text, _ = report.report(self.full_run(s1_mem="7900 2000 4000 3000"))
        self.assertIn("| VmRSS busy (mid-run, largest over the S rows: S1) | 7900 |", text)

    def test_errors_make_a_failed_run(self):
        text, status = report.report(self.full_run(s1_errors=1))
        self.assertEqual(status, report.EXIT_FAILED_RUN)
        self.assertIn(f"see {self.stack.path}/wrk/\n", text)
        self.assertIn("| 1 | R1 | 0.85× | ≥ 0.85× R1 | PASS | FAIL (errors) |", text)

    def test_patch_rows_are_scenarios_bounded_by_the_write_rung(self):
        self.stack.measure("P1", 1, bench(1600, "400.0"))
        self.stack.measure("P3", 1, bench(4000, "1000.0", p50_us=10000, p99_us=40000))
        text, status = report.report(self.full_run())
        self.assertEqual(status, report.EXIT_MISSED, "P3's p99 is over 3x its p50")
        self.assertIn("| P1 | PATCH ticket status | 400 | 10.00 | 20.00 | 0 | R2 | 0.80× "
                      "| ≥ 0.80× R2 | PASS | PASS |", text)
        self.assertIn("| P3 | GET ticket, matching If-None-Match (304) | 1000 | 10.00 | 40.00 | 0 "
                      "| R1 | 1.00× | (none) | FAIL | FAIL |", text)

    def test_file_rows_are_bounded_by_the_write_and_static_rungs(self):
        self.stack.measure("R3", 1, bench(8000, "2000.0"))
        self.stack.measure("U1", 1, bench(1000, "250.0"))
        self.stack.measure("D1", 1, bench(5200, "1300.0"))
        text, status = report.report(self.full_run())
        self.assertEqual(status, report.EXIT_MISSED, "D1 is under 0.70x R3")
        self.assertIn("| U1 | POST a 100 KiB file (E13) | 250 | 10.00 | 20.00 | 0 | R2 | 0.50× "
                      "| ≥ 0.50× R2 | PASS | PASS |", text)
        self.assertIn("| D1 | GET a 1 MiB file's bytes (E13: X-Accel-Redirect) | 1300 | 10.00 | 20.00 "
                      "| 0 | R3 | 0.65× | ≥ 0.70× R3 | PASS | FAIL |", text)

    def test_search_lag_nearest_ranks_and_target(self):
        self.stack.lag("S5-sustained", [float(x) for x in range(200, 0, -1)])  # 1..200 ms
        text, status = report.report(self.full_run())
        self.assertEqual(status, report.EXIT_MET)
        self.assertIn("| S5-sustained | 200 | 100.0 | 198.0 | 200.0 | 0 | p99 ≤ 1000 ms | PASS |",
                      text)
        one = report.lag_figures({"row": "x", "errors": "0", "lags_ms": "7.25"})
        self.assertEqual((one.p50_ms, one.p99_ms, one.max_ms), ("7.2", "7.2", "7.2"))

    def test_search_lag_over_a_second_misses_and_errors_fail_the_run(self):
        self.stack.lag("S5-sustained", [5.0] * 98 + [1000.1, 3000.0])
        text, status = report.report(self.full_run())
        self.assertEqual(status, report.EXIT_MISSED)
        self.assertIn("| S5-sustained | 100 | 5.0 | 1000.1 | 3000.0 | 0 | p99 ≤ 1000 ms | FAIL |",
                      text)
        self.stack.lag("S5-sustained", [5.0], errors=2)
        _, status = report.report(self.stack.records())
        self.assertEqual(status, report.EXIT_FAILED_RUN)
        with self.assertRaises(report.ReportError):
            report.lag_figures({"row": "x", "errors": "0", "lags_ms": ""})

    def test_main_writes_the_file_and_prints_it(self):
        self.full_run()
        out_file = os.path.join(self.tmp.name, "result.md")
        stdout = io.StringIO()
        with redirect_stdout(stdout):
            status = report.main(["tables", self.stack.path, out_file])
        self.assertEqual(status, 0)
        with open(out_file) as f:
            self.assertEqual(f.read(), stdout.getvalue())

    def test_unreadable_records_are_not_a_failed_run(self):
        with open(os.path.join(self.stack.path, report.DATA_FILE), "w") as f:
            f.write('{"record": "facts"\n')
        with redirect_stderr(io.StringIO()):
            status = report.main(["tables", self.stack.path, os.path.join(self.tmp.name, "x.md")])
        self.assertEqual(status, report.EXIT_UNREADABLE)


if __name__ == "__main__":
    unittest.main()

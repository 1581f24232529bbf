#!/usr/bin/env python3
"""pmusim record -o against its fixtures and against the real perf.

    perf_check.py PMUSIM SOURCE_ROOT files   record -o rewrites the perf.data
                                             fixtures byte for byte; --json parses
    perf_check.py PMUSIM SOURCE_ROOT perf    perf report / script / mem report read
                                             what record -o writes (exit 77 without perf)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

PMUSIM, ROOT, MODE = sys.argv[1], sys.argv[2], sys.argv[3]
DATA = os.path.join(ROOT, "tests/unit/frontdoor/data")

# (fixture, record arguments): the same commands that made the fixtures
FIXTURES = [
    ("wsm_loop_c50.data", ["-e", "wsm::INST_RETIRED:ANY_P", "-c", "50",
                           "traces/samples/wsm_loop.txt"]),
    ("wsm_ldlat_c3.data", ["--pmu", "wsm", "-c", "3",
                           "--regs", "tests/unit/frontdoor/wsm_ldlat.regs",
                           "traces/samples/wsm_loop.txt"]),
    ("ita2_c9.data", ["-e", "IA64_INST_RETIRED,CPU_CYCLES", "-c", "9",
                      "traces/samples/ita2_loop.txt"]),
    ("ita2_btb_c2.data", ["-e", "BRANCH_EVENT", "-c", "2", "--skid", "0",
                          "traces/samples/ita2_loop.txt"]),
]

failures = 0


def check(cond, what):
    global failures
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures += 1


def run(args, **kw):
    return subprocess.run(args, cwd=ROOT, capture_output=True, text=True, **kw)


def record(tmp, name, args):
    out = os.path.join(tmp, name)
    r = run([PMUSIM, "record", "-o", out] + args)
    check(r.returncode == 0, "record -o %s: exit %d %s" % (name, r.returncode, r.stderr.strip()))
    return out


def files_mode(tmp):
    for name, args in FIXTURES:
        out = record(tmp, name, args)
        with open(out, "rb") as a, open(os.path.join(DATA, name), "rb") as b:
            check(a.read() == b.read(), "%s is byte for byte the fixture" % name)
    # -o -: the perf.data stream on stdout, byte for byte; the text on stderr
    r = subprocess.run([PMUSIM, "record", "-o", "-"] + FIXTURES[0][1], cwd=ROOT,
                       capture_output=True)
    with open(os.path.join(DATA, FIXTURES[0][0]), "rb") as b:
        check(r.returncode == 0 and r.stdout == b.read() and b"# Samples: 4" in r.stderr,
              "record -o - streams the same perf.data to stdout, the summary to stderr")
    r = run([PMUSIM, "record", "--json", "-e", "wsm::INST_RETIRED:ANY_P", "-c", "50",
             "traces/samples/wsm_loop.txt"])
    doc = json.loads(r.stdout)
    check([s["ip"] for s in doc["samples"]] == ["0x401000"] * 3 + ["0x401020"],
          "record --json parses; skid 1 moves 0x401020 to 0x401000 (last one cut)")
    # an output that cannot be written leaves nothing behind
    bad = os.path.join(tmp, "no-such-dir", "x.data")
    r = run([PMUSIM, "record", "-o", bad] + FIXTURES[0][1])
    check(r.returncode == 1 and not os.path.exists(os.path.dirname(bad)),
          "record -o into a missing directory: exit 1, nothing created")
    before = set(os.listdir(tmp))
    ro = os.path.join(tmp, "ro")
    os.mkdir(ro, 0o555)
    r = run([PMUSIM, "record", "-o", os.path.join(ro, "x.data")] + FIXTURES[0][1])
    if os.geteuid() != 0:
        check(r.returncode == 1 and os.listdir(ro) == [],
              "record -o into a read-only directory: exit 1, no partial file")
    check(set(os.listdir(tmp)) - before == {"ro"}, "no temporary file left beside the output")


def perf_mode(tmp):
    perf = shutil.which("perf")
    if not perf:
        print("perf is not installed: skipped")
        sys.exit(77)
    env = dict(os.environ, PERF_PAGER="cat")
    p = lambda *a: subprocess.run([perf] + list(a), cwd=tmp, capture_output=True, text=True,
                                  env=env)
    out = record(tmp, "loop.data", FIXTURES[0][1])
    r = p("report", "--stdio", "-i", out)
    check(r.returncode == 0 and "# Samples: 4  of event 'wsm::INST_RETIRED:ANY_P" in r.stdout
          and "# Event count (approx.): 200" in r.stdout,
          "perf report reads 4 samples, 200 events")
    r = p("script", "-i", out, "-F", "tid,period,ip")
    lines = r.stdout.split()
    check(r.returncode == 0 and lines == ["1000", "50", "401000"] * 3 + ["1000", "50", "401020"],
          "perf script -F tid,period,ip prints the 4 samples")
    out = record(tmp, "ldlat.data", FIXTURES[1][1])
    r = p("mem", "report", "--stdio", "-i", out)
    check(r.returncode == 0 and r.stdout.count("L3 or L3 hit") == 1
          and r.stdout.count("L1 or L1 hit") == 4,
          "perf mem report: 1 load from L3, 4 from L1")
    r = p("script", "-i", out, "-F", "addr,weight")
    check(r.stdout.split()[:4] == ["7f0000000018", "4", "7f0000000038", "4"]
          and r.stdout.split()[-2:] == ["7f0000000098", "40"],
          "perf script -F addr,weight: the PEBS load-latency address and latency")
    out = record(tmp, "btb.data", FIXTURES[3][1])
    r = p("script", "-i", out, "-F", "brstack")
    lines = r.stdout.split("\n")
    check(r.returncode == 0 and lines[0].split() == ["0x4000000000001022/0x4000000000001000/P/-/-/0/"] * 2
          and lines[9].split() == ["0x4000000000001022/0x4000000000001000/P/-/-/0/"],
          "perf script -F brstack: the BTB's taken branches (2 per sample, 1 in the last)")
    # a captured program on disk: perf finds its symbols through the MMAP
    # record (the pmusim binary stands for it, its main at its load base)
    nm = shutil.which("nm")
    if nm:
        sym = [l.split() for l in run([nm, PMUSIM]).stdout.splitlines()]
        main = [int(s[0], 16) for s in sym if len(s) == 3 and s[2] == "main"]
        if main:
            base = 0x555555554000 if b"\x03\x00" == open(PMUSIM, "rb").read()[16:18] else 0
            at = base + main[0]
            trace = os.path.join(tmp, "prog.txt")
            with open(trace, "w") as f:
                f.write("pmusim-trace 1\nisa x86_64\ncpu wsm\nthreads 1\n")
                f.write("meta program %s\nmeta load_base 0x%x\n" % (os.path.abspath(PMUSIM), base))
                f.write("symbol 0x%x 0x%x main\n" % (at, at + 0x80))
                for i in range(100):
                    f.write("%d 0 insn ip=0x%x len=4 plm=3\n" % (i, at + 4 * (i % 32)))
                f.write("end 100\n")
            out = os.path.join(tmp, "prog.data")
            r = run([PMUSIM, "record", "-o", out, "-e", "wsm::INST_RETIRED:ANY_P", "-c", "10",
                     trace])
            r = p("report", "--stdio", "-i", out)
            check("[.] main" in r.stdout, "perf report names the program's symbol (main)")


with tempfile.TemporaryDirectory() as tmp:
    files_mode(tmp) if MODE == "files" else perf_mode(tmp)
sys.exit(1 if failures else 0)

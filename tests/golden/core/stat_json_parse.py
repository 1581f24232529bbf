#!/usr/bin/env python3
"""pmusim stat -j: every line is one JSON object a real parser accepts, with
perf's keys; a <not in trace> counter has "counter-value": null and a status;
a multiplexed one its exact count.  Exit 77 (skip) without python3 is done by
meson (the test is only declared when python3 is found)."""
import json
import subprocess
import sys

pmusim, root = sys.argv[1], sys.argv[2]
trace = root + "/traces/samples/wsm_loop.txt"


def objects(args):
    out = subprocess.run([pmusim, "stat", "-j"] + args + [trace], check=True,
                         capture_output=True, text=True, cwd=root).stdout
    lines = out.splitlines()
    assert lines, "no output"
    return [json.loads(line) for line in lines]


objs = objects(["-e", "cycles,instructions,r000e"])
rows = [o for o in objs if "event" in o]
assert [o["counter-value"] for o in rows] == ["200.000000", "200.000000", None], rows
for o in rows:
    for key in ("unit", "event", "event-runtime", "pcnt-running", "status"):
        assert key in o, (key, o)
assert rows[1]["metric-unit"] == "insn per cycle" and rows[1]["metric-value"] == 1.0
assert rows[2]["status"] == "not-in-trace", rows[2]

mux = [o for o in objects(["--mux-interval", "60", "-e",
                           "r01c2,r02c2,r00c4,r00c5,r010b,r0151"]) if "event" in o]
last = mux[-1]
assert last["counter-value"] == "3.000000" and last["exact-value"] == 2, last
assert last["pcnt-running"] == 40.0 and last["error-pcnt"] == 50.0, last

dump = objects(["--dump-regs", "-e", "instructions"])
regs = {o["register"]: o for o in dump if "register" in o}
assert regs["IA32_FIXED_CTR0"]["value"] == "0xc8", regs["IA32_FIXED_CTR0"]
print("ok")

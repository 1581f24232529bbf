#!/usr/bin/env python3
"""Generate the IA-64 PMU models' event table (C) from the shared event CSVs.

usage: gen_ia64_events.py ITA2_CSV MONT_CSV TRACE_MAP FACTS OUT_C

One row per distinct counting-PMC selector (es, umask) of each model, sorted
by key = es << 4 | umask for binary search.  Virtual EAR rows (types
iear_*/dear_*) are skipped: their umask belongs to the EAR config register,
not to the counter.  Rows that share a key must agree on maxincr, qualifiers,
thread type and trace source, else the generator refuses the data.

FACTS (trace-facts.csv) lists what one model fact record (EVENT code
IA64_FACT_CODE, umask = the fact) counts: per CPU, the keys of the events
whose definition includes the fact.  Refused: an unknown name, a name whose
counter takes no EVENT records (cycles, captures), a fact number outside
1..IA64_NFACTS-1, one number with two names or one name with two numbers,
a CPU given twice for a fact, an event listed twice, more than
IA64_FACT_KEYS events, an event of maxincr other than 1 (its only valid
threshold is then 0, which is why the IA-64 engine need not read the
trace header's evsum key).
"""
import csv
import sys

PREFETCH_IBRP1 = {"L1I_PREFETCHES", "L1I_STRM_PREFETCHES", "L2_INST_PREFETCHES", "L2I_PREFETCHES"}
# Known aliases of one (es, umask) with different attributes in the source
# table; the first row in table order wins (both are explicit-event driven).
ALIASES = {("ER_REJECT_ALL_L1_REQ", "L2D_OZQ_FULL_THIS")}
# the sources whose counters also count explicit EVENT records (ia64_on_event():
# every source but cycles; the capture sources count captures only)
FACT_SRCS = {"EVENT", "L3_READ", "L3_WRITE", "L3_REF", "L3_MISS"}
NFACTS = 16      # IA64_NFACTS (ia64_priv.h)
FACT_KEYS = 12   # IA64_FACT_KEYS
CAF = {"active": "IA64_CAF_ACTIVE", "floating": "IA64_CAF_FLOATING", "causal": "IA64_CAF_CAUSAL"}


def fail(msg):
    sys.stderr.write("gen_ia64_events.py: " + msg + "\n")
    sys.exit(1)


def data_rows(path):
    """(line number, comma-separated fields) of each line of a map file
    that is neither blank nor a '#' comment."""
    with open(path, newline="") as f:
        for lineno, line in enumerate(f, 1):
            line = line.strip()
            if line and not line.startswith("#"):
                yield lineno, line.split(",")


def load_map(path):
    rules = {"ita2": [], "mont": []}
    for lineno, parts in data_rows(path):
        if len(parts) != 3 or parts[0] not in rules or not parts[1] or not parts[2].isidentifier():
            fail("%s:%d: expected 'pmu,event,source'" % (path, lineno))
        rules[parts[0]].append([parts[1], parts[2], 0, lineno])
    return rules


def source_of(name, rules):
    for rule in rules:
        pat = rule[0]
        if (pat.endswith("*") and name.startswith(pat[:-1])) or name == pat:
            rule[2] += 1
            return rule[1]
    return None


def build(path, pmu, rules):
    entries = {}
    names = set()
    with open(path, newline="") as f:
        # the project's data files (encoder/data/ia64) start with '#' comment lines
        lines = (line for line in f if not line.startswith("#"))
        for lineno, row in enumerate(csv.DictReader(lines), 3):
            for col in ("name", "code", "type", "umask", "maxincr", "iarr", "opcm", "darr"):
                if row.get(col) is None:
                    fail("%s:%d: missing column %r" % (path, lineno, col))
            name = row["name"]
            if name in names:
                fail("%s:%d: duplicate event name %s" % (path, lineno, name))
            names.add(name)
            if row["type"] not in ("normal", "btb", "etb"):
                continue
            try:
                code = int(row["code"], 16)
                umask = int(row["umask"], 16)
                maxincr = int(row["maxincr"])
            except ValueError:
                fail("%s:%d: %s: code, umask or maxincr is not a number" % (path, lineno, name))
            if code > 0xFF or umask > 0xF:
                fail("%s: %s: es 0x%x / umask 0x%x too wide for a counter PMC" % (path, name, code, umask))
            if not 1 <= maxincr <= 255:
                fail("%s: %s: bad maxincr %d" % (path, name, maxincr))
            qual = []
            if row["iarr"] == "1":
                qual.append("IA64_Q_IARR")
            if row["opcm"] == "1":
                qual.append("IA64_Q_OPCM")
            if row["darr"] == "1":
                qual.append("IA64_Q_DARR")
            if row.get("mesi") == "1":
                qual.append("IA64_Q_MESI")
            if name in PREFETCH_IBRP1:
                qual.append("IA64_Q_IBRP1")
            caf = row.get("caf", "active") or "active"
            if caf == "self_floating":
                caf = "floating" if name.endswith("_SELF") else "causal"
            if caf not in CAF:
                fail("%s: %s: unknown thread type %r" % (path, name, caf))
            src = source_of(name, rules) or "EVENT"
            ent = (maxincr, "|".join(qual) or "0", CAF[caf], src)
            key = code << 4 | umask
            if key in entries:
                if entries[key][1] != ent and (entries[key][0], name) not in ALIASES:
                    fail("%s: %s and %s share es 0x%02x umask 0x%x but differ (%r vs %r)"
                         % (path, entries[key][0], name, code, umask, entries[key][1], ent))
                continue
            entries[key] = (name, ent)
    for rule in rules:
        if rule[2] == 0:
            fail("trace map line %d: %s event %s matches no event" % (rule[3], pmu, rule[0]))
    return entries


def load_facts(path, tables):
    """{pmu: {fact: (name, [keys])}} from FACTS, checked against tables."""
    facts = {pmu: {} for pmu in tables}
    numbers = {}
    names = {}
    for lineno, parts in data_rows(path):
        where = "%s:%d" % (path, lineno)
        if len(parts) != 4 or not parts[1].isidentifier():
            fail("%s: expected 'fact,name,pmus,events'" % where)
        try:
            num = int(parts[0], 16)
        except ValueError:
            fail("%s: fact %r is not a number" % (where, parts[0]))
        if not 1 <= num < NFACTS:
            fail("%s: fact 0x%x outside 1..0x%x" % (where, num, NFACTS - 1))
        name = parts[1]
        if numbers.setdefault(name, num) != num or names.setdefault(num, name) != name:
            fail("%s: fact 0x%x %s: another number or name has it" % (where, num, name))
        evs = parts[3].split()
        if not evs or len(evs) > FACT_KEYS:
            fail("%s: %s: 1 to %d events" % (where, name, FACT_KEYS))
        if len(set(evs)) != len(evs):
            fail("%s: %s lists an event twice" % (where, name))
        for pmu in parts[2].split():
            if pmu not in tables:
                fail("%s: unknown pmu %r" % (where, pmu))
            if num in facts[pmu]:
                fail("%s: %s given twice for %s" % (where, name, pmu))
            by_name = {e[0]: (key, e[1][3], e[1][0]) for key, e in tables[pmu].items()}
            keys = []
            for ev in evs:
                if ev not in by_name:
                    fail("%s: %s: no %s event %s" % (where, name, pmu, ev))
                key, src, maxincr = by_name[ev]
                if src not in FACT_SRCS:
                    fail("%s: %s: %s %s counts no EVENT records (source %s)"
                         % (where, name, pmu, ev, src))
                if maxincr != 1:
                    fail("%s: %s: %s %s has maxincr %d: a fact record is written at "
                         "its instruction's retirement, so a threshold on it would "
                         "compare a sum (the IA-64 engine reads no evsum key: "
                         "docs/trace-events-ia64.md)" % (where, name, pmu, ev, maxincr))
                keys.append(key)
            facts[pmu][num] = (name, keys)
    return facts


def emit_facts(out, pmu, facts):
    out.write("const ia64_fact_t ia64_facts_%s[IA64_NFACTS] = {\n" % pmu)
    for num in sorted(facts):
        name, keys = facts[num]
        out.write("    [0x%x] = { .name = \"%s\", .nkeys = %d, .keys = { %s } },\n"
                  % (num, name, len(keys), ", ".join("0x%03x" % k for k in keys)))
    out.write("};\n\n")


def emit(out, pmu, entries):
    out.write("const ia64_event_info_t ia64_events_%s[] = {\n" % pmu)
    for key in sorted(entries):
        name, (maxincr, qual, caf, src) = entries[key]
        out.write("    { .key = 0x%03x, .maxincr = %d, .qual = %s, .caf = %s, .src = IA64_SRC_%s, .name = \"%s\" },\n"
                  % (key, maxincr, qual, caf, src, name))
    out.write("};\nconst size_t ia64_events_%s_count = %d;\n\n" % (pmu, len(entries)))


def main():
    if len(sys.argv) != 6:
        fail("usage: gen_ia64_events.py ITA2_CSV MONT_CSV TRACE_MAP FACTS OUT_C")
    rules = load_map(sys.argv[3])
    ita2 = build(sys.argv[1], "ita2", rules["ita2"])
    mont = build(sys.argv[2], "mont", rules["mont"])
    facts = load_facts(sys.argv[4], {"ita2": ita2, "mont": mont})
    with open(sys.argv[5], "w") as out:
        out.write("/* Generated from ../shared/data/ia64/{itanium2,montecito}_events.csv,\n"
                   " * sim/models/ia64/trace-events.csv and trace-facts.csv by\n"
                   " * sim/models/ia64/gen_ia64_events.py -- do not edit. */\n")
        out.write('#include "ia64_priv.h"\n\n')
        emit(out, "ita2", ita2)
        emit(out, "mont", mont)
        emit_facts(out, "ita2", facts["ita2"])
        emit_facts(out, "mont", facts["mont"])


if __name__ == "__main__":
    main()

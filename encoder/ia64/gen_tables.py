#!/usr/bin/env python3
"""Generate pmusim's IA-64 event tables (C) from encoder/data/ia64/*.csv.

Usage: gen_tables.py OUT.c ITA2.csv MONT.csv

The tables keep the row order of the data files (an event's index is its
libpfm-3 index, PME_ITA2_* / PME_MONT_*), and a second array lists the
indices sorted by name for binary search.  Bad data is refused with a message
naming the file, line and problem.
"""
import csv
import sys

TYPES = {'normal': 0, 'btb': 1, 'etb': 1, 'iear_tlb': 2, 'iear_cache': 3,
         'dear_tlb': 4, 'dear_cache': 5, 'dear_alat': 6}
CAFS = {'active': 0, 'floating': 1, 'causal': 2, 'self_floating': 3}
COLS = ['idx', 'name', 'code', 'type', 'umask', 'counters', 'maxincr', 'iarr', 'opcm',
        'darr', 'all_thrd', 'mesi', 'caf', 'group', 'set', 'desc']


class DataError(Exception):
    pass


def num(text, where, what, lo, hi):
    try:
        v = int(text, 0)
    except ValueError:
        raise DataError(f'{where}: {what} "{text}" is not a number')
    if not lo <= v <= hi:
        raise DataError(f'{where}: {what} {text} outside [{lo}, {hi}]')
    return v


def load(path, pmu):
    allowed_counters = {'ita2': 0xf0, 'mont': 0xfff0}[pmu]
    rows = []
    with open(path, newline='') as f:
        lines = [(n, l) for n, l in enumerate(f, 1) if not l.startswith('#')]
    reader = csv.reader([l for _, l in lines])
    header = next(reader, None)
    if header != COLS:
        raise DataError(f'{path}: header is {header}, expected {COLS}')
    names = set()
    for (lineno, _), rec in zip(lines[1:], reader):
        where = f'{path}:{lineno}'
        if len(rec) != len(COLS):
            raise DataError(f'{where}: {len(rec)} fields, expected {len(COLS)}')
        r = dict(zip(COLS, rec))
        idx = num(r['idx'], where, 'idx', 0, 65535)
        if idx != len(rows):
            raise DataError(f'{where}: idx {idx} out of sequence (expected {len(rows)})')
        name = r['name']
        if not name or not all(c.isupper() or c.isdigit() or c == '_' for c in name):
            raise DataError(f'{where}: bad event name "{name}"')
        if name in names:
            raise DataError(f'{where}: duplicate event name {name}')
        names.add(name)
        if r['type'] not in TYPES or (pmu == 'ita2' and r['type'] == 'etb') \
                or (pmu == 'mont' and r['type'] == 'btb'):
            raise DataError(f'{where}: unknown type "{r["type"]}" for {pmu}')
        typ = TYPES[r['type']]
        code = num(r['code'], where, 'code', 0, 0xff)
        # the counting PMC umask field is 4 bits; EAR umasks go to the EAR
        # config register (I-EAR 8 bits, D-EAR 4 bits)
        umax = 0xff if typ in (2, 3) else 0xf
        umask = num(r['umask'], where, 'umask', 0, umax)
        counters = num(r['counters'], where, 'counters', 0, 0xffff)
        if counters == 0 or counters & ~allowed_counters:
            raise DataError(f'{where}: counter mask {r["counters"]} empty or outside {allowed_counters:#x}')
        maxincr = num(r['maxincr'], where, 'maxincr', 1, 8)
        bits = [num(r[k], where, k, 0, 1) for k in ('iarr', 'opcm', 'darr', 'all_thrd', 'mesi')]
        if r['caf'] not in CAFS:
            raise DataError(f'{where}: unknown thread type "{r["caf"]}"')
        group = num(r['group'], where, 'group', 0, 2)
        cset = num(r['set'], where, 'set', -1, 14)
        if (group == 0) != (cset == -1):
            raise DataError(f'{where}: group {group} and set {cset} disagree')
        desc = r['desc']
        if not desc or '"' in desc or '\\' in desc:
            raise DataError(f'{where}: missing or unprintable description')
        qual = bits[0] | bits[1] << 1 | bits[2] << 2 | bits[3] << 3 | bits[4] << 4
        rows.append(dict(name=name, desc=desc, code=code, type=typ, caf=CAFS[r['caf']],
                         umask=umask, counters=counters, maxincr=maxincr, qual=qual,
                         group=group, set=cset))
    if not rows:
        raise DataError(f'{path}: no events')
    return rows


def emit(out, pmu, rows):
    out.append(f'const ia64_event_t ia64_{pmu}_events[] = {{')
    for i, r in enumerate(rows):
        out.append(f'    [{i}] = {{ .name = "{r["name"]}", .desc = "{r["desc"]}", '
                   f'.code = 0x{r["code"]:02x}, .type = {r["type"]}, .caf = {r["caf"]}, '
                   f'.umask = 0x{r["umask"]:x}, .counters = 0x{r["counters"]:x}, '
                   f'.maxincr = {r["maxincr"]}, .qual = 0x{r["qual"]:x}, '
                   f'.group = {r["group"]}, .set = {r["set"]} }},')
    out.append('};')
    out.append(f'const size_t ia64_{pmu}_nevents = {len(rows)};')
    order = sorted(range(len(rows)), key=lambda i: rows[i]['name'])
    out.append(f'const uint16_t ia64_{pmu}_by_name[] = {{')
    for k in range(0, len(order), 12):
        out.append('    ' + ', '.join(str(i) for i in order[k:k + 12]) + ',')
    out.append('};')
    out.append(f'_Static_assert(sizeof(ia64_{pmu}_by_name) / sizeof(ia64_{pmu}_by_name[0]) == '
               f'sizeof(ia64_{pmu}_events) / sizeof(ia64_{pmu}_events[0]), "index size");')
    out.append('')


def main(argv):
    if len(argv) != 4:
        sys.stderr.write('usage: gen_tables.py OUT.c ITA2.csv MONT.csv\n')
        return 2
    try:
        ita2 = load(argv[2], 'ita2')
        mont = load(argv[3], 'mont')
    except (DataError, OSError) as e:
        sys.stderr.write(f'gen_tables.py: {e}\n')
        return 1
    out = [f'/* generated from {argv[2].split("/")[-1]} and {argv[3].split("/")[-1]} '
           f'by encoder/ia64/gen_tables.py -- do not edit */',
           '#include "ia64_priv.h"', '']
    emit(out, 'ita2', ita2)
    emit(out, 'mont', mont)
    with open(argv[1], 'w') as f:
        f.write('\n'.join(out) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))

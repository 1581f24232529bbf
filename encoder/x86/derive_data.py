#!/usr/bin/env python3
"""Derive pmusim's own x86 event data files from ../shared/data/x86.

Run by hand (not at build time) when the shared facts change:

    python3 encoder/x86/derive_data.py ../shared/data/x86 encoder/data/x86

It merges the per-PMU views of one libpfm table (wsm + wsm_dp share a table,
knm uses the knl table) into one file per table in which a umask that only one
PMU can see carries that PMU's name in its `models` column.  Descriptions are
NOT taken from anywhere: existing descriptions in the output are kept, new
rows get a short text built from the name, to be edited by hand.
"""
import csv
import difflib
import os
import sys

TABLES = {
    # our table file: (pmus sharing it, in libpfm order)
    'intel_wsm.csv': ['wsm', 'wsm_dp'],
    'intel_knl.csv': ['knl', 'knm'],
}
COLS = ['kind', 'event', 'code', 'equiv', 'cntmsk', 'modifiers', 'flags', 'ngrp',
        'umask', 'uequiv', 'ucode', 'grpid', 'uflags', 'modhw', 'models', 'desc']


def load(src, pmu):
    rows = list(csv.DictReader(open(os.path.join(src, pmu + '_events.csv'))))
    events = []
    for r in rows:
        if not events or events[-1]['idx'] != int(r['event_idx']):
            events.append({'idx': int(r['event_idx']), 'row': r, 'umasks': []})
        if r['umask']:
            events[-1]['umasks'].append(r)
    return events


def ukey(u):
    return (u['umask'], u['umask_equiv'], u['ucode'], u['grpid'], u['umask_flags'],
            u['modhw'], u['umodel'])


def merge(lists):
    out = list(lists[0])
    for other in lists[1:]:
        sm = difflib.SequenceMatcher(a=[ukey(u) for u in out], b=[ukey(u) for u in other],
                                     autojunk=False)
        merged = []
        for op, a0, a1, b0, b1 in sm.get_opcodes():
            if op == 'equal':
                merged += out[a0:a1]
            else:
                merged += out[a0:a1] + other[b0:b1]
        out = merged
    return out


def main():
    src, dst = sys.argv[1], sys.argv[2]
    for fname, pmus in TABLES.items():
        old = {}
        path = os.path.join(dst, fname)
        if os.path.exists(path):
            for r in csv.DictReader(open(path)):
                old[(r['kind'], r['event'], r['umask'], r['models'])] = r['desc']
        views = [load(src, p) for p in pmus]
        n = len(views[0])
        assert all(len(v) == n for v in views)
        with open(path, 'w', newline='') as f:
            w = csv.DictWriter(f, fieldnames=COLS, lineterminator='\n')
            w.writeheader()
            for i in range(n):
                e = views[0][i]['row']
                assert all(v[i]['row']['event'] == e['event'] for v in views)
                key = ('E', e['event'], '', '')
                w.writerow({'kind': 'E', 'event': e['event'], 'code': e['event_code'],
                            'equiv': e['event_equiv'], 'cntmsk': e['cntmsk'],
                            'modifiers': e['modifiers'], 'flags': e['event_flags'],
                            'ngrp': e['ngrp'],
                            'desc': old.get(key, e['event'].replace('_', ' ').capitalize())})
                for u in merge([v[i]['umasks'] for v in views]):
                    models = u['umodel']
                    key = ('U', e['event'], u['umask'], models)
                    w.writerow({'kind': 'U', 'event': e['event'], 'umask': u['umask'],
                                'uequiv': u['umask_equiv'], 'ucode': u['ucode'],
                                'grpid': u['grpid'], 'uflags': u['umask_flags'],
                                'modhw': u['modhw'], 'models': models,
                                'desc': old.get(key, u['umask'].replace('_', ' ').lower())})
    # PMU facts: copied column by column, with our own one-line descriptions
    descs = {'wsm': 'Intel Westmere', 'wsm_dp': 'Intel Westmere DP',
             'knl': 'Intel Knights Landing', 'knm': 'Intel Knights Mill'}
    tables = {'wsm': 'intel_wsm', 'wsm_dp': 'intel_wsm', 'knl': 'intel_knl', 'knm': 'intel_knl'}
    rows = [r for r in csv.DictReader(open(os.path.join(src, 'pmus.csv'))) if r['pmu'] in descs]
    with open(os.path.join(dst, 'pmus.csv'), 'w', newline='') as f:
        cols = ['pmu', 'pfm_pmu', 'pfm_pmu_id', 'table', 'desc', 'num_cntrs', 'num_fixed_cntrs',
                'max_encoding', 'pmu_flags', 'supported_plm', 'cpu_family', 'cpu_models',
                'raw_umask_bits', 'raw_umask_bits_offcore', 'anythread']
        w = csv.DictWriter(f, fieldnames=cols, lineterminator='\n')
        w.writeheader()
        for r in rows:
            r2 = {c: r.get(c, '') for c in cols}
            r2['table'] = tables[r['pmu']]
            r2['desc'] = descs[r['pmu']]
            # AnyThread (t): every counter on Westmere; only the fixed counters
            # on Knights Landing/Mill (reference/x86-pmu.md section 1, knm seed)
            r2['anythread'] = 'fixed' if r['pmu'] in ('knl', 'knm') else 'all'
            w.writerow(r2)


if __name__ == '__main__':
    main()

#!/usr/bin/env python3
"""Generate the x86 encoder tables (C) from encoder/data/x86/*.csv.

    gen_tables.py DATA_DIR OUTPUT.c [RESTRICTIONS_CSV]

RESTRICTIONS_CSV, when given, is sim/models/x86/counter-restrictions.csv: the (event
select, umask) pairs Intel's event lists allow on fewer general-purpose
counters than the event's table mask.  The encoder's native face schedules
them there (x86_native.c); the libpfm-4 face does not use them.

Run by meson (custom_target) at build time.  Refuses bad data: duplicate
event or umask names, empty counter masks, unknown flags or modifiers, umask
groups out of range, aliases that name nothing, two defaults in one group for
one PMU, umask codes wider than the PMU allows, more umasks than the encoder
holds, empty descriptions, a PMU without a valid anythread column, a
restriction row naming an unknown PMU, a (code, umask) twice or no unit mask
of the PMU's table, or a counter mask that is empty or wider than the PMU.  Emits const
tables with designated initializers only, plus a by-name index for binary
search.
"""
import csv
import os
import sys

MODS = ['k', 'u', 'e', 'i', 'c', 't', 'ldlat']
EFLAGS = {'PEBS': 'X86_EF_PEBS', 'NHM_OFFCORE': 'X86_EF_OFFCORE', 'FIXED': 'X86_EF_FIXED'}
UFLAGS = {'NCOMBO': 'X86_UF_NCOMBO', 'DFL': 'X86_UF_DFL', 'PEBS': 'X86_UF_PEBS',
          'LDLAT': 'X86_UF_LDLAT', 'EXCL_GRP_GT': 'X86_UF_EXCL_GRP_GT',
          'EXCL_GRP_BUT_0': 'X86_UF_EXCL_GRP_BUT_0', 'GRP_DFL_NONE': 'X86_UF_GRP_DFL_NONE'}
PFLAGS = {'RAW_UMASK': 'X86_PF_RAW_UMASK', 'ECMASK': 'X86_PF_ECMASK'}
ANYTHREAD = {'all': '0', 'fixed': 'X86_PF_ANY_FIXED_ONLY'}
PLMS = {'PLM0': 'X86_PLM0', 'PLM3': 'X86_PLM3'}


class DataError(Exception):
    pass


def fail(where, msg):
    raise DataError('%s: %s' % (where, msg))


def cstr(s):
    if s is None or s == '':
        return 'NULL'
    if any(c in s for c in '"\\\n') or not s.isprintable():
        fail('string', 'unsupported character in %r' % s)
    return '"%s"' % s


def hexint(where, s, bits=64):
    try:
        v = int(s, 0)
    except ValueError:
        fail(where, 'not a number: %r' % s)
    if v < 0 or v >> bits:
        fail(where, 'value %s does not fit %d bits' % (s, bits))
    return v


def flagset(where, s, table):
    out = []
    for f in filter(None, s.split('|')):
        if f not in table:
            fail(where, 'unknown flag %r' % f)
        out.append(table[f])
    return ' | '.join(out) if out else '0'


def modset(where, s):
    out = []
    for m in filter(None, s.split('|')):
        if m not in MODS:
            fail(where, 'unknown modifier %r' % m)
        out.append('X86_MODBIT(X86_MOD_%s)' % m.upper())
    return ' | '.join(out) if out else '0'


def anythread(p):
    if p.get('anythread') not in ANYTHREAD:
        fail('pmus.csv', '%s: anythread must be all or fixed' % p['pmu'])
    return ANYTHREAD[p['anythread']]


def load_table(path, pmus_of_table):
    events = []
    byname = {}
    with open(path, newline='') as f:
        for line, r in enumerate(csv.DictReader(f), start=2):
            where = '%s:%d' % (os.path.basename(path), line)
            if not r['desc']:
                fail(where, 'empty description')
            if r['kind'] == 'E':
                name = r['event']
                if name.lower() in byname:
                    fail(where, 'duplicate event %s' % name)
                ev = {'name': name, 'desc': r['desc'], 'equiv': r['equiv'],
                      'code': hexint(where, r['code'], 16),
                      'cntmsk': hexint(where, r['cntmsk']),
                      'modmsk': modset(where, r['modifiers']),
                      'mods': r['modifiers'].split('|'),
                      'flags': flagset(where, r['flags'], EFLAGS),
                      'rawflags': r['flags'].split('|'),
                      'ngrp': int(r['ngrp']), 'umasks': [], 'where': where}
                if ev['cntmsk'] == 0:
                    fail(where, 'empty counter mask for %s' % name)
                byname[name.lower()] = ev
                events.append(ev)
            elif r['kind'] == 'U':
                if not events or events[-1]['name'] != r['event']:
                    fail(where, 'umask row for %s outside its event' % r['event'])
                ev = events[-1]
                models = [m for m in r['models'].split('|') if m]
                for m in models:
                    if m not in pmus_of_table:
                        fail(where, 'model %s does not use this table' % m)
                um = {'name': r['umask'], 'desc': r['desc'], 'equiv': r['uequiv'],
                      'ucode': hexint(where, r['ucode']), 'grpid': int(r['grpid']),
                      'flags': flagset(where, r['uflags'], UFLAGS),
                      'rawflags': r['uflags'].split('|'),
                      'modhw': modset(where, r['modhw']), 'modhw_l': r['modhw'],
                      'models': models, 'where': where}
                if um['ucode'] & 0xff:
                    fail(where, 'ucode %#x has bits 7:0 set' % um['ucode'])
                if ev['ngrp'] and um['grpid'] >= ev['ngrp']:
                    fail(where, 'group %d out of range (ngrp %d)' % (um['grpid'], ev['ngrp']))
                for m in filter(None, r['modhw'].split('|')):
                    if m not in ev['mods']:
                        fail(where, 'hard-wired modifier %s not offered by %s' % (m, ev['name']))
                ev['umasks'].append(um)
            else:
                fail(where, 'unknown row kind %r' % r['kind'])
    # cross checks
    for ev in events:
        if ev['umasks'] and ev['ngrp'] == 0:
            fail(ev['where'], '%s has umasks but no group' % ev['name'])
        if ev['equiv']:
            target = ev['equiv'].split(':')[0]
            if target.lower() not in byname:
                fail(ev['where'], 'alias %s names unknown event %s' % (ev['name'], target))
        for pmu in pmus_of_table:
            seen = {}
            dfl = {}
            for um in ev['umasks']:
                if um['models'] and pmu not in um['models']:
                    continue
                key = um['name'].lower()
                if key in seen:
                    fail(um['where'], 'duplicate umask %s:%s on %s' % (ev['name'], um['name'], pmu))
                seen[key] = um
                if 'DFL' in um['rawflags']:
                    if um['grpid'] in dfl:
                        fail(um['where'], 'two defaults in group %d of %s on %s'
                             % (um['grpid'], ev['name'], pmu))
                    dfl[um['grpid']] = um
            if len(seen) > 64:
                fail(ev['where'], '%s has %d umasks on %s, more than X86_MAX_UMASKS (64)'
                     % (ev['name'], len(seen), pmu))
            for um in ev['umasks']:
                if um['models'] and pmu not in um['models']:
                    continue
                for part in filter(None, um['equiv'].split(':')):
                    nm = part.split('=')[0].lower()
                    if nm not in seen and nm not in MODS:
                        fail(um['where'], 'alias %s expands to unknown %s on %s'
                             % (um['name'], part, pmu))
    return events


def load_restrictions(path, pmus, events_of):
    """{pmu: sorted [(code, umask, counters, intel_event)]} from the CSV."""
    name = os.path.basename(path)
    byname = {p['pmu']: p for p in pmus}
    out = {p['pmu']: {} for p in pmus}
    with open(path, newline='') as f:
        rows = [(line, r) for line, r in enumerate(csv.reader(f), start=1)
                if r and not r[0].startswith('#')]
    if not rows or rows[0][1] != ['model', 'code', 'umask', 'counters', 'intel_event']:
        fail(name, 'header must be model,code,umask,counters,intel_event')
    for line, r in rows[1:]:
        where = '%s:%d' % (name, line)
        if len(r) != 5 or r[0] not in byname:
            fail(where, 'expected model,code,umask,counters,intel_event with a PMU of pmus.csv')
        code, umask, mask = hexint(where, r[1], 8), hexint(where, r[2], 8), hexint(where, r[3], 32)
        if mask == 0 or mask >> int(byname[r[0]]['num_cntrs']):
            fail(where, 'counter mask %#x empty or wider than the PMU\'s %s counters'
                 % (mask, byname[r[0]]['num_cntrs']))
        if (code, umask) in out[r[0]]:
            fail(where, '%s: %#04x/%#04x listed twice' % (r[0], code, umask))
        # an event without unit masks carries its umask in code bits 15:8
        if not any(ev['code'] & 0xff == code and
                   (ev['code'] >> 8 == umask or any(um['ucode'] >> 8 == umask for um in ev['umasks']))
                   for ev in events_of[r[0]]):
            fail(where, '%s has no event %#04x with unit mask %#04x' % (r[0], code, umask))
        out[r[0]][(code, umask)] = (mask, r[4])
    return {p: sorted((c, u, m, e) for (c, u), (m, e) in rows_.items())
            for p, rows_ in out.items()}


def main():
    data_dir, out = sys.argv[1], sys.argv[2]
    restr_path = sys.argv[3] if len(sys.argv) > 3 else None
    with open(os.path.join(data_dir, 'pmus.csv'), newline='') as f:
        pmus = list(csv.DictReader(f))
    names = [p['pmu'] for p in pmus]
    if len(set(names)) != len(names):
        fail('pmus.csv', 'duplicate PMU name')
    tables = {}
    for p in pmus:
        tables.setdefault(p['table'], []).append(p['pmu'])
    if len(pmus) > 8:
        fail('pmus.csv', 'more than 8 PMUs: model bits do not fit')
    model_bit = {p['pmu']: 1 << i for i, p in enumerate(pmus)}

    o = []
    o.append('/* generated from encoder/data/x86/{pmus,intel_wsm,intel_knl}.csv and'
             ' sim/models/x86/counter-restrictions.csv by encoder/x86/gen_tables.py -- do not edit */')
    o.append('#include "x86_priv.h"')
    o.append('#include <strings.h>')
    o.append('')
    events_of = {}
    for tname, tpmus in tables.items():
        events = load_table(os.path.join(data_dir, tname + '.csv'), tpmus)
        for p in tpmus:
            events_of[p] = events
        if len(events) > 0xffff:
            fail(tname, 'too many events')
        o.append('static const x86_umask_t %s_umasks[] = {' % tname)
        n = 0
        for ev in events:
            ev['first'] = n
            for um in ev['umasks']:
                models = ' | '.join(str(model_bit[m]) for m in um['models']) or '0'
                o.append('    { .name = %s, .desc = %s, .equiv = %s, .ucode = %#xull, '
                         '.grpid = %d, .flags = %s, .modhw = %s, .models = %s },'
                         % (cstr(um['name']), cstr(um['desc']), cstr(um['equiv']), um['ucode'],
                            um['grpid'], um['flags'], um['modhw'], models))
                n += 1
        if n == 0:
            o.append('    { .name = NULL },')
        o.append('};')
        o.append('')
        o.append('static const x86_event_t %s_events[] = {' % tname)
        for ev in events:
            o.append('    { .name = %s, .desc = %s, .equiv = %s, .code = %#x, .cntmsk = %#xull, '
                     '.modmsk = %s, .flags = %s, .ngrp = %d, .first_umask = %d, .numasks = %d },'
                     % (cstr(ev['name']), cstr(ev['desc']), cstr(ev['equiv']), ev['code'],
                        ev['cntmsk'], ev['modmsk'], ev['flags'], ev['ngrp'], ev['first'],
                        len(ev['umasks'])))
        o.append('};')
        o.append('')
        order = sorted(range(len(events)), key=lambda i: events[i]['name'].lower().encode())
        o.append('/* event indices sorted by strcasecmp() order, for binary search */')
        o.append('static const uint16_t %s_by_name[] = {' % tname)
        for i in range(0, len(order), 16):
            o.append('    ' + ', '.join(str(x) for x in order[i:i + 16]) + ',')
        o.append('};')
        o.append('')
        o.append('static const x86_table_t %s_table = {' % tname)
        o.append('    .name = "%s", .events = %s_events, .nevents = %d, .umasks = %s_umasks, '
                 '.by_name = %s_by_name,' % (tname, tname, len(events), tname, tname))
        o.append('};')
        o.append('')
        # per PMU width checks on raw-visible codes
        for p in pmus:
            if p['table'] != tname:
                continue
            for ev in events:
                off = 'NHM_OFFCORE' in ev['rawflags']
                for um in ev['umasks']:
                    if um['models'] and p['pmu'] not in um['models']:
                        continue
                    if off:
                        bits = int(p['raw_umask_bits_offcore']) + 1
                        if (um['ucode'] >> 8) >> bits:
                            fail(um['where'], 'offcore code wider than %d bits (raw width + 1: knm OUTSTANDING is bit 38)' % bits)
    restr = (load_restrictions(restr_path, pmus, events_of) if restr_path
             else {p['pmu']: [] for p in pmus})
    for p in pmus:
        pid = p['pmu']
        if restr[pid]:
            o.append('/* %s: counter restrictions, sorted by (code, umask) */' % pid)
            o.append('static const x86_restrict_t %s_restricts[] = {' % pid)
            for code, umask, mask, iev in restr[pid]:
                o.append('    { .code = %#04x, .umask = %#04x, .counters = %#x }, /* %s */'
                         % (code, umask, mask, iev))
            o.append('};')
        models = [int(x) for x in p['cpu_models'].split('|') if x]
        o.append('static const int %s_cpu_models[] = { %s, 0 };'
                 % (pid, ', '.join(str(m) for m in models)))
        plm = ' | '.join(PLMS[x] for x in p['supported_plm'].split('|') if x)
        o.append('static const x86_pmu_t %s_pmu = {' % pid)
        o.append('    .name = %s, .desc = %s, .pfm_id = %d, .table = &%s_table, .model_bit = %d,'
                 % (cstr(pid), cstr(p['desc']), int(p['pfm_pmu_id']), p['table'], model_bit[pid]))
        o.append('    .num_cntrs = %d, .num_fixed_cntrs = %d, .max_encoding = %d, .flags = %s,'
                 % (int(p['num_cntrs']), int(p['num_fixed_cntrs']), int(p['max_encoding']),
                    flagset('pmus.csv', p['pmu_flags'], PFLAGS) + ' | ' + anythread(p)))
        o.append('    .supported_plm = %s, .cpu_family = %d, .cpu_models = %s_cpu_models,'
                 % (plm, int(p['cpu_family']), pid))
        o.append('    .raw_umask_bits = %d, .raw_umask_bits_offcore = %d,'
                 % (int(p['raw_umask_bits']), int(p['raw_umask_bits_offcore'])))
        if restr[pid]:
            o.append('    .restricts = %s_restricts, .n_restricts = %d,' % (pid, len(restr[pid])))
        o.append('};')
        o.append('')
    o.append('const x86_pmu_t *const pmusim_x86_pmus[] = { %s };'
             % ', '.join('&%s_pmu' % p['pmu'] for p in pmus))
    o.append('const size_t pmusim_x86_npmus = %d;' % len(pmus))
    o.append('')
    with open(out, 'w') as f:
        f.write('\n'.join(o))


if __name__ == '__main__':
    try:
        main()
    except DataError as e:
        sys.stderr.write('gen_tables.py: %s\n' % e)
        sys.exit(1)

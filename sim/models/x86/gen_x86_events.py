#!/usr/bin/env python3
"""Generates the x86 models' trace-event and counter-restriction tables.

    gen_x86_events.py TRACE_EVENTS_CSV RESTRICTIONS_CSV MODEL=EVENT_TABLE_CSV... OUT_C

TRACE_EVENTS_CSV (trace-events.csv) says which trace fields drive an event;
its event names are resolved to (event select, umask) through each model's
event table (encoder/data/x86/intel_*.csv), so a name the table does not
know, an alias, a duplicate (model, code, umask) or an unknown source,
filter or model is refused.  A row may name a unit mask that carries
CMASK/INV/EDGE (ARITH:DIV = CYCLES_DIV_BUSY:c=1:i=1:e=1): a "form", counted
from the row's source in place of the threshold when a counter is
programmed with exactly those bits (its own table, x86_forms_MODEL).
RESTRICTIONS_CSV (counter-restrictions.csv, from Intel's data) lists the
events that cannot use every general-purpose counter.  The output holds one
table of each kind per model, sorted by (code, umask)."""
import csv
import sys

MODELS = ('wsm', 'wsm_dp', 'knm')
SOURCES = {'CYCLES', 'REF', 'INSN', 'UOPS', 'FILTER', 'LDLAT', 'OFFCORE', 'OUTSTANDING',
           'EVENT', 'FPMMX'}
LEVELS = ('L1D', 'L2', 'L3', 'LOCAL_DRAM', 'REMOTE_DRAM', 'REMOTE_CACHE', 'LFB')
TLBS = ('L1_HIT', 'L2_HIT', 'WALK', 'FAULT')
KINDS = ('COND', 'CALL', 'RET', 'IND', 'IPREL', 'ICALL')
FPCLASSES = ('X87', 'MMX', 'SS', 'SD', 'PS', 'PD', 'VI')  # pmusim_fp_class_t 1..7
OPKINDS = ('PACK', 'UNPACK', 'PACKED_ARITH', 'PACKED_LOGICAL', 'PACKED_MPY', 'PACKED_SHIFT',
           'SHUFFLE_MOVE', 'MUL', 'DIV', 'FUSED')  # pmusim_op_kind_t 1..10
# trace annotations (include/pmusim/trace.h, enum pmusim_annotation)
ANN = {'levels': 'PMUSIM_ANN_LEVELS', 'tlb': 'PMUSIM_ANN_TLB', 'pred': 'PMUSIM_ANN_PRED',
       'brkind': 'PMUSIM_ANN_BRKIND', 'offcore': 'PMUSIM_ANN_OFFCORE',
       'uops': 'PMUSIM_ANN_UOPS', 'allmem': 'PMUSIM_ANN_ALLMEM', 'timing': 'PMUSIM_ANN_TIMING',
       'callkind': 'PMUSIM_ANN_CALLKIND', 'fpclass': 'PMUSIM_ANN_FPCLASS',
       'opkind': 'PMUSIM_ANN_OPKIND', 'lock': 'PMUSIM_ANN_LOCK', 'lfb': 'PMUSIM_ANN_LFB',
       'stfwd': 'PMUSIM_ANN_STFWD', 'fuse': 'PMUSIM_ANN_FUSE'}


def fail(where, msg):
    sys.exit(f'gen_x86_events.py: {where}: {msg}')


def data_rows(path):
    with open(path, newline='') as f:
        return [r for r in csv.reader(f) if r and not r[0].startswith('#')]


# The modifier bits of a unit mask's code that a form row may carry:
# CMASK (31:24), INV (23) and EDGE (18) of IA32_PERFEVTSELx.
FORM_MODS = 0xff840000


def load_event_table(path):
    """({(name, umask name or None, model): (code, umask)} of a libpfm-style
    table, {(name, umask name, model): (code, umask, mods)} of its unit masks
    that carry CMASK/INV/EDGE and nothing else above the umask)."""
    with open(path, newline='') as f:
        rows = list(csv.DictReader(f))
    ev = {}
    out = {}
    forms = {}
    for r in rows:
        if r['kind'] == 'E':
            ev[r['event']] = r
            if int(r['ngrp'] or 0) == 0 and not r['equiv']:
                c = int(r['code'], 16)
                for m in MODELS:
                    out[(r['event'], None, m)] = (c & 0xff, c >> 8)
        else:
            e = ev[r['event']]
            if e['equiv']:
                continue
            u = int(r['ucode'], 16)
            c = int(e['code'], 16)
            models = r['models'].split('|') if r['models'] else MODELS
            if u >> 16:
                # carries CMASK/INV/EDGE: not a plain unit mask, but a form
                # row may name it (nothing else above the umask)
                if not (u >> 16) << 16 & ~FORM_MODS:
                    for m in models:
                        forms[(r['event'], r['umask'], m)] = (c & 0xff, ((u >> 8) & 0xff) | (c >> 8),
                                                              u & FORM_MODS)
                continue
            for m in models:
                out[(r['event'], r['umask'], m)] = (c & 0xff, ((u >> 8) & 0xff) | (c >> 8))
    return out, forms


def parse_filter(where, spec, source):
    f = {'need': [], 'dir': None, 'lvl': [], 'tlb': [], 'kind': [], 'fpc': [], 'opk': [], 'taken': False,
         'misp': False, 'split': False, 'lock': False, 'stfwd': False, 'req': [], 'bit': False, 'ev': False, 'model': False, 'once': False,
         'sum': 0}
    for tok in spec.split():
        key, _, val = tok.partition('=')
        vals = val.split('|') if val else []
        if key == 'bit' and not val:
            f['bit'] = True
        elif key == 'ev' and not val:
            f['ev'] = True
        elif key == 'model' and not val:
            f['model'] = True
        elif key == 'once' and not val:
            f['once'] = True
        elif (key == 'sum' and val[:2] == '0x' and len(val) in (3, 4) and
              all(ch in '0123456789abcdef' for ch in val[2:]) and int(val, 16)):
            f['sum'] = int(val, 16)
        elif key in ('mem', 'br', 'oc') and not val:
            f['need'].append(key)
        elif key == 'dir' and val in ('ld', 'st'):
            f['dir'] = val
        elif key == 'lvl' and vals and all(v in LEVELS for v in vals):
            f['lvl'] = vals
        elif key == 'tlb' and vals and all(v in TLBS for v in vals):
            f['tlb'] = vals
        elif key == 'kind' and vals and all(v in KINDS for v in vals):
            f['kind'] = vals
        elif key == 'fpc' and vals and all(v in FPCLASSES for v in vals):
            f['fpc'] = vals
        elif key == 'opk' and vals and all(v in OPKINDS for v in vals):
            f['opk'] = vals
        elif key in ('taken', 'misp', 'split', 'lock', 'stfwd') and not val:
            f[key] = True
        elif key == 'req' and vals and all(v.isdigit() and int(v) < 16 for v in vals):
            f['req'] = [int(v) for v in vals]
        else:
            fail(where, f'bad filter condition "{tok}"')
    if source == 'FILTER' and not f['need'] and not f['fpc'] and not f['opk']:
        fail(where, 'a FILTER row needs mem, br, oc, fpc or opk')
    if (f['fpc'] or f['opk']) and f['need']:
        # x86_filter_match() tests the class and kind only where no part is needed
        fail(where, 'fpc and opk go without mem, br and oc')
    if source == 'OUTSTANDING' and (f['need'] != ['oc'] or set(spec.split()) - {'oc'} -
                                    {t for t in spec.split() if t.startswith('req=')}):
        # the requests in flight of the types the filter names
        fail(where, 'an OUTSTANDING row needs oc (and req=) only')
    if source == 'FPMMX':
        # the classes transitioned to: x87 (TO_FP), mmx (TO_MMX) or both
        if not f['fpc'] or set(f['fpc']) - {'X87', 'MMX'} or set(spec.split()) - {
                'fpc=' + '|'.join(f['fpc'])}:
            fail(where, 'an FPMMX row needs fpc=X87, MMX or X87|MMX and nothing else')
    elif source not in ('FILTER', 'OUTSTANDING') and {
            t for t in spec.split()
            if t not in ('bit', 'ev', 'model') and not (source == 'EVENT' and t.startswith('sum='))}:
        # an EVENT bit may stand for other EVENT bits on a model's trace
        # (UOPS_EXECUTED:PORT015 = PORT0 + PORT1 + PORT5)
        fail(where, f'conditions on a {source} row')
    if source == 'EVENT' and (not f['bit'] or f['ev'] or f['model']):
        # an EVENT row is one bit of an OR-combinable umask whose other
        # bits may be trace-derived; alone it is what every unlisted
        # (code, umask) is already
        fail(where, 'an EVENT row needs bit (and no ev or model)')
    if (f['dir'] or f['lvl'] or f['tlb'] or f['split'] or f['lock'] or f['stfwd']) and \
            'mem' not in f['need']:
        # lock: the INSN record's memory part is the locked load; stfwd:
        # it is the blocked load
        fail(where, 'dir/lvl/tlb/split/lock/stfwd need mem')
    if (f['kind'] or f['taken'] or f['misp']) and 'br' not in f['need']:
        fail(where, 'kind/taken/misp need br')
    if f['req'] and 'oc' not in f['need']:
        fail(where, 'req needs oc')
    return f


def needs_of(source, f):
    """The annotations without which the trace cannot hold the event."""
    n = set()
    if source in ('CYCLES', 'REF', 'OUTSTANDING'):
        n.add('timing')  # without a timing model a cycle is a placeholder
    if source == 'UOPS':
        n.add('uops')
    if source == 'LDLAT':
        n |= {'levels', 'allmem'}
    if source == 'OFFCORE' or 'oc' in f['need']:
        n.add('offcore')
    if 'mem' in f['need']:
        n.add('allmem')
    if f['lvl']:
        n.add('levels')
    if 'LFB' in f['lvl'] or 'L1D' in f['lvl']:
        # L1D hits and fill-buffer hits: only a model that tells them apart
        n.add('lfb')
    if f['tlb']:
        n.add('tlb')
    if f['misp']:
        n.add('pred')
    if 'br' in f['need'] and (f['kind'] or not f['taken']):
        n.add('brkind')  # kinds, or not-taken branches being present
    if f['kind'] and ('CALL' in f['kind']) != ('ICALL' in f['kind']):
        n.add('callkind')  # direct or indirect calls only: `call` alone was both before
    if f['fpc']:
        n.add('fpclass')
    if f['opk']:
        n.add('opkind')
    if 'FUSED' in f['opk']:
        # an opkind trace of before session 20 marks no pair: only the
        # "fuse" annotation says that an unmarked CMP or TEST did not fuse
        n.add('fuse')
    if f['lock']:
        n.add('lock')
    if f['stfwd']:
        n.add('stfwd')
    return sorted(n)


def c_mask(prefix, names, alls):
    if not names:
        return '0'
    return ' | '.join(f'(1u << {prefix}{v})' for v in names)


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    te_path, rs_path, out_path = sys.argv[1], sys.argv[2], sys.argv[-1]
    tables = {}
    form_tables = {}
    for arg in sys.argv[3:-1]:
        model, _, path = arg.partition('=')
        if model not in MODELS:
            fail(arg, 'unknown model')
        tables[model], form_tables[model] = load_event_table(path)
    entries = {m: {} for m in MODELS}
    forms = {m: {} for m in MODELS}
    rows = data_rows(te_path)
    if rows[0] != ['pmus', 'event', 'source', 'filter', 'phrase']:
        fail(te_path, 'header must be pmus,event,source,filter,phrase')
    for i, r in enumerate(rows[1:], 2):
        where = f'{te_path}: row {i}'
        if len(r) != 5:
            fail(where, f'{len(r)} columns, expected 5')
        pmus, event, source, spec, phrase = r
        if source not in SOURCES:
            fail(where, f'unknown source "{source}"')
        if not phrase or '"' in phrase or '\\' in phrase:
            fail(where, 'empty phrase or one with quotes/backslashes')
        f = parse_filter(where, spec, source)
        for m in pmus.split():
            if m not in MODELS:
                fail(where, f'unknown model "{m}"')
            if event.startswith('0x'):
                code_s, _, umask_s = event.partition('/')
                code, umask = int(code_s, 16), int(umask_s, 16)
            else:
                name, _, um = event.partition(':')
                key = (name, um or None, m)
                if key in form_tables[m]:
                    # a form: the umask with its CMASK/INV/EDGE, counted from
                    # this row's source instead of the threshold
                    code, umask, mods = form_tables[m][key]
                    if source in ('EVENT', 'OUTSTANDING') or f['bit'] or f['sum']:
                        fail(where, 'a form row (a unit mask with CMASK/INV/EDGE) needs a '
                             'source other than EVENT/OUTSTANDING, no bit or sum')
                    if (code, umask, mods) in forms[m]:
                        fail(where, f'{m}: form {event} listed twice')
                    forms[m][(code, umask, mods)] = (event, source, f, phrase)
                    continue
                if key not in tables[m]:
                    fail(where, f'{m} has no event {event} with a plain unit mask')
                code, umask = tables[m][key]
            if code > 0xff or umask > 0xff:
                fail(where, 'code or umask wider than 8 bits')
            if source == 'EVENT' and bin(umask).count('1') != 1:
                fail(where, 'an EVENT row needs a umask of one bit')
            if (code, umask) in entries[m]:
                fail(where, f'{m}: 0x{code:02x}/0x{umask:02x} listed twice')
            entries[m][(code, umask)] = (event, source, f, phrase)
    for m in MODELS:
        for (code, umask), (event, source, f, phrase) in entries[m].items():
            s = f['sum']
            if not s:
                continue
            if s & umask or (code, s) in entries[m] or any(
                    not (code, 1 << b) in entries[m] or not entries[m][(code, 1 << b)][2]['bit']
                    for b in range(8) if (s >> b) & 1):
                fail(te_path, f'{m} {event}: sum=0x{s:02x} must name other bits, each a bit row')
    restr = {m: [] for m in MODELS}
    rrows = data_rows(rs_path)
    if rrows[0] != ['model', 'code', 'umask', 'counters', 'intel_event']:
        fail(rs_path, 'header must be model,code,umask,counters,intel_event')
    for i, r in enumerate(rrows[1:], 2):
        if len(r) != 5 or r[0] not in MODELS or int(r[3], 16) == 0:
            fail(f'{rs_path}: row {i}', 'bad row')
        restr[r[0]].append((int(r[1], 16), int(r[2], 16), int(r[3], 16), r[4]))

    out = [f'/* Generated from {te_path.split("/")[-1]} and {rs_path.split("/")[-1]} with the',
           ' * event tables by gen_x86_events.py: do not edit. */',
           '#include "x86_model.h"', '']
    def entry(code, umask, mods, event, source, f, phrase):
        src = f'X86_SRC_{source}'
        fl = []
        need = [{'mem': 'PMUSIM_F_MEM', 'br': 'PMUSIM_F_BRANCH', 'oc': 'PMUSIM_F_OFFCORE'}[n]
                for n in f['need']]
        if f['lock']:
            need.append('PMUSIM_F_LOCK')  # a flag the record must carry, as the parts
        if f['stfwd']:
            need.append('PMUSIM_F_STFWD_BLOCK')  # the same
        if need:
            fl.append('.need_flags = ' + ' | '.join(need))
        if f['dir']:
            fl.append('.mem_dir = ' + ('1u' if f['dir'] == 'ld' else '2u'))
        if f['lvl']:
            fl.append('.lvl_mask = ' + c_mask('PMUSIM_LVL_', f['lvl'], LEVELS))
        if f['tlb']:
            fl.append('.tlb_mask = ' + c_mask('PMUSIM_TLB_', f['tlb'], TLBS))
        if f['kind']:
            fl.append('.br_kind = ' + c_mask('PMUSIM_BR_', f['kind'], KINDS))
        if f['fpc']:
            fl.append('.fp_class = ' + ' | '.join(f'(1u << {FPCLASSES.index(v) + 1})'
                                                  for v in f['fpc']))
        if f['opk']:
            fl.append('.op_kind = ' + ' | '.join(f'(1u << {OPKINDS.index(v) + 1})'
                                                 for v in f['opk']))
        if f['taken']:
            fl.append('.br_taken = 2u')
        if f['misp']:
            fl.append('.br_misp = 2u')
        if f['split']:
            fl.append('.split = 2u')  # the bytes cross a 64-byte line
        if f['req']:
            fl.append('.oc_req = ' + ' | '.join(f'(1u << {v})' for v in f['req']))
        needs = ' | '.join(ANN[n] for n in needs_of(source, f)) or '0'
        return (f'    {{.code = 0x{code:02x}, .umask = 0x{umask:02x}, .src = {src}, '
                f'.bit = {"true" if f["bit"] else "false"}, .f = {{{", ".join(fl) or ".need_flags = 0"}}}, '
                f'.needs = {needs}, .events_first = {"true" if f["ev"] else "false"}, '
                f'.model_only = {"true" if f["model"] else "false"}, '
                f'.once = {"true" if f["once"] else "false"}, .sum_umask = 0x{f["sum"]:02x}, '
                f'.mods = 0x{mods:08x}u, .name = "{event}", .phrase = "{phrase}"}},')

    for m in MODELS:
        out.append(f'const x86_evmap_t x86_events_{m}[] = {{')
        for (code, umask), (event, source, f, phrase) in sorted(entries[m].items()):
            out.append(entry(code, umask, 0, event, source, f, phrase))
        out.append('};')
        out.append(f'const size_t x86_n_events_{m} = sizeof x86_events_{m} / sizeof x86_events_{m}[0];')
        out.append('')
        out.append(f'const x86_evmap_t x86_forms_{m}[] = {{')
        for (code, umask, mods), (event, source, f, phrase) in sorted(forms[m].items()):
            out.append(entry(code, umask, mods, event, source, f, phrase))
        if not forms[m]:
            out.append('    {.code = 0, .umask = 0, .name = NULL, .phrase = NULL},')
        out.append('};')
        out.append(f'const size_t x86_n_forms_{m} = {len(forms[m])};')
        out.append('')
        out.append(f'const x86_restriction_t x86_restrictions_{m}[] = {{')
        for code, umask, mask, ev in sorted(restr[m]):
            out.append(f'    {{.code = 0x{code:02x}, .umask = 0x{umask:02x}, .counters = 0x{mask:x}, '
                       f'.intel_event = "{ev}"}},')
        if not restr[m]:
            out.append('    {.code = 0, .umask = 0, .counters = 0, .intel_event = NULL},')
        out.append('};')
        out.append(f'const size_t x86_n_restrictions_{m} = {len(restr[m])};')
        out.append('')
    with open(out_path, 'w') as f:
        f.write('\n'.join(out))


if __name__ == '__main__':
    main()

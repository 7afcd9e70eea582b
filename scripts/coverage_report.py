#!/usr/bin/env python3
"""Summarise Verilator coverage of rtl/ per module (scripts/coverage.sh).

Reads merged coverage data (verilator_coverage --write) and prints, per RTL
module: line and branch points hit, signal bits toggled, FSM states entered
and state changes seen (the rnic_fsm_cover points). Points are merged across
instances (both nodes, every parameter set): a source point is hit if any
instance hit it.

  coverage_report.py DAT --rtl DIR [--md FILE] [--json FILE]
                         [--check FILE] [--reasons FILE]

--md writes the report (tables, every point never hit with its reason from
--reasons when one is recorded, and with toggle points the signals whose bits
never changed); --json the figures (per module the
line and branch points [hit, total] and the FSM states entered); --check
compares the figures with recorded ones (that JSON) and fails when any
module hits fewer points or enters fewer states than recorded, or when a
reason of --reasons names a line that holds no line or branch point (the
source moved under it: the reason would no longer reach the report), or
its text anchor matches no single line (read_reasons).
"""
import argparse
import json
import os
import re
import sys
from collections import defaultdict

KINDS = ('line', 'branch', 'toggle')


def parse_dat(path):
    """Yield (fields dict, count) of every point of a coverage data file."""
    with open(path, encoding='latin-1') as f:
        for ln in f:
            if not ln.startswith("C '"):
                continue
            key, _, cnt = ln.rstrip('\n').rpartition("' ")
            fields = {}
            for item in key[3:].split('\x01'):
                if '\x02' in item:
                    k, v = item.split('\x02', 1)
                    fields[k] = v
            yield fields, int(cnt)


def enum_names(src, sig):
    """State names of `sig` when the RTL declares it with an enum typedef."""
    try:
        text = open(src).read()
    except OSError:
        return None
    m = re.search(r'\b(\w+)\s+' + re.escape(sig) + r'\b[^;]*;', text)
    if not m:
        return None
    t = re.search(r'typedef\s+enum[^{]*\{([^}]*)\}\s*' + re.escape(m.group(1)) + r'\s*;', text)
    if not t:
        return None
    return [n.strip() for n in t.group(1).split(',') if n.strip()]


def collect(dat, rtl):
    rtl = os.path.realpath(rtl)
    pts = defaultdict(dict)    # module -> point id -> [count, file, line, what]
    inst_mod = {}              # instance path -> module
    users = []                 # (hier, count) of user points
    for f, cnt in parse_dat(dat):
        page = f.get('page', '')
        kind, _, mod = page.partition('/')
        kind = kind[2:]
        # A parameterised module is named <module>__<parameters>.
        mod = mod.split('__')[0]
        h = f.get('h', '')
        src = os.path.realpath(f.get('f', ''))
        if not src.startswith(rtl + os.sep):
            continue
        rel = os.path.relpath(src, os.path.dirname(rtl))
        if kind in ('line', 'branch'):
            inst_mod.setdefault(h, mod)
        if kind == 'user':
            users.append((h, cnt, rel))
            continue
        if kind not in KINDS or mod == 'rnic_fsm_cover':
            continue    # (the FSM cover points' own lines: the instrument)
        pid = (kind, rel, f.get('l'), f.get('n'), f.get('o'))
        p = pts[mod].setdefault(pid, [0, rel, int(f.get('l', 0)), f.get('o', '')])
        p[0] += cnt
    # FSM points: .../<inst>.u_<sig>_cover.g_st__BRA__s__KET__[.g_to__BRA__t__KET__.g_tr].c_*
    fsm = {}
    pat = re.compile(r'^(.*)\.u_(\w+)_cover\.g_st__BRA__(\d+)__KET__\.'
                     r'(?:g_to__BRA__(\d+)__KET__\.g_tr\.)?c_(state|trans)$')
    for h, cnt, _ in users:
        m = pat.match(h)
        if not m:
            continue
        parent, sig, s, t, what = m.groups()
        mod = inst_mod.get(parent)
        if mod is None:
            continue
        e = fsm.setdefault((mod, sig), {'states': defaultdict(int), 'trans': defaultdict(int)})
        if what == 'state':
            e['states'][int(s)] += cnt
        else:
            e['trans'][(int(s), int(t))] += cnt
    return pts, fsm


def module_src(rtl, mod):
    for d, _, files in os.walk(rtl):
        if mod + '.sv' in files:
            return os.path.join(d, mod + '.sv')
    return None


def figures(pts, fsm, rtl):
    out = {}
    for mod in sorted(pts):
        r = {}
        for k in KINDS:
            ps = [p for pid, p in pts[mod].items() if pid[0] == k]
            r[k] = [sum(1 for p in ps if p[0] > 0), len(ps)]
        out[mod] = r
    for (mod, sig), e in sorted(fsm.items()):
        names = enum_names(module_src(rtl, mod) or '', sig)
        n = len(names) if names else len(e['states'])
        seen = sorted(s for s, c in e['states'].items() if c > 0)
        r = out.setdefault(mod, {k: [0, 0] for k in KINDS})
        r.setdefault('fsm', {})[sig] = {
            'states': [len(seen), n],
            'names': names or [str(i) for i in range(n)],
            'missed': [(names[s] if names else str(s)) for s in range(n) if s not in seen],
            'trans': sorted([list(k) for k, c in e['trans'].items() if c > 0]),
        }
    return out


def pct(a):
    return 100.0 * a[0] / a[1] if a[1] else 100.0


def spct(a):
    """A figure for the tables: '-' when there are no points of its kind."""
    return '%5.1f %%' % pct(a) if a[1] else '    -  '


def total(fig, k):
    return [sum(r[k][0] for r in fig.values()), sum(r[k][1] for r in fig.values())]


def read_reasons(path):
    """The reasons file: '<file>:<line> <reason>', or '<file>:`<text>` <reason>'
    for the one line of <file> that contains <text> ('<file>:`<text>`#<n>' for
    the n-th of several), which stays true when lines above it move. Returns
    {'<file>:<line>': reason} and the anchors that name no single line."""
    reasons, bad, sources = {}, [], {}
    anchored = re.compile(r'^(\S+?):`([^`]+)`(?:#(\d+))?\s+(.*)$')
    for ln in open(path):
        ln = ln.strip()
        if not ln or ln.startswith('#'):
            continue
        m = anchored.match(ln)
        if not m:
            where, _, why = ln.partition(' ')
            reasons[where] = why.strip()
            continue
        f, text, nth, why = m.groups()
        if f not in sources:
            try:
                sources[f] = open(f).read().split('\n')
            except OSError:
                sources[f] = None
        lines = sources[f]
        if lines is None:
            bad.append('the reason for %s:`%s` names a file that is not there' % (f, text))
            continue
        hits = [i + 1 for i, s in enumerate(lines) if text in s]
        if nth:
            hits = hits[int(nth) - 1:int(nth)]
        if len(hits) != 1:
            bad.append('the reason for %s:`%s`%s matches %d lines (one wanted)' %
                       (f, text, '#' + nth if nth else '', len(hits)))
            continue
        reasons['%s:%d' % (f, hits[0])] = why.strip()
    return reasons, bad


def write_md(path, fig, pts, reasons):
    with open(path, 'w') as o:
        o.write('| module | lines | branches | toggles | FSM states |\n'
                '|---|---:|---:|---:|---:|\n')
        for mod, r in fig.items():
            st = ', '.join('%s %d/%d' % (s, *v['states']) for s, v in r.get('fsm', {}).items())
            o.write('| %s | %.1f %% (%d/%d) | %.1f %% (%d/%d) | %s | %s |\n' %
                    (mod, pct(r['line']), *r['line'], pct(r['branch']), *r['branch'],
                     spct(r['toggle']).strip(), st or '-'))
        tl, tb, tt = (total(fig, k) for k in KINDS)
        o.write('| **all** | **%.1f %%** (%d/%d) | **%.1f %%** (%d/%d) | %s | |\n\n' %
                (pct(tl), *tl, pct(tb), *tb, spct(tt).strip()))
        for mod, r in fig.items():
            for sig, v in r.get('fsm', {}).items():
                o.write('- `%s.%s`: %d of %d states entered%s; %d distinct state changes seen.\n' %
                        (mod, sig, *v['states'],
                         (' (never: %s)' % ', '.join(v['missed'])) if v['missed'] else '',
                         len(v['trans'])))
        o.write('\nLine and branch points never hit (file:line, kind, and the reason when one is'
                ' recorded in tb/coverage/reasons.txt):\n\n')
        for mod in sorted(pts):
            miss = sorted((p[1], p[2], pid[0], p[3]) for pid, p in pts[mod].items()
                          if pid[0] in ('line', 'branch') and p[0] == 0)
            if not miss:
                continue
            o.write('- `%s`:\n' % mod)
            for f, l, k, what in miss:
                why = reasons.get('%s:%d' % (f, l), 'no test reaches it yet')
                o.write('  - %s:%d %s `%s`: %s\n' % (f, l, k, what, why))
        write_toggles(o, pts)


TOGGLE_LIST = 12    # signals listed per module


def write_toggles(o, pts):
    """Per module, the signals with the most bits that never changed.

    Verilator counts every change of a bit in one counter; a bit counts as
    toggled when it changed at least once. A signal is the point's name
    without its bit and array indices."""
    rows = []
    for mod in sorted(pts):
        sig = defaultdict(lambda: [0, 0])
        for pid, p in pts[mod].items():
            if pid[0] != 'toggle':
                continue
            s = sig[re.sub(r'(\[\d+\])+$', '', p[3])]
            s[0] += p[0] == 0
            s[1] += 1
        dead = sorted(((n, t, name) for name, (n, t) in sig.items() if n), reverse=True)
        if dead:
            rows.append((mod, dead, len(sig)))
    if not rows:
        return
    o.write('\nSignals with bits that never toggled, per module (bits that never changed / the '
            'signal\'s bits; the %d with the most):\n\n' % TOGGLE_LIST)
    for mod, dead, nsig in rows:
        o.write('- `%s` (%d of %d signals):' % (mod, len(dead), nsig))
        o.write(' ' + ', '.join('`%s` %d/%d' % (name, n, t) for n, t, name in dead[:TOGGLE_LIST]))
        o.write(', and %d more\n' % (len(dead) - TOGGLE_LIST) if len(dead) > TOGGLE_LIST else '\n')


def check(fig, rec):
    bad = []
    for mod, want in rec.items():
        got = fig.get(mod)
        if got is None:
            bad.append('%s: no coverage data' % mod)
            continue
        for k in ('line', 'branch'):
            # [hit, total]: the same points hit, or more; after an RTL change
            # (another total) the fraction may not drop.
            hit, tot = want[k]
            if (got[k][1] == tot and got[k][0] < hit) or \
               (got[k][1] != tot and got[k][0] * tot < hit * got[k][1]):
                bad.append('%s: %s points hit %d/%d < recorded %d/%d' %
                           (mod, k, got[k][0], got[k][1], hit, tot))
        for sig, n in want.get('fsm', {}).items():
            have = got.get('fsm', {}).get(sig, {'states': [0, 0]})['states'][0]
            if have < n:
                bad.append('%s.%s: %d FSM states entered < recorded %d' % (mod, sig, have, n))
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('dat')
    ap.add_argument('--rtl', required=True)
    ap.add_argument('--md')
    ap.add_argument('--json')
    ap.add_argument('--check')
    ap.add_argument('--reasons')
    a = ap.parse_args()
    pts, fsm = collect(a.dat, a.rtl)
    if not pts:
        sys.exit('coverage_report: no points of %s in %s' % (a.rtl, a.dat))
    fig = figures(pts, fsm, a.rtl)
    reasons, anchor_bad = {}, []
    if a.reasons and os.path.exists(a.reasons):
        reasons, anchor_bad = read_reasons(a.reasons)
    if a.md:
        write_md(a.md, fig, pts, reasons)
    if a.json:
        with open(a.json, 'w') as o:
            json.dump({m: {k: r[k] for k in ('line', 'branch')} |
                       {'fsm': {s: v['states'][0] for s, v in r.get('fsm', {}).items()}}
                       for m, r in fig.items()}, o, indent=1, sort_keys=True)
            o.write('\n')
    for mod, r in fig.items():
        print('%-18s line %5.1f %%  branch %5.1f %%  toggle %s%s' %
              (mod, pct(r['line']), pct(r['branch']), spct(r['toggle']),
               ''.join('  %s %d/%d states' % (s, *v['states']) for s, v in r.get('fsm', {}).items())))
    tl, tb, tt = (total(fig, k) for k in KINDS)
    print('%-18s line %5.1f %%  branch %5.1f %%  toggle %s' % ('all', pct(tl), pct(tb), spct(tt)))
    if a.check:
        bad = check(fig, json.load(open(a.check)))
        where_pts = {'%s:%d' % (p[1], p[2]) for m in pts.values() for pid, p in m.items()
                     if pid[0] in ('line', 'branch')}
        bad += anchor_bad
        bad += ['the reason for %s names no line or branch point (lines moved?)' % w
                for w in sorted(reasons) if w not in where_pts]
        for b in bad:
            print('coverage check failed: ' + b, file=sys.stderr)
        if bad:
            sys.exit(1)
        print('coverage: every module at or above %s' % a.check)


if __name__ == '__main__':
    main()

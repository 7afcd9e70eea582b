#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""check_resets.py - every register of an asynchronously reset process is reset.

    scripts/check_resets.py rtl/**/*.sv

docs/rtl-style.md: a process `always_ff @(posedge clk_i or negedge rst_ni)`
opens with `if (!rst_ni) begin ... end`, which gives every register the
process writes its reset value (or `if (!rst_ni) x <= '0;`); data registers without a reset live in a
process of their own, `always_ff @(posedge clk_i)`. A register written in
the first kind of process but missing from its reset branch is held, not
reset, while rst_ni is low: Yosys makes it a flip-flop with an enable
(`$_DFFE_PP_`), and nothing else notices (stop 40 dropped one that way:
every test, proof and the synthesis check passed). Memories (unpacked
arrays) are exempt: the style keeps them unreset, a context write clears a
QP's entries.

Fails (exit 1) naming each such register, its process (the line of its
`always_ff`) and its file. The parser knows the style's shapes only: the
left-hand side of a nonblocking assignment is the lvalue before a `<=` at
parenthesis depth 0 (a `<=` inside parentheses is a comparison).
"""
import re
import sys

PROC = re.compile(r'always_ff\s*@\s*\(\s*posedge\s+(\w+)\s+or\s+negedge\s+(\w+)\s*\)')


def strip_comments(s):
    s = re.sub(r'/\*.*?\*/', lambda m: re.sub(r'[^\n]', ' ', m.group(0)), s, flags=re.S)
    return re.sub(r'//[^\n]*', '', s)


def memories(s):
    """Names declared as unpacked arrays: `logic [7:0] a [N], b;` -> {a}."""
    names = set()
    for m in re.finditer(r'(?:^|;)\s*(?:\(\*[^*]*\*\)\s*)?(?:logic|bit|reg|[\w:]+_t)\b([^;]*);', s,
                         re.S | re.M):
        body = m.group(1)
        body = re.sub(r'^\s*(\[[^\]]*\]\s*)*', '', body)   # packed dimensions
        for item in split_top(body, ','):
            im = re.match(r'\s*(\w+)\s*(\[.*\])\s*(=.*)?$', item, re.S)
            if im:
                names.add(im.group(1))
    return names


def split_top(s, sep):
    out, depth, cur = [], 0, ''
    for c in s:
        if c in '([{':
            depth += 1
        elif c in ')]}':
            depth -= 1
        if c == sep and depth == 0:
            out.append(cur)
            cur = ''
        else:
            cur += c
    out.append(cur)
    return out


def block_end(s, i):
    """s[i:] starts after a `begin`: the index just past its matching `end`."""
    depth = 1
    for m in re.compile(r'\b(begin|end)\b').finditer(s, i):
        depth += 1 if m.group(1) == 'begin' else -1
        if depth == 0:
            return m.end()
    return len(s)


def lvalue_names(lhs):
    lhs = lhs.strip()
    if lhs.startswith('{'):
        return [n for part in split_top(lhs[1:-1], ',') for n in lvalue_names(part)]
    m = re.match(r'(\w+)', lhs)
    return [m.group(1)] if m else []


def assigned(s):
    """Base names of the nonblocking assignments' left-hand sides in s."""
    names = set()
    depth = 0
    i = 0
    while i < len(s):
        c = s[i]
        if c == '(':
            depth += 1
        elif c == ')':
            depth -= 1
        elif c == '<' and s.startswith('<=', i) and depth == 0:
            # Walk back over the lvalue: names, selects, fields, a concatenation.
            j = i - 1
            while j >= 0 and s[j].isspace():
                j -= 1
            end = j + 1
            while j >= 0:
                if s[j] in ']}':
                    close, open_ = s[j], '[' if s[j] == ']' else '{'
                    d = 0
                    while j >= 0:
                        if s[j] == close:
                            d += 1
                        elif s[j] == open_:
                            d -= 1
                            if d == 0:
                                break
                        j -= 1
                    j -= 1
                elif s[j].isalnum() or s[j] in '_.':
                    j -= 1
                else:
                    break
            names.update(lvalue_names(s[j + 1:end]))
            k = s.find(';', i)
            i = len(s) if k < 0 else k
            continue
        i += 1
    return names


def check(path):
    src = strip_comments(open(path).read())
    mems = memories(src)
    bad = []
    for m in PROC.finditer(src):
        rst = m.group(2)
        line = src.count('\n', 0, m.start()) + 1
        b = re.compile(r'\bbegin\b').search(src, m.end())
        if not b:
            continue
        body_end = block_end(src, b.end())
        body = src[b.end():body_end]
        r = re.match(r'\s*if\s*\(\s*!\s*' + rst + r'\s*\)\s*', body)
        if not r:
            bad.append((line, None, 'does not open with `if (!%s)`' % rst))
            continue
        rb = re.match(r'begin\b', body[r.end():])
        if rb:
            rstart = r.end() + rb.end()
            rend = block_end(body, rstart)
        else:   # one statement
            rstart = r.end()
            rend = body.find(';', rstart) + 1
        reset = assigned(body[rstart:rend])
        rest = assigned(body[rend:])
        for n in sorted(rest - reset - mems):
            bad.append((line, n, 'written but not reset'))
    return bad


def main(argv):
    fails = 0
    for path in argv[1:]:
        for line, name, what in check(path):
            fails += 1
            print('%s:%d: %s%s' % (path, line, (name + ': ') if name else '', what))
    if fails:
        print('check_resets: %d problem(s)' % fails)
        return 1
    print('check_resets: every register of %d files\' reset processes is reset' % (len(argv) - 1))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
"""sass_loop.py: what one K-step of a kernel costs, read from its SASS.

    cuobjdump -sass bin/matrixMul | python3 0_Simple/matrixMul/sass_loop.py [--kernel TEXT]
    python3 0_Simple/matrixMul/sass_loop.py FILE.sass [--kernel TEXT] [--range A-B[,A-B...]]

Reads the text that `cuobjdump -sass` prints (sm_70 and later: every
instruction followed by its two 64-bit words) and, for each kernel whose
mangled name contains TEXT (every kernel without --kernel), prints each
loop (a backward branch) that holds at least 256 FFMAs: its instructions,
FFMAs and the other opcodes, and two numbers the compiler wrote into the
instructions themselves:

  - issue cycles: the sum of the stall counts. Every instruction carries
    in its control bits (bits 41-44 of its second word) how many cycles its
    warp waits before it issues the next one; the sum is the fewest cycles
    one warp needs for the loop when nothing else holds it back (no memory
    latency, no other warp taking the slot). FFMAs / issue cycles is then
    the best share of the FP32 peak this loop allows.
  - LDS -> first use: for every shared load, how many instructions later its
    data is first read (around the loop). Few instructions and the warp may
    wait for the load.

A loop with branches inside it counts every path at once; --range sums
address ranges (hex, from the listing) instead, e.g. the path one kind of
block takes. Exit 0, or 1 when no loop was found (a wrong --kernel, or not
cuobjdump -sass output), 2 on a bad argument.
"""
import re
import sys

INSN = re.compile(r'/\*([0-9a-f]{4,})\*/\s*(.*?)\s*;\s*/\* (0x[0-9a-f]{16}) \*/\s*\n\s*/\* (0x[0-9a-f]{16}) \*/')
BRANCH = re.compile(r'\bBRA\s+(?:[^,;]+,\s*)?0x([0-9a-f]+)')


def usage(msg=None):
    if msg:
        print(f'sass_loop.py: error: {msg}', file=sys.stderr)
    print('usage: sass_loop.py [FILE.sass] [--kernel TEXT] [--range A-B[,A-B...]]', file=sys.stderr)
    sys.exit(2)


def opcode(text):
    words = text.split()
    if words and words[0].startswith('@'):
        words = words[1:]
    return words[0].split('.')[0] if words else ''


def parse(fn_text):
    """[(address, text, stall)] of one function."""
    out = []
    for m in INSN.finditer(fn_text):
        stall = (int(m.group(4), 16) >> 41) & 15
        out.append((int(m.group(1), 16), m.group(2), stall))
    return out


def sources(text):
    """Registers an instruction reads (every operand after the first, and all
    of them for a store)."""
    words = text.split(None, 1)
    if words and words[0].startswith('@'):
        words = words[1].split(None, 1) if len(words) > 1 else []
    if len(words) < 2:
        return set()
    ops = words[1].split(',')
    regs = set()
    first = 0 if words[0].startswith(('STS', 'STG', 'ST.', 'LDGSTS')) else 1
    for o in ops[first:]:
        regs |= {int(r) for r in re.findall(r'\bR(\d+)\b', o)}
    return regs


def lds_distances(body):
    dist = []
    n = len(body)
    for i, (_, text, _) in enumerate(body):
        m = re.match(r'(?:@\S+\s+)?LDS(\S*)\s+R(\d+)', text)
        if not m:
            continue
        width = 4 if '.128' in m.group(1) else 2 if '.64' in m.group(1) else 1
        regs = set(range(int(m.group(2)), int(m.group(2)) + width))
        for j in range(1, n):
            if sources(body[(i + j) % n][1]) & regs:
                dist.append(j)
                break
    return sorted(dist)


def report(label, body, wrap):
    ops = {}
    for _, text, _ in body:
        ops[opcode(text)] = ops.get(opcode(text), 0) + 1
    ffma = ops.get('FFMA', 0)
    cycles = sum(s for _, _, s in body)
    others = ', '.join(f'{v} {k}' for k, v in sorted(ops.items(), key=lambda x: (-x[1], x[0])) if k != 'FFMA')
    print(f'  {label}: {len(body)} instructions, {ffma} FFMA ({100.0 * ffma / len(body):.1f}%)')
    print(f'    others: {others}')
    print(f'    issue cycles (stall counts): {cycles}; FFMA per issue cycle {ffma / cycles if cycles else 0:.3f}')
    if wrap:
        d = lds_distances(body)
        if d:
            print(f'    LDS -> first use: min {d[0]}, median {d[len(d) // 2]} instructions; '
                  f'{sum(x < 32 for x in d)} of {len(d)} under 32')


def main(argv):
    path, kernel, ranges = None, None, None
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ('-h', '--help'):
            print(__doc__)
            return 0
        if a in ('--kernel', '--range'):
            if i + 1 >= len(argv):
                usage(f'{a} needs a value')
            if a == '--kernel':
                kernel = argv[i + 1]
            else:
                ranges = []
                for r in argv[i + 1].split(','):
                    m = re.fullmatch(r'(?:0x)?([0-9a-fA-F]+)-(?:0x)?([0-9a-fA-F]+)', r.strip())
                    if not m or int(m.group(1), 16) > int(m.group(2), 16):
                        usage(f'--range {r!r}: want A-B, hex addresses, A <= B')
                    ranges.append((int(m.group(1), 16), int(m.group(2), 16)))
            i += 2
            continue
        if a.startswith('-') and a != '-':
            usage(f'unknown option {a}')
        if path is not None:
            usage('one input file at most')
        path = a
        i += 1
    try:
        text = sys.stdin.read() if path in (None, '-') else open(path).read()
    except OSError as e:
        usage(f'{path}: {e.strerror}')
    found = 0
    for fn in re.split(r'\n\s*Function : ', '\n' + text)[1:]:
        name = fn.split('\n', 1)[0].strip()
        if kernel and kernel not in name:
            continue
        ins = parse(fn)
        if not ins:
            continue
        if ranges:
            body = [x for x in ins if any(a <= x[0] <= b for a, b in ranges)]
            if body:
                print(name)
                report('ranges ' + ','.join(f'{a:x}-{b:x}' for a, b in ranges), body, False)
                found += 1
            continue
        index = {a: k for k, (a, _, _) in enumerate(ins)}
        loops = []
        for k, (a, text_k, _) in enumerate(ins):
            m = BRANCH.search(text_k)
            if m and int(m.group(1), 16) < a and int(m.group(1), 16) in index:
                body = ins[index[int(m.group(1), 16)]:k + 1]
                if sum(1 for x in body if opcode(x[1]) == 'FFMA') >= 256:
                    loops.append(body)
        if not loops:
            continue
        print(name)
        for body in loops:
            branches = sum(1 for x in body[:-1] if opcode(x[1]) == 'BRA')
            label = f'loop {body[0][0]:x}-{body[-1][0]:x}'
            if branches:
                label += f' ({branches} branches inside: every path counted)'
            report(label, body, branches == 0)
            found += 1
    if not found:
        print('sass_loop.py: no loop with 256 FFMAs found' + (f' in a kernel matching {kernel!r}' if kernel else ''),
              file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))

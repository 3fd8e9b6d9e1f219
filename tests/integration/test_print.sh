#!/usr/bin/env bash
# test_print.sh: `hprof sites`, `hprof print`, `hprof samples` and `hprof
# collapsed` (tools/print.c) against an independent reader.
#
# usage: bash test_print.sh HPROF_TOOL PROJECT_DIR WORKDIR [CORPUS_DIR]   (run by ctest)
# CORPUS_DIR defaults to PROJECT_DIR/../shared/corpus/original-agent; its
# minimal.bin and hprof.bin are real output of the original agent (4-byte
# ids, dotted class names, the quirky ALLOC SITES cutoff field); without
# them those steps are skipped.
#
# Owns the text contract of these commands: exit codes 0/1/2; the SITES,
# CPU SAMPLES and TRACE text byte for byte as a small Python decoder written
# here from the format description (reference §3.2, §4) spells it; collapsed
# stacks; and the HEAP DUMP text's line counts against `hprof info`'s
# sub-record counts and the counts the reference documents for hprof.bin.
set -euo pipefail

if [ $# -lt 3 ]; then
    echo "usage: bash $0 HPROF_TOOL PROJECT_DIR WORKDIR [CORPUS_DIR]" >&2
    exit 2
fi
HPROF=$1
PROJECT=$2
WORK=$3
CORPUS=${4:-$PROJECT/../shared/corpus/original-agent}
rm -rf "$WORK"
mkdir -p "$WORK/tmp"
cd "$WORK"
# dates are the file's own (header time + record time), printed in local time
export TZ=UTC LC_ALL=C

fail() {
    echo "FAIL: $*" >&2
    exit 1
}
step() {
    echo "== $*"
}
# expect RC CMD...: runs CMD with stdout in out.txt, stderr in err.txt
expect() {
    local want=$1
    shift
    local rc=0
    "$@" >out.txt 2>err.txt || rc=$?
    [ "$rc" -eq "$want" ] || fail "$* exited $rc, expected $want: $(head -3 err.txt)"
}
same() { # same EXPECTED ACTUAL WHAT
    if ! diff -u "$1" "$2" >diff.txt; then
        head -40 diff.txt >&2
        fail "$3"
    fi
}

# An independent decoder: what the four commands must print, from the
# format alone. Written apart from tools/print.c on purpose.
cat >expect.py <<'EOF'
import struct, sys, time

PRIM = {'Z': 'boolean', 'B': 'byte', 'C': 'char', 'S': 'short',
        'I': 'int', 'J': 'long', 'F': 'float', 'D': 'double'}
TYPES = {4: 'boolean', 5: 'char', 6: 'float', 7: 'double', 8: 'byte',
         9: 'short', 10: 'int', 11: 'long'}

def java(name):
    d = len(name) - len(name.lstrip('['))
    rest = name[d:]
    if d and rest in PRIM:
        return PRIM[rest] + '[]' * d
    if len(rest) >= 2 and rest[0] == 'L' and rest[-1] == ';':
        return rest[1:-1].replace('/', '.') + '[]' * d
    return name.replace('/', '.')

def line_text(n):
    return {-1: 'Unknown line', -2: 'Compiled method', -3: 'Native method'}.get(n, str(n))

class Dump:
    def __init__(self, path):
        data = open(path, 'rb').read()
        z = data.index(b'\0')
        self.ids, self.ms = struct.unpack('>IQ', data[z + 1:z + 13])
        self.utf8, self.cls, self.frames, self.traces = {}, {}, {}, {}
        self.sites, self.samples, self.threads = [], [], []
        n = self.ids
        uid = lambda b, o: int.from_bytes(b[o:o + n], 'big')
        p = z + 13
        while p < len(data):
            tag, us, ln = struct.unpack('>BII', data[p:p + 9])
            b = data[p + 9:p + 9 + ln]
            p += 9 + ln
            if tag == 0x01:
                self.utf8[uid(b, 0)] = b[n:].decode('utf-8', 'replace')
            elif tag == 0x02:
                self.cls[struct.unpack('>I', b[:4])[0]] = uid(b, 8 + n)
            elif tag == 0x04:
                cs, line = struct.unpack('>Ii', b[4 * n:4 * n + 8])
                self.frames[uid(b, 0)] = (uid(b, n), uid(b, 3 * n), cs, line)
            elif tag == 0x05:
                serial, thread, k = struct.unpack('>III', b[:12])
                self.traces[serial] = (thread, [uid(b, 12 + i * n) for i in range(k)])
            elif tag == 0x06:
                flags, cutoff, tlb, tli, tab, tai, k = struct.unpack('>HIIIQQI', b[:34])
                rows = [struct.unpack('>BIIIIII', b[34 + 25 * i:59 + 25 * i]) for i in range(k)]
                self.sites.append((us, flags, cutoff, tlb, tab, rows))
            elif tag == 0x0D:
                total, k = struct.unpack('>II', b[:8])
                pairs = [struct.unpack('>II', b[8 + 8 * i:16 + 8 * i]) for i in range(k)]
                self.samples.append((us, total, pairs))
            elif tag == 0x0A:
                serial = struct.unpack('>I', b[:4])[0]
                self.threads.append((serial, uid(b, 4), uid(b, 8 + n), uid(b, 8 + 2 * n)))

    def when(self, us):
        return time.strftime('%a %b %e %H:%M:%S %Y', time.gmtime((self.ms + us // 1000) // 1000))

    def cname(self, serial):
        nid = self.cls.get(serial)
        return java(self.utf8[nid]) if nid in self.utf8 else None

    def site_class(self, row):
        name = self.cname(row[1])
        if name is None:
            name = TYPES[row[0]] + '[]' if row[0] in TYPES else '<unknown class %d>' % row[1]
        return name

    def frame(self, fid):
        method, source, cs, line = self.frames[fid]
        src = self.utf8.get(source, '') if source else ''
        return (self.cname(cs) or '<Unknown Class>', self.utf8.get(method, '<Unknown Method>'),
                src or '<Unknown Source>', line_text(line))

    def trace_block(self, serial, out, done):
        if serial in done:
            return
        done.add(serial)
        thread, fids = self.traces[serial]
        out.append('TRACE %d:%s' % (serial, ' (thread=%d)' % thread if thread else ''))
        if not fids:
            out.append('\t<empty>')
        for f in fids:
            out.append('\t%s.%s(%s:%s)' % self.frame(f))

    def sites_text(self, last=False, cutoff=0.0, by_alloc=False):
        out, done = [], set()
        recs = self.sites[-1:] if last else self.sites
        for us, flags, _, tlb, tab, rows in recs:
            alloc = by_alloc or bool(flags & 2)
            rows = sorted(rows, key=lambda r: -(r[5] if alloc else r[3]))
            total = tab if alloc else tlb
            if cutoff > 0:
                rows = [r for r in rows if total > 0 and (r[5] if alloc else r[3]) / total >= cutoff]
            for r in rows:
                self.trace_block(r[2], out, done)
            out.append('SITES BEGIN (ordered by %s) %s' %
                       ('allocated bytes' if alloc else 'live bytes', self.when(us)))
            out.append("          percent          live          alloc'ed  stack class")
            out.append(' rank   self  accum     bytes objs     bytes  objs trace name')
            accum = 0.0
            for i, r in enumerate(rows):
                selfr = r[3] / tlb if tlb else 0.0
                accum += selfr
                out.append('%5d %5.2f%% %5.2f%% %9d %4d %9d %5d %5d %s' % (
                    i + 1, selfr * 100.0, accum * 100.0, r[3], r[4], r[5], r[6], r[2],
                    self.site_class(r)))
            out.append('SITES END')
        return out

    def samples_text(self):
        out, done = [], set()
        for us, total, pairs in self.samples:
            pairs = sorted(pairs, key=lambda p: -p[0])
            for count, t in pairs:
                self.trace_block(t, out, done)
            out.append('CPU SAMPLES BEGIN (total = %d) %s' % (total, self.when(us)))
            if pairs:
                out.append('rank   self  accum   count trace method')
            t_all = total or sum(c for c, _ in pairs)
            accum = 0.0
            for i, (count, t) in enumerate(pairs):
                selfp = count * 100.0 / t_all if t_all else 0.0
                accum += selfp
                fids = self.traces[t][1]
                top = '%s.%s' % self.frame(fids[0])[:2] if fids else '<empty trace>'
                out.append('%4d %5.2f%% %5.2f%% %7d %5d %s' % (i + 1, selfp, accum, count, t, top))
            out.append('CPU SAMPLES END')
        return out

    def stack(self, serial):
        fids = self.traces[serial][1]
        if not fids:
            return '<empty>'
        return ';'.join('%s.%s' % self.frame(f)[:2] for f in reversed(fids))

    def collapsed_text(self, sites):
        acc = {}
        if sites:
            for r in self.sites[-1][5]:
                if r[5]:
                    key = self.stack(r[2]) + ';' + self.site_class(r)
                    acc[key] = acc.get(key, 0) + r[5]
        else:
            for _, _, pairs in self.samples:
                for count, t in pairs:
                    if count:
                        acc[self.stack(t)] = acc.get(self.stack(t), 0) + count
        return ['%s %d' % (k, acc[k]) for k in sorted(acc)]

    def threads_text(self):
        return ['THREAD START (obj=%x, id = %d, name="%s", group="%s")' % (
            obj, s, self.utf8.get(nm, ''), self.utf8.get(gr, '')) for s, obj, nm, gr in self.threads]

TSIZE = {2: None, 4: 1, 5: 2, 6: 4, 7: 8, 8: 1, 9: 2, 10: 4, 11: 8}

def objects_text(path):
    """OBJ blocks (non-null reference fields, own class first, then up the
    superclasses) and object ARR blocks (non-null elements), without sz."""
    data = open(path, 'rb').read()
    z = data.index(b'\0')
    n = struct.unpack('>I', data[z + 1:z + 5])[0]
    uid = lambda o: int.from_bytes(data[o:o + n], 'big')
    utf8, names, heaps, layouts = {}, {}, [], {}
    p = z + 13
    while p < len(data):
        tag, _, ln = struct.unpack('>BII', data[p:p + 9])
        if tag == 0x01:
            utf8[uid(p + 9)] = data[p + 9 + n:p + 9 + ln].decode('utf-8', 'replace')
        elif tag == 0x02:
            names[uid(p + 13)] = uid(p + 17 + n)
        elif tag in (0x0C, 0x1C):
            heaps.append((p + 9, p + 9 + ln))
        p += 9 + ln
    fixed = {0x01: 2 * n, 0x02: n + 8, 0x03: n + 8, 0x04: n + 4, 0x05: n, 0x06: n + 4,
             0x07: n, 0x08: n + 8, 0xFF: n, 0x89: n, 0x8A: n, 0x8B: n, 0x8C: n, 0x8D: n,
             0x8E: n + 8, 0x90: n, 0xFE: 4 + n}
    size = lambda t: TSIZE[t] or n
    def walk(visit):
        for start, end in heaps:
            q = start
            while q < end:
                t = data[q]
                q += 1
                if t in fixed:
                    q += fixed[t]
                elif t == 0x20:
                    cid, sup = uid(q), uid(q + n + 4)
                    q += 7 * n + 8
                    u2 = lambda o: struct.unpack('>H', data[o:o + 2])[0]
                    k, q = u2(q), q + 2
                    for _ in range(k):  # constant pool: u2 index, u1 type, value
                        q += 3 + size(data[q + 2])
                    k, q = u2(q), q + 2
                    for _ in range(k):  # statics: name id, u1 type, value
                        q += n + 1 + size(data[q + n])
                    k, q = u2(q), q + 2
                    fl = [(uid(q + i * (n + 1)), data[q + i * (n + 1) + n]) for i in range(k)]
                    q += k * (n + 1)
                    visit('cls', (cid, sup, fl))
                elif t == 0x21:
                    nb = struct.unpack('>I', data[q + 2 * n + 4:q + 2 * n + 8])[0]
                    visit('obj', (uid(q), struct.unpack('>I', data[q + n:q + n + 4])[0],
                                  uid(q + n + 4), q + 2 * n + 8, nb))
                    q += 2 * n + 8 + nb
                elif t == 0x22:
                    tr, k = struct.unpack('>II', data[q + n:q + n + 8])
                    visit('arr', (uid(q), tr, k, uid(q + n + 8), q + 2 * n + 8))
                    q += 2 * n + 8 + k * n
                elif t == 0x23:
                    k = struct.unpack('>I', data[q + n + 4:q + n + 8])[0]
                    q += n + 9 + k * TSIZE[data[q + n + 8]]
                else:
                    raise SystemExit('unknown sub-record 0x%02x' % t)
    def cname(cid):
        return java(utf8[names[cid]]) if names.get(cid) in utf8 else '<Unknown Class>'
    walk(lambda kind, v: layouts.__setitem__(v[0], (v[1], v[2])) if kind == 'cls' else None)
    out = []
    def visit(kind, v):
        if kind == 'obj':
            oid, tr, cid, vals, nb = v
            out.append('OBJ %x (trace=%d, class=%s@%x)' % (oid, tr, cname(cid), cid))
            c, off = cid, 0
            while c in layouts:
                sup, fl = layouts[c]
                for name_id, t in fl:
                    if t == 2:
                        ref = int.from_bytes(data[vals + off:vals + off + n], 'big')
                        if ref:
                            fname = utf8.get(name_id, '<unknown field>')
                            out.append('\t%s\t%s%x' % (fname, '\t' if len(fname) < 8 else '', ref))
                    off += size(t)
                c = sup
        elif kind == 'arr':
            oid, tr, k, cid, el = v
            out.append('ARR %x (trace=%d, nelems=%d, elem type=%s@%x)' % (oid, tr, k, cname(cid), cid))
            for i in range(k):
                ref = int.from_bytes(data[el + i * n:el + i * n + n], 'big')
                if ref:
                    out.append('\t[%d]\t\t%x' % (i, ref))
    walk(visit)
    return out

cmd, path = sys.argv[1], sys.argv[2]
d = Dump(path)
args = sys.argv[3:]
if cmd == 'sites':
    lines = d.sites_text(last='--last' in args, by_alloc='--alloc' in args,
                         cutoff=float(args[args.index('--cutoff') + 1]) if '--cutoff' in args else 0.0)
elif cmd == 'samples':
    lines = d.samples_text()
elif cmd == 'collapsed':
    lines = d.collapsed_text('--sites' in args)
elif cmd == 'threads':
    lines = d.threads_text()
elif cmd == 'objects':
    lines = objects_text(path)
elif cmd == 'cutoff':
    lines = ['%08x' % s[2] for s in d.sites]
elif cmd == 'ntraces':
    lines = [str(len(d.traces))]
elif cmd == 'addsites':  # a copy of the first ALLOC SITES, flagged "sort by allocation", appended
    data = open(path, 'rb').read()
    z = data.index(b'\0')
    p = z + 13
    while p < len(data):
        tag, us, ln = struct.unpack('>BII', data[p:p + 9])
        if tag == 0x06:
            rec = bytearray(data[p:p + 9 + ln])
            struct.pack_into('>I', rec, 1, us + 5000000)  # time
            struct.pack_into('>H', rec, 9, 2)  # flags: sort by allocation
            open(args[0], 'wb').write(data + bytes(rec))
            break
        p += 9 + ln
    lines = []
for l in lines:
    print(l)
EOF
command -v python3 >/dev/null || fail "python3 is needed for the independent decoder"

# check_file FILE WHAT: sites, samples and collapsed against the decoder
check_file() {
    local f=$1 what=$2
    if python3 expect.py sites "$f" >want.txt && [ -s want.txt ]; then
        expect 0 "$HPROF" sites "$f"
        same want.txt out.txt "$what: hprof sites differs from the decoder"
        local rows
        rows=$(count '^ *[0-9]\+ .*%' want.txt)
        python3 expect.py sites "$f" --last >want.txt
        expect 0 "$HPROF" sites --last "$f"
        same want.txt out.txt "$what: hprof sites --last differs from the decoder"
        python3 expect.py sites "$f" --cutoff 0.01 >want.txt
        expect 0 "$HPROF" sites --cutoff 0.01 "$f"
        same want.txt out.txt "$what: hprof sites --cutoff 0.01 differs from the decoder"
        python3 expect.py sites "$f" --alloc --cutoff 0.001 >want.txt
        expect 0 "$HPROF" sites --alloc --cutoff 0.001 "$f"
        same want.txt out.txt "$what: hprof sites --alloc --cutoff 0.001 differs from the decoder"
        python3 expect.py collapsed "$f" --sites >want.txt
        expect 0 "$HPROF" collapsed --sites "$f"
        same want.txt out.txt "$what: hprof collapsed --sites differs from the decoder"
        echo "   $what: sites ($rows rows), --last, --cutoff," \
             "--alloc, collapsed --sites match"
    else
        expect 1 "$HPROF" sites "$f"
        grep -q "no ALLOC SITES" err.txt || fail "$what: sites without sites: $(cat err.txt)"
        echo "   $what: no ALLOC SITES: exit 1"
    fi
    if python3 expect.py samples "$f" >want.txt && [ -s want.txt ]; then
        expect 0 "$HPROF" samples "$f"
        same want.txt out.txt "$what: hprof samples differs from the decoder"
        python3 expect.py collapsed "$f" >want.txt
        expect 0 "$HPROF" collapsed "$f"
        same want.txt out.txt "$what: hprof collapsed differs from the decoder"
        echo "   $what: samples, collapsed match"
    else
        expect 1 "$HPROF" samples "$f"
        grep -q "no CPU SAMPLES" err.txt || fail "$what: samples without samples: $(cat err.txt)"
        expect 1 "$HPROF" collapsed "$f"
        echo "   $what: no CPU SAMPLES: samples and collapsed exit 1"
    fi
}

# count PATTERN FILE: lines matching (0 when none)
count() { grep -c -- "$1" "$2" || true; }
# sub COUNT-NAME: a sub-record count from `hprof info` (0 when absent)
sub() { awk -v n="$1" 'index($0, n " ") == 1 && $(NF-1) ~ /^[0-9]+$/ {c = $(NF-1)} END {print c + 0}' info.txt; }

# print_checks FILE WHAT: the text layout of `hprof print`, line kinds and order
print_checks() {
    local f=$1 what=$2
    expect 0 "$HPROF" print "$f"
    cp out.txt print.txt
    "$HPROF" info "$f" >info.txt
    head -1 print.txt | grep -q '^JAVA PROFILE 1\.0\.[123], created ' ||
        fail "$what: first line is '$(head -1 print.txt)'"
    [ "$(sed -n 4p print.txt)" = "--------" ] || fail "$what: no ---- separator on line 4"
    # threads, exactly as the decoder spells them, in file order
    python3 expect.py threads "$f" >want.txt
    grep '^THREAD START' print.txt >got.txt || true
    same want.txt got.txt "$what: THREAD START lines differ from the decoder"
    # every trace printed at most once, and before the first line naming it
    local dup
    dup=$(grep '^TRACE ' print.txt | sort | uniq -d | head -1)
    [ -z "$dup" ] || fail "$what: '$dup' printed twice"
    awk '/^TRACE [0-9]+:/ {sub(":", "", $2); seen[$2] = 1; next}
         /^SITES BEGIN/ {col = 8; next} /^CPU SAMPLES BEGIN/ {col = 5; next} / END$/ {col = 0}
         col && /^ *[0-9]+ +[0-9.]+% / {t = $col; if (!(t in seen)) {print "trace " t " used before its block: " $0; bad = 1}}
         END {exit bad}' print.txt || fail "$what: a SITES/CPU row precedes its TRACE block"
    # a heap dump: one text line per sub-record
    local inst oarr parr cls roots
    inst=$(sub "INSTANCE DUMP"); oarr=$(sub "OBJ ARRAY DUMP"); parr=$(sub "PRIM ARRAY DUMP")
    cls=$(sub "CLASS DUMP")
    roots=$(awk '/^ROOT / && $(NF-1) ~ /^[0-9]+$/ {c += $(NF-1)} END {print c + 0}' info.txt)
    [ "$(count '^OBJ ' print.txt)" -eq "$inst" ] || fail "$what: $(count '^OBJ ' print.txt) OBJ lines, $inst INSTANCE DUMPs"
    [ "$(count '^ARR ' print.txt)" -eq $((oarr + parr)) ] || fail "$what: ARR lines != $((oarr + parr))"
    [ "$(count '^CLS ' print.txt)" -eq "$cls" ] || fail "$what: CLS lines != $cls"
    [ "$(count '^ROOT ' print.txt)" -eq "$roots" ] || fail "$what: ROOT lines != $roots"
    if [ "$inst" -gt 0 ]; then
        [ "$(count '^HEAP DUMP BEGIN' print.txt)" -eq 1 ] || fail "$what: not one HEAP DUMP BEGIN"
        [ "$(count '^HEAP DUMP END$' print.txt)" -eq 1 ] || fail "$what: not one HEAP DUMP END"
        local objs=$((inst + oarr + parr))
        grep -q "^HEAP DUMP BEGIN ($objs objects, [0-9]* bytes) " print.txt ||
            fail "$what: HEAP DUMP BEGIN does not count $objs objects: $(grep '^HEAP DUMP BEGIN' print.txt)"
        # everything of the dump sits between BEGIN and END; all TRACE blocks come before it
        awk '/^HEAP DUMP BEGIN/ {in_dump = 1} /^HEAP DUMP END/ {in_dump = 0}
             /^(ROOT|CLS|OBJ|ARR) / && !in_dump {print "outside the dump: " $0; bad = 1}
             /^TRACE / && in_dump {print "TRACE inside the dump: " $0; bad = 1}
             END {exit bad}' print.txt || fail "$what: HEAP DUMP lines out of place"
        local ntr
        ntr=$(python3 expect.py ntraces "$f")
        [ "$(sed -n '1,/^HEAP DUMP BEGIN/p' print.txt | count '^TRACE ' /dev/stdin)" -eq "$ntr" ] ||
            fail "$what: not all $ntr traces printed before the heap dump"
        # OBJ fields and object array elements, as the decoder reads them
        python3 expect.py objects "$f" >want.txt
        sed 's/ (sz=[0-9]*, / (/' print.txt |
            awk '/^(OBJ|ARR) / {keep = ($1 == "OBJ" || /@[0-9a-f]+\)$/)} /^[A-Z]/ && !/^(OBJ|ARR) / {keep = 0}
                 keep' >got.txt
        same want.txt got.txt "$what: OBJ/ARR blocks differ from the decoder"
        # sub-lines: tab-indented field/element lines only under CLS/OBJ/ARR
        awk '/^\t/ && prev !~ /^(CLS|OBJ|ARR|TRACE)/ {print "stray: " $0; bad = 1}
             /^[A-Z]/ {prev = $1}
             END {exit bad}' print.txt || fail "$what: an indented line outside CLS/OBJ/ARR/TRACE"
    fi
    echo "   $what: print: $(wc -l <print.txt) lines; $inst OBJ, $((oarr + parr)) ARR, $cls CLS," \
         "$roots ROOT; threads and TRACE order checked"
}

step "help and usage errors (exit 2)"
"$HPROF" help >help.txt
for c in "sites" "print FILE" "samples FILE" "collapsed" "--cutoff" "--last" "--sites"; do
    grep -q -- "  .*$c" help.txt || fail "hprof help does not mention '$c'"
done
expect 2 "$HPROF" sites
expect 2 "$HPROF" sites --cutoff
expect 2 "$HPROF" sites --cutoff 1.5 x.hprof
grep -q -- "--cutoff" err.txt || fail "bad --cutoff: message does not name it"
expect 2 "$HPROF" sites --cutoff abc x.hprof
expect 2 "$HPROF" sites --bogus x.hprof
expect 2 "$HPROF" print
expect 2 "$HPROF" print a.hprof b.hprof
expect 2 "$HPROF" samples --alloc x.hprof
expect 2 "$HPROF" collapsed --nope x.hprof
echo "   all exit 2"

step "unreadable input (exit 1)"
expect 1 "$HPROF" print "$WORK/does-not-exist.hprof"
grep -q "cannot open" err.txt || fail "missing file: $(cat err.txt)"
echo "not an hprof file at all, just text" >junk.txt
for c in print sites samples collapsed; do
    expect 1 "$HPROF" "$c" junk.txt
done
echo "   missing file and a text file: exit 1"

step "the fixture (8-byte ids, VM names, 1.0.2 segments)"
"$HPROF" fixture fx.hprof >/dev/null
check_file fx.hprof fixture
print_checks fx.hprof fixture
# the frame fallbacks fixture.h documents, as the original spelled them
for l in "	<empty>" "	java.lang.Thread.sleep(Thread.java:Native method)" \
         "	com.example.fixture.Node.compute(Node.java:Compiled method)" \
         "	com.example.fixture.FixtureMain.lambda\$main\$0(<Unknown Source>:Unknown line)" \
         "	java.lang.Thread.run(Thread.java:840)"; do
    grep -qxF -- "$l" print.txt || fail "fixture: no line '$l'"
done
grep -qx 'THREAD END (id = 4)' print.txt || fail "fixture: no THREAD END (id = 4)"
grep -qx 'JAVA PROFILE 1.0.2, created Tue Nov 14 22:13:20 2023' print.txt ||
    fail "fixture: header line is '$(head -1 print.txt)'"
grep -q '^HEAP SUMMARY (live bytes = [0-9]*, live objs = [0-9]*, ' print.txt ||
    fail "fixture: no HEAP SUMMARY line"
grep -q "^CLS [0-9a-f]* (name=java.lang.String, trace=1)$" print.txt || fail "fixture: no CLS for String"
grep -qP '^ARR [0-9a-f]+ \(sz=\d+, trace=\d+, nelems=\d+, elem type=int\[\]\)$' print.txt ||
    fail "fixture: no primitive int[] ARR line"
grep -qP '^ARR [0-9a-f]+ \(sz=\d+, trace=\d+, nelems=\d+, elem type=com\.example\.fixture\.Node\[\]@[0-9a-f]+\)$' print.txt ||
    fail "fixture: no Node[] ARR line"
grep -qP '^\t\[0\]\t\t[0-9a-f]+$' print.txt || fail "fixture: no [0] element line"
# field lines: a tab more when the name is shorter than 8 characters
grep -qP '^\tname\t\t[0-9a-f]+$' print.txt || fail "fixture: no short field line (name)"
grep -qP '^\tcontextClassLoader\t[0-9a-f]+$' print.txt || fail "fixture: no long field line"
grep -qP '^ROOT [0-9a-f]+ \(kind=<system class>, name=java\.lang\.String\)$' print.txt ||
    fail "fixture: no <system class> root for String"
# sections come in file order: threads, traces + heap dump, then sites/summary/samples
order=$(grep -oE '^(THREAD START|HEAP DUMP BEGIN|HEAP DUMP END|SITES BEGIN|HEAP SUMMARY|CPU SAMPLES BEGIN)' print.txt |
        uniq | tr '\n' '|')
[ "$order" = "THREAD START|HEAP DUMP BEGIN|HEAP DUMP END|SITES BEGIN|HEAP SUMMARY|CPU SAMPLES BEGIN|" ] ||
    fail "fixture: section order is $order"
echo "   fixture: frame fallbacks, header, field/element/root lines, section order"

step "collapsed stacks: root first, one line per stack, counts add up"
expect 0 "$HPROF" collapsed fx.hprof
grep -vqP '^[^ ;]+(;[^ ;]+)* [0-9]+$' out.txt && fail "collapsed: a line is not 'frame;...;frame count'"
total=$(python3 expect.py samples fx.hprof | sed -n 's/^CPU SAMPLES BEGIN (total = \([0-9]*\)).*/\1/p')
sum=$(awk '{s += $NF} END {print s}' out.txt)
[ "$sum" -eq "$total" ] || fail "collapsed counts add up to $sum, CPU SAMPLES total is $total"
# shellcheck disable=SC2016 # the $ are literal: lambda$main$0
grep -q '^java\.lang\.Thread\.run;com\.example\.fixture\.FixtureMain\.lambda\$main\$0;com\.example\.fixture\.Node\.deep;com\.example\.fixture\.Node\.compute [0-9]*$' out.txt ||
    fail "collapsed: worker-2's stack is not root first"
[ "$(cut -d' ' -f1 out.txt | sort | uniq -d | wc -l)" -eq 0 ] || fail "collapsed: a stack appears twice"
expect 0 "$HPROF" collapsed --sites fx.hprof
grep -q '^com\.example\.fixture\.FixtureMain\.main;com\.example\.fixture\.FixtureMain\.makeNodes;com\.example\.fixture\.Node [0-9]*$' out.txt ||
    fail "collapsed --sites: no Node allocation stack with the class as leaf"
echo "   $(wc -l <out.txt) allocation stacks; CPU stacks sum to $total"

step "several ALLOC SITES records: each printed, TRACE blocks once, --last"
python3 expect.py addsites fx.hprof fx2.hprof
python3 expect.py sites fx2.hprof >want.txt
expect 0 "$HPROF" sites fx2.hprof
same want.txt out.txt "two ALLOC SITES: output differs from the decoder"
[ "$(count '^SITES BEGIN' out.txt)" -eq 2 ] || fail "two ALLOC SITES: not two tables"
[ "$(count '^TRACE 5:' out.txt)" -eq 1 ] || fail "two ALLOC SITES: TRACE 5 printed twice"
expect 0 "$HPROF" sites --last fx2.hprof
[ "$(count '^SITES BEGIN (ordered by allocated bytes)' out.txt)" -eq 1 ] ||
    fail "--last: not the one table of the second (sort-by-allocation) record"
[ "$(count '^SITES BEGIN' out.txt)" -eq 1 ] || fail "--last printed more than one table"
echo "   two tables, shared traces once; --last prints the second"

step "standard input and gzip give the same text"
"$HPROF" print fx.hprof >file.txt
TMPDIR=$WORK/tmp "$HPROF" print - <fx.hprof >stdin.txt || fail "print - exited $?"
cmp -s file.txt stdin.txt || fail "print - differs from print FILE"
[ -z "$(ls -A "$WORK/tmp")" ] || fail "print - left $(ls "$WORK/tmp") behind"
if command -v gzip >/dev/null; then
    gzip -c fx.hprof >fx.hprof.gz
    "$HPROF" print fx.hprof.gz >gz.txt || fail "print of a gzip file exited $?"
    cmp -s file.txt gz.txt || fail "print of the gzip file differs"
fi
echo "   identical; the temporary copy of stdin is removed"

step "the fixture with 4-byte ids, 1.0.1 and dotted names"
"$HPROF" fixture fx4.hprof --id-size 4 --version 1.0.1 --names dot --objects 200 >/dev/null
check_file fx4.hprof "fixture 4-byte"
print_checks fx4.hprof "fixture 4-byte"

if [ -r "$CORPUS/minimal.bin" ] && [ -r "$CORPUS/hprof.bin" ]; then
    step "minimal.bin (original agent, heap=sites)"
    # the cutoff field holds the low word of the C double 0.0001, not a float
    [ "$(python3 expect.py cutoff "$CORPUS/minimal.bin")" = "eb1c432d" ] ||
        fail "minimal.bin: unexpected cutoff bits"
    check_file "$CORPUS/minimal.bin" minimal.bin
    expect 0 "$HPROF" sites "$CORPUS/minimal.bin"
    # checked by hand once: site 1 is 19 char[] of 2224 bytes at trace 300034,
    # of 158000 live bytes in all (1.41 %); 531 sites; serial 100323 (an
    # object array class) has no LOAD CLASS in this file
    grep -qxF '    1  1.41%  1.41%      2224   19      2224    19 300034 char[]' out.txt ||
        fail "minimal.bin: row 1 is '$(grep -m1 '^    1 ' out.txt)'"
    [ "$(count '^ *[0-9]\+ .*%' out.txt)" -eq 531 ] || fail "minimal.bin: not 531 rows"
    grep -qxF '    9  0.30%  4.74%       472    2       472     2 300011 <unknown class 100323>' out.txt ||
        fail "minimal.bin: row 9 (undefined class serial) is '$(grep -m1 '^    9 ' out.txt)'"
    [ "$(sed -n '1,/^SITES BEGIN/p' out.txt | count '^TRACE ' /dev/stdin)" -eq \
      "$(awk '/^ *[0-9]+ .*%/ {print $8}' out.txt | sort -u | wc -l)" ] ||
        fail "minimal.bin: the TRACE blocks before the table are not exactly the traces it uses"
    grep -A1 -x 'TRACE 300000:' out.txt | grep -qx '	<empty>' || fail "minimal.bin: TRACE 300000 not <empty>"
    print_checks "$CORPUS/minimal.bin" minimal.bin
    [ "$(count '^THREAD START' print.txt)" -eq 5 ] || fail "minimal.bin: not 5 THREAD START"
    [ "$(count '^THREAD END' print.txt)" -eq 1 ] || fail "minimal.bin: not 1 THREAD END"
    [ "$(count '^HEAP DUMP' print.txt)" -eq 0 ] || fail "minimal.bin has no heap dump"

    step "hprof.bin (original agent, heap=all)"
    check_file "$CORPUS/hprof.bin" hprof.bin
    print_checks "$CORPUS/hprof.bin" hprof.bin
    # the counts the reference (§4.3) documents for this file
    [ "$(count '^ROOT ' print.txt)" -eq 862 ] || fail "hprof.bin: not 862 roots"
    [ "$(count '^OBJ ' print.txt)" -eq 1293 ] || fail "hprof.bin: not 1293 instances"
    [ "$(count '^ARR ' print.txt)" -eq $((423 + 849)) ] || fail "hprof.bin: not 1272 arrays"
    [ "$(count '^CLS ' print.txt)" -eq 361 ] || fail "hprof.bin: not 361 classes"
    [ "$(grep -m1 '^ROOT ' print.txt)" = "ROOT 0 (kind=<thread>, id=200000, trace=300000)" ] ||
        fail "hprof.bin: first root is '$(grep -m1 '^ROOT ' print.txt)'"
    grep -qx 'THREAD START (obj=50000142, id = 200001, name="main", group="main")' print.txt ||
        fail "hprof.bin: no THREAD START for main"
    grep -qP '^ARR [0-9a-f]+ \(sz=\d+, trace=\d+, nelems=\d+, elem type=char\[\]\)$' print.txt ||
        fail "hprof.bin: no char[] ARR line"
    # the SITES after the dump need no TRACE blocks: the dump printed them all
    sed -n '/^HEAP DUMP END/,$p' print.txt | grep -q '^TRACE ' && fail "hprof.bin: TRACE after the dump"
    echo "   hprof.bin: the documented counts (862 roots, 1293 OBJ, 1272 ARR, 361 CLS)"
else
    step "corpus not found at $CORPUS: minimal.bin and hprof.bin steps skipped"
fi

echo "PASS"

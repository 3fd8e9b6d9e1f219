/* tp_extras.c: the text layout's sections without a binary record
 * (tp_extras.h): CPU TIME, MONITOR TIME, MONITOR DUMP, WAIT/WAITED and the
 * SITES sampling notes, in the lines agent/out.c writes and the JDK 5-8
 * agent's hprof_io.c wrote. One pass over the lines; every number is parsed
 * by hand with overflow checks (no strtod, no locale). */
#include "tp_extras.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hprof/hprof_format.h"
#include "tp_text.h"

struct tp_extras {
    tp_time_row *times;
    size_t ntimes, captimes;
    uint64_t times_total_ms;
    uint32_t times_sections;
    tp_monitor_row *mons;
    size_t nmons, capmons;
    uint64_t mons_total_ms;
    uint32_t mons_sections;
    tp_mdump_thread *mthreads;
    size_t nmthreads, capmthreads;
    tp_mdump_monitor *mmons;
    size_t nmmons, capmmons;
    tp_wait *waits;
    size_t nwaits, capwaits;
    tp_sites_note *sites;
    size_t nsites, capsites;
    tp_heap_class *heap;
    size_t nheap, capheap;
    uint32_t *heap_slots; /* open addressing over heap[]: index + 1 */
    size_t nheap_slots;
    uint32_t heap_dumps;
    uint64_t roots[256];
    char **strs; /* every string the rows point at */
    size_t nstrs, capstrs;
    uint32_t skipped;
    int oom;
};

/* A copy of s[0..len) owned by x; NULL when out of memory (latched). */
static const char *tx_str(tp_extras *x, const char *s, size_t len)
{
    if (x->oom || tp_grow((void **)&x->strs, &x->capstrs, x->nstrs + 1, sizeof *x->strs) != 0) {
        x->oom = 1;
        return NULL;
    }
    char *c = malloc(len + 1);
    if (!c) {
        x->oom = 1;
        return NULL;
    }
    memcpy(c, s, len);
    c[len] = 0;
    x->strs[x->nstrs++] = c;
    return c;
}

static int tx_starts(const char *l, size_t n, const char *pre)
{
    size_t k = strlen(pre);
    return n >= k && memcmp(l, pre, k) == 0;
}

static void tx_spaces(const char **p, const char *end)
{
    while (*p < end && **p == ' ')
        (*p)++;
}

/* An unsigned decimal (spaces before it skipped), at most `max`. */
static int tx_num(const char **p, const char *end, uint64_t max, uint64_t *v)
{
    tx_spaces(p, end);
    const char *s = *p;
    if (s == end || *s < '0' || *s > '9')
        return -1;
    uint64_t x = 0;
    while (s < end && *s >= '0' && *s <= '9') {
        if (x > (max - (uint64_t)(*s - '0')) / 10)
            return -1;
        x = x * 10 + (uint64_t)(*s - '0');
        s++;
    }
    *p = s;
    *v = x;
    return 0;
}

/* "D.DDD" (up to `places` decimals, more are dropped) as an integer in
 * units of 10^-places; a signed value is refused. */
static int tx_fixed(const char **p, const char *end, unsigned places, uint64_t *v)
{
    uint64_t ip;
    if (tx_num(p, end, UINT64_MAX / 1000000, &ip) != 0)
        return -1;
    uint64_t frac = 0;
    unsigned got = 0;
    const char *s = *p;
    if (s < end && *s == '.') {
        s++;
        while (s < end && *s >= '0' && *s <= '9') {
            if (got < places) {
                frac = frac * 10 + (uint64_t)(*s - '0');
                got++;
            }
            s++;
        }
    }
    for (; got < places; got++)
        frac *= 10;
    uint64_t scale = 1;
    for (unsigned i = 0; i < places; i++)
        scale *= 10;
    *p = s;
    *v = ip * scale + frac;
    return 0;
}

/* "12.34%" as 1234. */
static int tx_pct(const char **p, const char *end, uint32_t *bp)
{
    uint64_t v;
    if (tx_fixed(p, end, 2, &v) != 0 || *p == end || **p != '%' || v > UINT32_MAX)
        return -1;
    (*p)++;
    *bp = (uint32_t)v;
    return 0;
}

/* total_ms * bp / 10000 in microseconds, rounded, saturating. */
static uint64_t tx_share_us(uint64_t total_ms, uint32_t bp)
{
    if (total_ms > UINT64_MAX / 1000 / 10001)
        return UINT64_MAX;
    return (total_ms * 1000 * bp + 5000) / 10000;
}

/* "rank self% accum% count trace" shared by CPU TIME and MONITOR TIME rows;
 * *p is left after the trace. */
static int tx_rank_row(const char **p, const char *end, uint32_t *rank, uint32_t *bp,
                       uint64_t *count, uint32_t *trace)
{
    uint64_t r, t;
    uint32_t acc;
    if (tx_num(p, end, UINT32_MAX, &r) != 0 || tx_pct(p, end, bp) != 0 ||
        tx_pct(p, end, &acc) != 0 || tx_num(p, end, UINT64_MAX, count) != 0 ||
        tx_num(p, end, UINT32_MAX, &t) != 0)
        return -1;
    *rank = (uint32_t)r;
    *trace = (uint32_t)t;
    return 0;
}

static void tx_time_row(tp_extras *x, const char *l, size_t n, uint64_t total_ms)
{
    const char *p = l, *end = l + n;
    tp_time_row r;
    memset(&r, 0, sizeof r);
    r.section = x->times_sections - 1;
    if (tx_rank_row(&p, end, &r.rank, &r.self_bp, &r.calls, &r.trace) != 0) {
        x->skipped++;
        return;
    }
    /* ours: " method [self / total]" and maybe " waited W" */
    const char *open = NULL;
    for (const char *q = p; q < end; q++)
        if (*q == '[')
            open = q;
    if (open) {
        const char *q = open + 1;
        uint64_t s, t;
        if (tx_fixed(&q, end, 3, &s) == 0 && (tx_spaces(&q, end), q < end && *q == '/') &&
            (q++, tx_fixed(&q, end, 3, &t) == 0) && q < end && *q == ']') {
            r.self_us = s;
            r.total_us = t;
            r.has_ms = 1;
            q++;
            tx_spaces(&q, end);
            uint64_t w;
            if (tx_starts(q, (size_t)(end - q), "waited") && (q += 6, tx_fixed(&q, end, 3, &w) == 0))
                r.wait_us = w;
        }
    }
    if (!r.has_ms)
        r.self_us = tx_share_us(total_ms, r.self_bp);
    if (tp_grow((void **)&x->times, &x->captimes, x->ntimes + 1, sizeof *x->times) != 0) {
        x->oom = 1;
        return;
    }
    x->times[x->ntimes++] = r;
}

static void tx_monitor_row(tp_extras *x, const char *l, size_t n, uint64_t total_ms)
{
    const char *p = l, *end = l + n;
    tp_monitor_row r;
    memset(&r, 0, sizeof r);
    r.section = x->mons_sections - 1;
    if (tx_rank_row(&p, end, &r.rank, &r.self_bp, &r.count, &r.trace) != 0) {
        x->skipped++;
        return;
    }
    tx_spaces(&p, end);
    const char *e = end;
    if (e - p >= 7 && memcmp(e - 7, " (Java)", 7) == 0)
        e -= 7;
    r.monitor = tx_str(x, p, (size_t)(e - p));
    r.self_us = tx_share_us(total_ms, r.self_bp);
    if (!r.monitor)
        return;
    if (tp_grow((void **)&x->mons, &x->capmons, x->nmons + 1, sizeof *x->mons) != 0) {
        x->oom = 1;
        return;
    }
    x->mons[x->nmons++] = r;
}

/* Threads in "waiting to enter: thread 1, thread 2" */
static uint32_t tx_count_threads(const char *p, const char *end)
{
    uint32_t k = 0;
    for (; p + 6 <= end; p++)
        if (memcmp(p, "thread", 6) == 0)
            k++;
    return k;
}

static void tx_mdump_line(tp_extras *x, const char *l, size_t n, uint32_t section)
{
    const char *p = l, *end = l + n;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    size_t rest = (size_t)(end - p);
    if (tx_starts(p, rest, "THREAD ")) {
        uint64_t th, tr;
        p += 7;
        if (tx_num(&p, end, UINT32_MAX, &th) != 0 || !tx_starts(p, (size_t)(end - p), ", trace ")) {
            x->skipped++;
            return;
        }
        p += 8;
        if (tx_num(&p, end, UINT32_MAX, &tr) != 0 ||
            !tx_starts(p, (size_t)(end - p), ", status: ")) {
            x->skipped++;
            return;
        }
        p += 10;
        tp_mdump_thread t = {section, (uint32_t)th, (uint32_t)tr, tx_str(x, p, (size_t)(end - p))};
        if (!t.status)
            return;
        if (tp_grow((void **)&x->mthreads, &x->capmthreads, x->nmthreads + 1, sizeof *x->mthreads)) {
            x->oom = 1;
            return;
        }
        x->mthreads[x->nmthreads++] = t;
    } else if (tx_starts(p, rest, "MONITOR ")) {
        p += 8;
        const char *e = end;
        if (e - p >= 8 && memcmp(e - 8, " unowned", 8) == 0)
            e -= 8;
        tp_mdump_monitor m;
        memset(&m, 0, sizeof m);
        m.section = section;
        m.monitor = tx_str(x, p, (size_t)(e - p));
        if (!m.monitor)
            return;
        if (tp_grow((void **)&x->mmons, &x->capmmons, x->nmmons + 1, sizeof *x->mmons)) {
            x->oom = 1;
            return;
        }
        x->mmons[x->nmmons++] = m;
    } else if (x->nmmons && x->mmons[x->nmmons - 1].section == section) {
        tp_mdump_monitor *m = &x->mmons[x->nmmons - 1];
        if (tx_starts(p, rest, "owner: thread ")) {
            uint64_t th, ec = 0;
            p += 14;
            if (tx_num(&p, end, UINT32_MAX, &th) != 0) {
                x->skipped++;
                return;
            }
            m->owner = (uint32_t)th;
            if (tx_starts(p, (size_t)(end - p), ", entry count: ")) {
                p += 15;
                if (tx_num(&p, end, INT32_MAX, &ec) == 0)
                    m->entry_count = (int32_t)ec;
            }
        } else if (tx_starts(p, rest, "waiting to enter:")) {
            m->waiting_enter = tx_count_threads(p + 17, end);
        } else if (tx_starts(p, rest, "waiting to be notified:")) {
            m->waiting_notify = tx_count_threads(p + 23, end);
        } else if (rest) {
            x->skipped++;
        }
    } else if (rest) {
        x->skipped++;
    }
}

/* "WAIT: MONITOR sig, timeout=N, thread T" / "WAITED: MONITOR sig, time_waited=N, thread T" */
static void tx_wait_line(tp_extras *x, const char *l, size_t n, int waited)
{
    const char *p = l + (waited ? 16 : 14), *end = l + n;
    const char *key = waited ? ", time_waited=" : ", timeout=";
    size_t kl = strlen(key);
    const char *k = NULL;
    for (const char *q = end - kl; q >= p; q--)
        if (memcmp(q, key, kl) == 0) {
            k = q;
            break;
        }
    if (!k) {
        x->skipped++;
        return;
    }
    const char *q = k + kl;
    int neg = q < end && *q == '-';
    q += neg;
    uint64_t v, th;
    if (tx_num(&q, end, INT64_MAX, &v) != 0 || !tx_starts(q, (size_t)(end - q), ", thread ") ||
        (q += 9, tx_num(&q, end, UINT32_MAX, &th) != 0)) {
        x->skipped++;
        return;
    }
    tp_wait w = {tx_str(x, p, (size_t)(k - p)), waited, neg ? -(int64_t)v : (int64_t)v, (uint32_t)th};
    if (!w.monitor)
        return;
    if (tp_grow((void **)&x->waits, &x->capwaits, x->nwaits + 1, sizeof *x->waits)) {
        x->oom = 1;
        return;
    }
    x->waits[x->nwaits++] = w;
}

/* "SITES BEGIN (ordered by live bytes, estimated from samples every N
 * bytes; <note>) <date>" */
static void tx_sites_begin(tp_extras *x, const char *l, size_t n)
{
    tp_sites_note s;
    memset(&s, 0, sizeof s);
    const char *end = l + n;
    s.by_alloc = tx_starts(l, n, "SITES BEGIN (ordered by allocated");
    const char *close = memchr(l, ')', n);
    const char *hdr_end = close ? close : end;
    static const char est[] = ", estimated from samples every ";
    size_t el = sizeof est - 1;
    for (const char *q = l; q + el <= hdr_end; q++)
        if (memcmp(q, est, el) == 0) {
            const char *v = q + el;
            uint64_t b;
            if (tx_num(&v, hdr_end, UINT64_MAX, &b) == 0)
                s.sample_bytes = b;
            break;
        }
    const char *semi = memchr(l, ';', (size_t)(hdr_end - l));
    if (semi) {
        const char *b = semi + 1;
        tx_spaces(&b, hdr_end);
        s.live_note = tx_str(x, b, (size_t)(hdr_end - b));
    }
    if (tp_grow((void **)&x->sites, &x->capsites, x->nsites + 1, sizeof *x->sites)) {
        x->oom = 1;
        return;
    }
    x->sites[x->nsites++] = s;
}

/* A SITES row's "  [N sample(s), M live]" suffix. */
static void tx_sites_row(tp_extras *x, const char *l, size_t n)
{
    if (!x->nsites || !n || l[n - 1] != ']')
        return;
    const char *open = NULL;
    for (const char *q = l + n - 1; q > l; q--)
        if (*q == '[') {
            open = q;
            break;
        }
    if (!open)
        return;
    const char *p = open + 1, *end = l + n - 1;
    uint64_t a, lv;
    if (tx_num(&p, end, UINT64_MAX, &a) != 0)
        return;
    const char *c = memchr(p, ',', (size_t)(end - p));
    if (!c)
        return;
    p = c + 1;
    if (tx_num(&p, end, UINT64_MAX, &lv) != 0)
        return;
    tp_sites_note *s = &x->sites[x->nsites - 1];
    s->samples = s->samples > UINT64_MAX - a ? UINT64_MAX : s->samples + a;
    s->live_samples = s->live_samples > UINT64_MAX - lv ? UINT64_MAX : s->live_samples + lv;
}

static uint64_t tx_hash(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

/* The heap row of a class name, made when new; NULL when out of memory. */
static tp_heap_class *tx_heap_row(tp_extras *x, const char *s, size_t len)
{
    if ((x->nheap + 1) * 2 > x->nheap_slots) {
        size_t ns = x->nheap_slots ? x->nheap_slots * 2 : 256;
        uint32_t *sl = calloc(ns, sizeof *sl);
        if (!sl) {
            x->oom = 1;
            return NULL;
        }
        for (size_t i = 0; i < x->nheap; i++) {
            size_t h = (size_t)tx_hash(x->heap[i].name, strlen(x->heap[i].name)) & (ns - 1);
            while (sl[h])
                h = (h + 1) & (ns - 1);
            sl[h] = (uint32_t)i + 1;
        }
        free(x->heap_slots);
        x->heap_slots = sl;
        x->nheap_slots = ns;
    }
    size_t h = (size_t)tx_hash(s, len) & (x->nheap_slots - 1);
    while (x->heap_slots[h]) {
        tp_heap_class *c = &x->heap[x->heap_slots[h] - 1];
        if (strncmp(c->name, s, len) == 0 && c->name[len] == 0)
            return c;
        h = (h + 1) & (x->nheap_slots - 1);
    }
    if (x->nheap >= UINT32_MAX - 1 ||
        tp_grow((void **)&x->heap, &x->capheap, x->nheap + 1, sizeof *x->heap)) {
        x->oom = 1;
        return NULL;
    }
    tp_heap_class *c = &x->heap[x->nheap];
    c->name = tx_str(x, s, len);
    if (!c->name)
        return NULL;
    c->count = c->bytes = 0;
    x->heap_slots[h] = (uint32_t)++x->nheap;
    return c;
}

/* The binary root tag of a text ROOT line's kind=<...>. */
static unsigned tx_root_tag(const char *k, size_t n)
{
    static const struct {
        const char *kind;
        unsigned tag;
    } kinds[] = {
        {"thread", HPROF_GC_ROOT_THREAD_OBJ},         {"JNI global ref", HPROF_GC_ROOT_JNI_GLOBAL},
        {"JNI local ref", HPROF_GC_ROOT_JNI_LOCAL},   {"Java stack", HPROF_GC_ROOT_JAVA_FRAME},
        {"JNI monitor", HPROF_GC_ROOT_JNI_MONITOR},   {"native stack", HPROF_GC_ROOT_NATIVE_STACK},
        {"thread block", HPROF_GC_ROOT_THREAD_BLOCK}, {"system class", HPROF_GC_ROOT_STICKY_CLASS},
        {"busy monitor", HPROF_GC_ROOT_MONITOR_USED}, {"interned string", HPROF_GC_ROOT_INTERNED_STRING},
        {"finalizing", HPROF_GC_ROOT_FINALIZING},     {"debugger", HPROF_GC_ROOT_DEBUGGER},
        {"reference cleanup", HPROF_GC_ROOT_REFERENCE_CLEANUP},
        {"VM internal", HPROF_GC_ROOT_VM_INTERNAL},   {"unreachable", HPROF_GC_ROOT_UNREACHABLE},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strlen(kinds[i].kind) == n && memcmp(kinds[i].kind, k, n) == 0)
            return kinds[i].tag;
    return HPROF_GC_ROOT_UNKNOWN;
}

/* A heap dump's line: "ROOT id (kind=<K>...", "OBJ id (sz=N, trace=T,
 * class=C@id)", "ARR id (sz=N, trace=T, nelems=E, elem type=C[]@id)" or
 * "... elem type=int[])". Field lines and CLS are not counted. */
static void tx_heap_line(tp_extras *x, const char *l, size_t n)
{
    const char *end = l + n;
    if (tx_starts(l, n, "ROOT ")) {
        const char *k = NULL;
        for (const char *q = l; q + 6 <= end; q++)
            if (memcmp(q, "kind=<", 6) == 0) {
                k = q + 6;
                break;
            }
        const char *ke = k ? memchr(k, '>', (size_t)(end - k)) : NULL;
        if (!ke) {
            x->skipped++;
            return;
        }
        x->roots[tx_root_tag(k, (size_t)(ke - k))]++;
        return;
    }
    int obj = tx_starts(l, n, "OBJ ");
    if (!obj && !tx_starts(l, n, "ARR "))
        return;
    const char *sz = NULL, *cls = NULL;
    const char *ck = obj ? ", class=" : ", elem type=";
    size_t ckl = strlen(ck);
    for (const char *q = l; q + 4 <= end && !sz; q++)
        if (memcmp(q, "(sz=", 4) == 0)
            sz = q + 4;
    for (const char *q = sz ? sz : end; q + ckl <= end && !cls; q++)
        if (memcmp(q, ck, ckl) == 0)
            cls = q + ckl;
    uint64_t bytes;
    if (!sz || !cls || tx_num(&sz, end, UINT64_MAX, &bytes) != 0 || end[-1] != ')') {
        x->skipped++;
        return;
    }
    const char *ce = end - 1;
    for (const char *q = ce; q > cls; q--)
        if (*q == '@') {
            ce = q;
            break;
        }
    tp_heap_class *c = tx_heap_row(x, cls, (size_t)(ce - cls));
    if (!c)
        return;
    c->count++;
    c->bytes = c->bytes > UINT64_MAX - bytes ? UINT64_MAX : c->bytes + bytes;
}

enum { TX_NONE, TX_TIME, TX_MON, TX_MDUMP, TX_SITES, TX_HEAP, TX_OTHER };

int tp_extras_parse(const char *text, size_t len, tp_extras **out, char *err, size_t errcap)
{
    *out = NULL;
    if (!tp_is_text(text, len)) {
        snprintf(err, errcap, "not the text layout (no \"JAVA PROFILE 1.0.x, created\" line)");
        return -1;
    }
    tp_extras *x = calloc(1, sizeof *x);
    if (!x) {
        snprintf(err, errcap, "out of memory");
        return -1;
    }
    int state = TX_NONE;
    const char *other_end = NULL;
    uint64_t total = 0;
    uint32_t mdumps = 0;
    /* the prelude (ours: a legend; the original's: jvm.hprof.txt) ends with
     * a line "--------", as tp_text reads it: nothing before is a record */
    size_t pos = 0;
    for (size_t i = 0; i + 10 <= len; i++)
        if (memcmp(text + i, "\n--------\n", 10) == 0) {
            pos = i + 10;
            break;
        }
    while (pos < len && !x->oom) {
        const char *l = text + pos;
        const char *e = memchr(l, '\n', len - pos);
        size_t n = e ? (size_t)(e - l) : len - pos;
        pos += n + 1;
        if (n && l[n - 1] == '\r')
            n--;
        switch (state) {
        case TX_TIME:
            if (tx_starts(l, n, "CPU TIME (ms) END"))
                state = TX_NONE;
            else if (!tx_starts(l, n, "rank "))
                tx_time_row(x, l, n, total);
            continue;
        case TX_MON:
            if (tx_starts(l, n, "MONITOR TIME END"))
                state = TX_NONE;
            else if (!tx_starts(l, n, "rank "))
                tx_monitor_row(x, l, n, total);
            continue;
        case TX_MDUMP:
            if (tx_starts(l, n, "MONITOR DUMP END"))
                state = TX_NONE;
            else
                tx_mdump_line(x, l, n, mdumps - 1);
            continue;
        case TX_SITES:
            if (tx_starts(l, n, "SITES END"))
                state = TX_NONE;
            else
                tx_sites_row(x, l, n);
            continue;
        case TX_HEAP:
            if (tx_starts(l, n, "HEAP DUMP END"))
                state = TX_NONE;
            else
                tx_heap_line(x, l, n);
            continue;
        case TX_OTHER:
            if (tx_starts(l, n, other_end))
                state = TX_NONE;
            continue;
        default:
            break;
        }
        if (tx_starts(l, n, "CPU TIME (ms) BEGIN (total = ")) {
            const char *p = l + 29;
            if (tx_num(&p, l + n, UINT64_MAX, &total) != 0)
                total = 0;
            x->times_total_ms = x->times_total_ms > UINT64_MAX - total ? UINT64_MAX : x->times_total_ms + total;
            x->times_sections++;
            state = TX_TIME;
        } else if (tx_starts(l, n, "MONITOR TIME BEGIN (total = ")) {
            const char *p = l + 28;
            if (tx_num(&p, l + n, UINT64_MAX, &total) != 0)
                total = 0;
            x->mons_total_ms = x->mons_total_ms > UINT64_MAX - total ? UINT64_MAX : x->mons_total_ms + total;
            x->mons_sections++;
            state = TX_MON;
        } else if (tx_starts(l, n, "MONITOR DUMP BEGIN")) {
            mdumps++;
            state = TX_MDUMP;
        } else if (tx_starts(l, n, "SITES BEGIN ")) {
            tx_sites_begin(x, l, n);
            state = TX_SITES;
        } else if (tx_starts(l, n, "WAIT: MONITOR ")) {
            tx_wait_line(x, l, n, 0);
        } else if (tx_starts(l, n, "WAITED: MONITOR ")) {
            tx_wait_line(x, l, n, 1);
        } else if (tx_starts(l, n, "HEAP DUMP BEGIN")) {
            x->heap_dumps++;
            state = TX_HEAP;
        } else if (tx_starts(l, n, "CPU SAMPLES BEGIN")) {
            other_end = "CPU SAMPLES END";
            state = TX_OTHER;
        }
    }
    if (x->oom) {
        tp_extras_free(x);
        snprintf(err, errcap, "out of memory");
        return -1;
    }
    *out = x;
    return 0;
}

void tp_extras_free(tp_extras *x)
{
    if (!x)
        return;
    for (size_t i = 0; i < x->nstrs; i++)
        free(x->strs[i]);
    free(x->strs);
    free(x->times);
    free(x->mons);
    free(x->mthreads);
    free(x->mmons);
    free(x->waits);
    free(x->sites);
    free(x->heap);
    free(x->heap_slots);
    free(x);
}

const tp_time_row *tp_extras_times(const tp_extras *x, size_t *n)
{
    *n = x->ntimes;
    return x->times;
}

uint64_t tp_extras_times_total_ms(const tp_extras *x, uint32_t *sections)
{
    if (sections)
        *sections = x->times_sections;
    return x->times_total_ms;
}

const tp_monitor_row *tp_extras_monitors(const tp_extras *x, size_t *n)
{
    *n = x->nmons;
    return x->mons;
}

uint64_t tp_extras_monitors_total_ms(const tp_extras *x, uint32_t *sections)
{
    if (sections)
        *sections = x->mons_sections;
    return x->mons_total_ms;
}

const tp_mdump_thread *tp_extras_mdump_threads(const tp_extras *x, size_t *n)
{
    *n = x->nmthreads;
    return x->mthreads;
}

const tp_mdump_monitor *tp_extras_mdump_monitors(const tp_extras *x, size_t *n)
{
    *n = x->nmmons;
    return x->mmons;
}

const tp_wait *tp_extras_waits(const tp_extras *x, size_t *n)
{
    *n = x->nwaits;
    return x->waits;
}

const tp_sites_note *tp_extras_sites(const tp_extras *x, size_t *n)
{
    *n = x->nsites;
    return x->sites;
}

uint32_t tp_extras_skipped(const tp_extras *x)
{
    return x->skipped;
}

const tp_heap_class *tp_extras_heap(const tp_extras *x, size_t *n)
{
    *n = x->nheap;
    return x->heap;
}

uint32_t tp_extras_heap_dumps(const tp_extras *x)
{
    return x->heap_dumps;
}

const uint64_t *tp_extras_roots(const tp_extras *x)
{
    return x->roots;
}

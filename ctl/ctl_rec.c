/*
 * ctl_rec.c: the lines shown for an agent's records and text sections
 * (ctl_rec.h). Records are decoded from their kept bytes only; a record
 * whose length does not match its layout is shown as malformed, never read
 * past.
 */
#include "ctl_rec.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_util.h"
#include "hprof/hprof_format.h"
#include "hprof/hr_reader.h"

#define CTL_DECODE_MAX (16u << 20) /* bytes of one small record kept for display */
#define CTL_TOP_SAMPLES 3u

/* Fixed layouts of the small records hprof-ctl decodes (bytes after the
 * record header; `id` is the stream's id size). */
#define CTL_LOAD_CLASS_SIZE(id) (8u + 2u * (id))     /* u4 serial, id, u4 trace, id name */
#define CTL_FRAME_SIZE(id) (4u * (id) + 8u)          /* 4 ids, u4 class serial, i4 line */
#define CTL_TRACE_FIXED 12u                          /* u4 serial, u4 thread, u4 nframes */
#define CTL_START_THREAD_SIZE(id) (8u + 4u * (id))   /* u4, id, u4, 3 ids */
#define CTL_U4_RECORD_SIZE 4u                        /* UNLOAD CLASS, END THREAD */
#define CTL_ALLOC_SITES_FIXED 34u /* u2 flags, f4 cutoff, u4 u4 live, u8 u8 alloc, u4 n */
#define CTL_ALLOC_SITE_SIZE 25u   /* u1 array type, 6 x u4 */
#define CTL_HEAP_SUMMARY_SIZE 24u /* u4 u4 u8 u8 */
#define CTL_CPU_SAMPLES_FIXED 8u  /* u4 total, u4 n */
#define CTL_CPU_SAMPLE_SIZE 8u    /* u4 count, u4 trace */
#define CTL_CONTROL_SIZE 6u       /* u4 flags, u2 depth */

int ctl_rec_init(ctl_rec *r, unsigned k, ctl_show *show)
{
    memset(r, 0, sizeof *r);
    r->k = k;
    r->show = show;
    r->names = ctl_names_new();
    return r->names ? 0 : -1;
}

void ctl_rec_cleanup(ctl_rec *r)
{
    ctl_names_free(r->names);
    r->names = NULL;
}

static void ctl_rec_say(ctl_rec *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ctl_rec_say(ctl_rec *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ctl_show_vline(r->show, r->k, fmt, ap);
    va_end(ap);
}

/* Odd records (malformed, unknown) are shown, but only the first few: a
 * stream that has lost its framing would otherwise flood the terminal. */
int ctl_rec_odd(ctl_rec *r)
{
    if (r->problems_shown == CTL_PROBLEMS_SHOWN) {
        r->problems_shown++;
        ctl_rec_say(r, "(further odd records of this agent are not shown)");
        return 0;
    }
    return r->problems_shown++ < CTL_PROBLEMS_SHOWN;
}

static int ctl_rec_is_message(const uint8_t *text, size_t len)
{
    size_t n = strlen(CTL_MESSAGE_PREFIX);
    return len > n && memcmp(text, CTL_MESSAGE_PREFIX, n) == 0 &&
           (text[n] == ' ' || text[n] == ':');
}

/* Shows the held messages, except a thread's names (ids in `names`). */
static void ctl_rec_held_show(ctl_rec *r, const uint64_t *names, unsigned nnames)
{
    for (unsigned i = 0; i < r->nheld; i++) {
        int is_name = 0;
        for (unsigned j = 0; j < nnames; j++)
            is_name |= names[j] == r->held[i];
        char msg[CTL_NAME_MAX + 1];
        if (!is_name)
            ctl_rec_say(r, "message: %s",
                        ctl_names_utf8(r->names, r->held[i], 0, msg, sizeof msg, "?"));
    }
    r->nheld = 0;
}

static void ctl_rec_malformed(ctl_rec *r, const char *name, uint64_t need)
{
    if (ctl_rec_odd(r))
        ctl_rec_say(r, "%s: malformed record, length %" PRIu32 " (its layout needs %" PRIu64 ")",
                    name, r->len, need);
}

static void ctl_rec_alloc_sites(ctl_rec *r, const uint8_t *b, size_t have)
{
    uint16_t flags = hr_get_u2(b);
    uint32_t cutoff_bits = hr_get_u4(b + 2);
    float cutoff;
    memcpy(&cutoff, &cutoff_bits, sizeof cutoff);
    uint32_t live_bytes = hr_get_u4(b + 6), live_inst = hr_get_u4(b + 10);
    uint64_t alloc_bytes = hr_get_u8(b + 14), alloc_inst = hr_get_u8(b + 22);
    uint32_t nsites = hr_get_u4(b + 30);
    char fl[64] = "";
    snprintf(fl, sizeof fl, "%s%s%s", flags & HPROF_SITES_INCREMENTAL ? ", incremental" : "",
             flags & HPROF_SITES_SORT_BY_ALLOC ? ", by alloc" : "",
             flags & HPROF_SITES_FORCE_GC ? ", gc" : "");
    char top[CTL_SHOW_MAX / 2] = "";
    if (nsites && have >= CTL_ALLOC_SITES_FIXED + CTL_ALLOC_SITE_SIZE) {
        const uint8_t *s = b + CTL_ALLOC_SITES_FIXED;
        uint8_t atype = s[0];
        uint32_t cls = hr_get_u4(s + 1), trace = hr_get_u4(s + 5);
        char nbuf[CTL_NAME_MAX + 1];
        const char *name = ctl_names_class(r->names, cls, nbuf, sizeof nbuf);
        if (!name && atype) {
            const char *t = hprof_type_name(atype);
            snprintf(nbuf, sizeof nbuf, "%s[]", t ? t : "?");
            name = nbuf;
        }
        snprintf(top, sizeof top, "; top: %s (trace %" PRIu32 ") %" PRIu32 " live bytes in %" PRIu32
                 " instances",
                 name ? name : "?", trace, hr_get_u4(s + 9), hr_get_u4(s + 13));
    }
    ctl_rec_say(r,
                "ALLOC SITES: %" PRIu32 " sites (cutoff %g%s), live %" PRIu32 " bytes in %" PRIu32
                " instances, allocated %" PRIu64 " bytes in %" PRIu64 " instances%s",
                nsites, (double)cutoff, fl, live_bytes, live_inst, alloc_bytes, alloc_inst, top);
}

static void ctl_rec_cpu_samples(ctl_rec *r, const uint8_t *b, size_t have)
{
    uint32_t total = hr_get_u4(b), n = hr_get_u4(b + 4);
    size_t avail = (have - CTL_CPU_SAMPLES_FIXED) / CTL_CPU_SAMPLE_SIZE;
    if (avail > n)
        avail = n;
    /* the top entries by count, the earlier first on ties */
    size_t best[CTL_TOP_SAMPLES];
    unsigned nbest = 0;
    for (size_t i = 0; i < avail; i++) {
        uint32_t cnt = hr_get_u4(b + CTL_CPU_SAMPLES_FIXED + i * CTL_CPU_SAMPLE_SIZE);
        unsigned pos = nbest;
        while (pos > 0 &&
               hr_get_u4(b + CTL_CPU_SAMPLES_FIXED + best[pos - 1] * CTL_CPU_SAMPLE_SIZE) < cnt)
            pos--;
        if (pos >= CTL_TOP_SAMPLES)
            continue;
        unsigned last = nbest < CTL_TOP_SAMPLES ? nbest : CTL_TOP_SAMPLES - 1;
        memmove(best + pos + 1, best + pos, (last - pos) * sizeof best[0]);
        best[pos] = i;
        if (nbest < CTL_TOP_SAMPLES)
            nbest++;
    }
    char top[CTL_SHOW_MAX / 2] = "";
    size_t len = 0;
    for (unsigned i = 0; i < nbest && len < sizeof top; i++) {
        const uint8_t *e = b + CTL_CPU_SAMPLES_FIXED + best[i] * CTL_CPU_SAMPLE_SIZE;
        char fbuf[2 * CTL_NAME_MAX + 2];
        uint32_t trace = hr_get_u4(e + 4);
        int w = snprintf(top + len, sizeof top - len, "%s%" PRIu32 " trace %" PRIu32 " %s",
                         i ? ", " : "; top: ", hr_get_u4(e), trace,
                         ctl_names_trace_top(r->names, trace, fbuf, sizeof fbuf));
        if (w < 0)
            break;
        len += (size_t)w;
    }
    ctl_rec_say(r, "CPU SAMPLES: total %" PRIu32 ", %" PRIu32 " traces%s", total, n, top);
}

void ctl_rec_show(ctl_rec *r, uint8_t tag, uint32_t len, const uint8_t *b, size_t have,
                  size_t keep, unsigned id)
{
    r->tag = tag;
    r->len = len;
    const char *name = hprof_tag_name(tag);
    char n1[CTL_NAME_MAX + 1], n2[CTL_NAME_MAX + 1];
    if (!name) {
        if (ctl_rec_odd(r))
            ctl_rec_say(r, "unknown record tag 0x%02x, %" PRIu32 " bytes: written as is", tag,
                        len);
        return;
    }
    if (have < keep) {
        ctl_rec_say(r, "%s: not decoded (out of memory)", name);
        return;
    }
    switch (tag) {
    case HPROF_TAG_UTF8:
        if (len < id) {
            ctl_rec_malformed(r, name, id);
            return;
        }
        if (ctl_rec_is_message(b + id, have - id)) {
            size_t n = have - id; /* a message's line end is not part of it */
            while (n && (b[id + n - 1] == '\n' || b[id + n - 1] == '\r'))
                n--;
            if (r->nheld == CTL_MESSAGES_HELD)
                ctl_rec_held_show(r, NULL, 0);
            ctl_names_put_utf8(r->names, hr_get_id(b, id), b + id, n);
            r->held[r->nheld++] = hr_get_id(b, id);
            return;
        }
        ctl_names_put_utf8(r->names, hr_get_id(b, id), b + id, have - id);
        return;
    case HPROF_TAG_LOAD_CLASS:
        if (len != CTL_LOAD_CLASS_SIZE(id)) {
            ctl_rec_malformed(r, name, CTL_LOAD_CLASS_SIZE(id));
            return;
        }
        ctl_names_put_class(r->names, hr_get_u4(b), hr_get_id(b + 8 + id, id));
        return;
    case HPROF_TAG_UNLOAD_CLASS: {
        if (len != CTL_U4_RECORD_SIZE) {
            ctl_rec_malformed(r, name, CTL_U4_RECORD_SIZE);
            return;
        }
        const char *cn = ctl_names_class(r->names, hr_get_u4(b), n1, sizeof n1);
        ctl_rec_say(r, "UNLOAD CLASS %" PRIu32 " %s", hr_get_u4(b), cn ? cn : "?");
        return;
    }
    case HPROF_TAG_FRAME:
        if (len != CTL_FRAME_SIZE(id)) {
            ctl_rec_malformed(r, name, CTL_FRAME_SIZE(id));
            return;
        }
        ctl_names_put_frame(r->names, hr_get_id(b, id), hr_get_id(b + id, id),
                            hr_get_u4(b + 4 * id));
        return;
    case HPROF_TAG_TRACE: {
        uint32_t nframes = len >= CTL_TRACE_FIXED ? hr_get_u4(b + 8) : 0;
        uint64_t need = CTL_TRACE_FIXED + (uint64_t)nframes * id;
        if (len != need) {
            ctl_rec_malformed(r, name, need < CTL_TRACE_FIXED ? CTL_TRACE_FIXED : need);
            return;
        }
        if (nframes)
            ctl_names_put_trace(r->names, hr_get_u4(b), hr_get_id(b + CTL_TRACE_FIXED, id));
        return;
    }
    case HPROF_TAG_START_THREAD: {
        if (len != CTL_START_THREAD_SIZE(id)) {
            ctl_rec_held_show(r, NULL, 0);
            ctl_rec_malformed(r, name, CTL_START_THREAD_SIZE(id));
            return;
        }
        uint32_t serial = hr_get_u4(b);
        uint64_t obj = hr_get_id(b + 4, id), tname = hr_get_id(b + 8 + id, id);
        const uint64_t names[] = { tname, hr_get_id(b + 8 + 2 * id, id),
                                   hr_get_id(b + 8 + 3 * id, id) };
        ctl_rec_held_show(r, names, sizeof names / sizeof names[0]);
        ctl_names_put_thread_obj(r->names, serial, obj);
        ctl_names_put_thread_name(r->names, serial, tname);
        ctl_rec_say(r, "START THREAD %" PRIu32 " \"%s\" (object 0x%" PRIx64 ", group \"%s\")",
                    serial, ctl_names_utf8(r->names, tname, 0, n1, sizeof n1, "?"), obj,
                    ctl_names_utf8(r->names, hr_get_id(b + 8 + 2 * id, id), 0, n2, sizeof n2, "?"));
        return;
    }
    case HPROF_TAG_END_THREAD: {
        if (len != CTL_U4_RECORD_SIZE) {
            ctl_rec_malformed(r, name, CTL_U4_RECORD_SIZE);
            return;
        }
        uint32_t serial = hr_get_u4(b);
        uint64_t tname;
        const char *tn = ctl_names_thread_name(r->names, serial, &tname)
                             ? ctl_names_utf8(r->names, tname, 0, n1, sizeof n1, "?")
                             : "?";
        ctl_rec_say(r, "END THREAD %" PRIu32 " \"%s\"", serial, tn);
        return;
    }
    case HPROF_TAG_ALLOC_SITES: {
        uint64_t nsites = len >= CTL_ALLOC_SITES_FIXED ? hr_get_u4(b + 30) : 0;
        uint64_t need = CTL_ALLOC_SITES_FIXED + nsites * CTL_ALLOC_SITE_SIZE;
        if (len != need) {
            ctl_rec_malformed(r, name, need);
            return;
        }
        ctl_rec_alloc_sites(r, b, have);
        return;
    }
    case HPROF_TAG_HEAP_SUMMARY:
        if (len != CTL_HEAP_SUMMARY_SIZE) {
            ctl_rec_malformed(r, name, CTL_HEAP_SUMMARY_SIZE);
            return;
        }
        ctl_rec_say(r,
                    "HEAP SUMMARY: live %" PRIu32 " bytes in %" PRIu32
                    " instances, allocated %" PRIu64 " bytes in %" PRIu64 " instances",
                    hr_get_u4(b), hr_get_u4(b + 4), hr_get_u8(b + 8), hr_get_u8(b + 16));
        return;
    case HPROF_TAG_CPU_SAMPLES: {
        uint64_t nsamples = len >= CTL_CPU_SAMPLES_FIXED ? hr_get_u4(b + 4) : 0;
        uint64_t need = CTL_CPU_SAMPLES_FIXED + nsamples * CTL_CPU_SAMPLE_SIZE;
        if (len != need) {
            ctl_rec_malformed(r, name, need);
            return;
        }
        ctl_rec_cpu_samples(r, b, have);
        return;
    }
    case HPROF_TAG_CONTROL_SETTINGS: {
        if (len != CTL_CONTROL_SIZE) {
            ctl_rec_malformed(r, name, CTL_CONTROL_SIZE);
            return;
        }
        uint32_t flags = hr_get_u4(b);
        ctl_rec_say(r,
                    "CONTROL SETTINGS: flags 0x%" PRIx32 " (alloc traces %s, cpu sampling %s), "
                    "depth %u",
                    flags, flags & HPROF_CTRL_ALLOC_TRACES ? "on" : "off",
                    flags & HPROF_CTRL_CPU_SAMPLING ? "on" : "off", (unsigned)hr_get_u2(b + 4));
        return;
    }
    default:
        return;
    }
}

/* How many body bytes of a record with this tag are kept for decoding. */
size_t ctl_rec_keep_size(uint8_t tag, uint32_t len, unsigned id)
{
    size_t cap;
    switch (tag) {
    case HPROF_TAG_UTF8:
        cap = id + CTL_NAME_MAX; /* the id and the start of the text */
        break;
    case HPROF_TAG_LOAD_CLASS:
    case HPROF_TAG_UNLOAD_CLASS:
    case HPROF_TAG_FRAME:
    case HPROF_TAG_START_THREAD:
    case HPROF_TAG_END_THREAD:
    case HPROF_TAG_HEAP_SUMMARY:
    case HPROF_TAG_CONTROL_SETTINGS:
        cap = CTL_START_THREAD_SIZE(8u); /* larger than any of them when well formed */
        break;
    case HPROF_TAG_TRACE:
        cap = CTL_TRACE_FIXED + 8u; /* the top frame is all that is shown */
        break;
    case HPROF_TAG_ALLOC_SITES:
    case HPROF_TAG_CPU_SAMPLES:
        cap = CTL_DECODE_MAX;
        break;
    default:
        return 0;
    }
    return len < cap ? len : cap;
}

void ctl_rec_begin(ctl_rec *r, uint8_t tag)
{
    /* only names and the START THREAD that uses them come between a
     * thread's name and its START THREAD */
    if (r->nheld && tag != HPROF_TAG_UTF8 && tag != HPROF_TAG_START_THREAD)
        ctl_rec_held_show(r, NULL, 0);
}

void ctl_rec_messages(ctl_rec *r)
{
    ctl_rec_held_show(r, NULL, 0);
}


static const char *const ctl_text_sections[] = {
    "SITES BEGIN",   "CPU SAMPLES BEGIN", "CPU TIME",    "HEAP DUMP BEGIN", "MONITOR DUMP BEGIN",
    "MONITOR TIME BEGIN", "HEAP SUMMARY", "THREAD START", "THREAD END", "HPROF", "JAVA PROFILE",
    "HEAP DUMP INCOMPLETE", /* a dump the agent could not finish: say so at once */
};

void ctl_rec_text(ctl_rec *r, const char *line, size_t n)
{
    for (size_t i = 0; i < sizeof ctl_text_sections / sizeof ctl_text_sections[0]; i++) {
        const char *s = ctl_text_sections[i];
        if (strncmp(line, s, strlen(s)) != 0)
            continue;
        unsigned long long obj;
        unsigned serial;
        /* thread serials map to object ids for `cpu on SERIAL` */
        if (sscanf(line, "THREAD START (obj=%llx, id = %u", &obj, &serial) == 2)
            ctl_names_put_thread_obj(r->names, serial, obj);
        char clean[CTL_LINE_MAX];
        ctl_util_clean(clean, sizeof clean, line, n, 0);
        ctl_rec_say(r, "%s", clean);
        return;
    }
}

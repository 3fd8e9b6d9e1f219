/*
 * hc_proto.c: encoding and decoding of the net= command protocol (see
 * hc_proto.h). Pure functions over byte buffers: no I/O, no allocation.
 */
#include "hc_proto.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void put_u2(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static void put_u4(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static uint16_t get_u2(const uint8_t *p)
{
    return (uint16_t)((p[0] << 8) | p[1]);
}

static uint32_t get_u4(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static uint32_t float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float bits_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static int cutoff_ok(float f)
{
    return isfinite(f) && f >= 0.0f && f <= 1.0f;
}

const char *hc_tag_name(uint8_t tag)
{
    switch (tag) {
    case HC_FORCE_GC: return "FORCE GC";
    case HC_DUMP_HEAP: return "DUMP HEAP";
    case HC_ALLOC_SITES: return "ALLOC SITES";
    case HC_HEAP_SUMMARY: return "HEAP SUMMARY";
    case HC_EXIT: return "EXIT";
    case HC_DUMP_TRACES: return "DUMP TRACES";
    case HC_CPU_SAMPLES: return "CPU SAMPLES";
    case HC_CONTROL: return "CONTROL";
    case HC_EOF: return "EOF";
    default: return NULL;
    }
}

const char *hc_name(const hc_cmd *c)
{
    if (c->tag == HC_CONTROL) {
        switch (c->control) {
        case HC_CTL_ALLOC_ON: return "CONTROL ALLOC ON";
        case HC_CTL_ALLOC_OFF: return "CONTROL ALLOC OFF";
        case HC_CTL_CPU_ON: return "CONTROL CPU ON";
        case HC_CTL_CPU_OFF: return "CONTROL CPU OFF";
        case HC_CTL_CLEAR_SAMPLES: return "CONTROL CLEAR SAMPLES";
        case HC_CTL_CLEAR_SITES: return "CONTROL CLEAR SITES";
        case HC_CTL_SET_DEPTH: return "CONTROL SET DEPTH";
        default: return "CONTROL ?";
        }
    }
    const char *n = hc_tag_name(c->tag);
    return n ? n : "?";
}

/* The payload size of a valid command (0 for none), or -1 if invalid. */
static long payload_size(const hc_cmd *c)
{
    switch (c->tag) {
    case HC_FORCE_GC:
    case HC_DUMP_HEAP:
    case HC_HEAP_SUMMARY:
    case HC_EXIT:
    case HC_DUMP_TRACES:
        return 0;
    case HC_ALLOC_SITES:
        return (c->flags & ~HC_SITES_ALL_FLAGS) || !cutoff_ok(c->cutoff) ? -1 : 6;
    case HC_CPU_SAMPLES:
        return cutoff_ok(c->cutoff) ? 6 : -1;
    case HC_CONTROL:
        switch (c->control) {
        case HC_CTL_ALLOC_ON:
        case HC_CTL_ALLOC_OFF:
        case HC_CTL_CLEAR_SAMPLES:
        case HC_CTL_CLEAR_SITES:
            return 2;
        case HC_CTL_CPU_ON:
        case HC_CTL_CPU_OFF:
            if (c->id_size == 4)
                return c->thread_id > UINT32_MAX ? -1 : 6;
            return c->id_size == 0 || c->id_size == 8 ? 10 : -1;
        case HC_CTL_SET_DEPTH:
            return 4;
        default:
            return -1;
        }
    default:
        return -1;
    }
}

size_t hc_encode(const hc_cmd *c, uint8_t *buf, size_t cap)
{
    if (c->tag == HC_EOF) {
        if (cap >= 1)
            buf[0] = HC_EOF;
        return 1;
    }
    long pl = payload_size(c);
    if (pl < 0)
        return 0;
    size_t n = HC_HEADER_SIZE + (size_t)pl;
    if (cap < n)
        return n;
    buf[0] = c->tag;
    put_u4(buf + 1, c->serial);
    put_u4(buf + 5, (uint32_t)pl);
    uint8_t *p = buf + HC_HEADER_SIZE;
    switch (c->tag) {
    case HC_ALLOC_SITES:
        put_u2(p, c->flags);
        put_u4(p + 2, float_bits(c->cutoff));
        break;
    case HC_CPU_SAMPLES:
        put_u2(p, 0);
        put_u4(p + 2, float_bits(c->cutoff));
        break;
    case HC_CONTROL:
        put_u2(p, c->control);
        if (c->control == HC_CTL_SET_DEPTH) {
            put_u2(p + 2, c->depth);
        } else if (pl == 6) {
            put_u4(p + 2, (uint32_t)c->thread_id);
        } else if (pl == 10) {
            put_u4(p + 2, (uint32_t)(c->thread_id >> 32));
            put_u4(p + 6, (uint32_t)c->thread_id);
        }
        break;
    default:
        break;
    }
    return n;
}

void hc_decode_header(const uint8_t *hdr, uint8_t *tag, uint32_t *serial, uint32_t *length)
{
    *tag = hdr[0];
    *serial = get_u4(hdr + 1);
    *length = get_u4(hdr + 5);
}

static hc_status bad(char *why, size_t whylen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static hc_status bad(char *why, size_t whylen, const char *fmt, ...)
{
    if (why && whylen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, whylen, fmt, ap);
        va_end(ap);
    }
    return HC_BAD;
}

static hc_status want_len(uint32_t length, uint32_t want, const char *name, char *why,
                          size_t whylen)
{
    if (length == want)
        return HC_OK;
    return bad(why, whylen, "%s takes a %u-byte payload, not %u", name, want, length);
}

hc_status hc_decode_payload(uint8_t tag, uint32_t serial, const uint8_t *payload, uint32_t length,
                            hc_cmd *c, char *why, size_t whylen)
{
    memset(c, 0, sizeof *c);
    c->tag = tag;
    c->serial = serial;
    const char *name = hc_tag_name(tag);
    if (!name || tag == HC_EOF)
        return bad(why, whylen, "unknown command tag 0x%02x (%u-byte payload)", tag, length);
    switch (tag) {
    case HC_ALLOC_SITES:
    case HC_CPU_SAMPLES:
        if (want_len(length, 6, name, why, whylen) != HC_OK)
            return HC_BAD;
        c->flags = get_u2(payload);
        c->cutoff = bits_float(get_u4(payload + 2));
        if (!cutoff_ok(c->cutoff))
            return bad(why, whylen, "%s: the cutoff (float bits 0x%08x) is not a number in [0, 1]",
                       name, get_u4(payload + 2));
        if (tag == HC_CPU_SAMPLES) {
            c->flags = 0; /* reserved */
        } else if (c->flags & ~HC_SITES_ALL_FLAGS) {
            return bad(why, whylen, "ALLOC SITES: unknown flags 0x%04x (known: 0x%04x)",
                       (unsigned)c->flags, HC_SITES_ALL_FLAGS);
        }
        return HC_OK;
    case HC_CONTROL:
        if (length < 2)
            return bad(why, whylen, "CONTROL takes at least a 2-byte sub-command, not %u bytes",
                       length);
        c->control = get_u2(payload);
        switch (c->control) {
        case HC_CTL_ALLOC_ON:
        case HC_CTL_ALLOC_OFF:
        case HC_CTL_CLEAR_SAMPLES:
        case HC_CTL_CLEAR_SITES:
            return want_len(length, 2, hc_name(c), why, whylen);
        case HC_CTL_SET_DEPTH:
            if (want_len(length, 4, hc_name(c), why, whylen) != HC_OK)
                return HC_BAD;
            c->depth = get_u2(payload + 2);
            return HC_OK;
        case HC_CTL_CPU_ON:
        case HC_CTL_CPU_OFF:
            if (length == 6) {
                c->id_size = 4;
                c->thread_id = get_u4(payload + 2);
            } else if (length == 10) {
                c->id_size = 8;
                c->thread_id = ((uint64_t)get_u4(payload + 2) << 32) | get_u4(payload + 6);
            } else {
                return bad(why, whylen,
                           "%s takes a 2-byte sub-command and a 4- or 8-byte thread id, not %u bytes",
                           hc_name(c), length);
            }
            return HC_OK;
        default:
            return bad(why, whylen, "unknown CONTROL sub-command 0x%04x", (unsigned)c->control);
        }
    default: /* no payload */
        return want_len(length, 0, name, why, whylen);
    }
}

hc_status hc_decode(const uint8_t *buf, size_t len, hc_cmd *c, size_t *used, char *why,
                    size_t whylen)
{
    if (why && whylen)
        why[0] = '\0';
    if (len == 0) {
        *used = 1;
        return HC_MORE;
    }
    if (buf[0] == HC_EOF) {
        memset(c, 0, sizeof *c);
        c->tag = HC_EOF;
        *used = 1;
        return HC_END;
    }
    if (len < HC_HEADER_SIZE) {
        *used = HC_HEADER_SIZE;
        return HC_MORE;
    }
    uint8_t tag;
    uint32_t serial, length;
    hc_decode_header(buf, &tag, &serial, &length);
    size_t total = HC_HEADER_SIZE + (size_t)length;
    *used = total;
    if (len < total)
        return HC_MORE;
    return hc_decode_payload(tag, serial, buf + HC_HEADER_SIZE, length, c, why, whylen);
}

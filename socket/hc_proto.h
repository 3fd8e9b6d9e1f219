/*
 * hc_proto.h: the command protocol of net=host:port, front end -> agent
 * (the original manual's "Socket Connection and Communication", with its
 * defects fixed). Shared by the agent's listener and hprof-ctl; knows
 * nothing of JVMTI or sockets.
 *
 * Wire layout, big-endian throughout:
 *   u1 tag, u4 serial, u4 length, then `length` bytes of payload;
 *   EOF is the single byte 0xFF (no serial, no length).
 * The length frames every command: a receiver skips an unknown tag or a bad
 * payload by its length and stays in step. Payloads (exact sizes):
 *   FORCE GC, DUMP HEAP, HEAP SUMMARY, EXIT, DUMP TRACES: none
 *   ALLOC SITES: u2 flags (HC_SITES_*), u4 cutoff (IEEE 754 float bits)
 *   CPU SAMPLES: u2 (reserved, 0), u4 cutoff (float bits)
 *   CONTROL: u2 sub-command, then
 *     CPU ON / CPU OFF: the thread object ID as in START THREAD records,
 *       4 or 8 bytes (0: all threads), in network byte order (the
 *       original sent it in host order);
 *     SET DEPTH: u2 depth;
 *     the others: nothing.
 * Numbering follows the original's code, not its manual: CONTROL 6 clears
 * the sites, 7 sets the depth.
 */
#ifndef HPROF_HC_PROTO_H
#define HPROF_HC_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define HC_HEADER_SIZE 9u
#define HC_MAX_PAYLOAD 16u /* the longest valid payload is 10 bytes */

typedef enum hc_tag {
    HC_FORCE_GC = 0x01,
    HC_DUMP_HEAP = 0x02,
    HC_ALLOC_SITES = 0x03,
    HC_HEAP_SUMMARY = 0x04,
    HC_EXIT = 0x05,
    HC_DUMP_TRACES = 0x06,
    HC_CPU_SAMPLES = 0x07,
    HC_CONTROL = 0x08,
    HC_EOF = 0xFF
} hc_tag;

typedef enum hc_control {
    HC_CTL_ALLOC_ON = 0x0001,
    HC_CTL_ALLOC_OFF = 0x0002,
    HC_CTL_CPU_ON = 0x0003,
    HC_CTL_CPU_OFF = 0x0004,
    HC_CTL_CLEAR_SAMPLES = 0x0005,
    HC_CTL_CLEAR_SITES = 0x0006,
    HC_CTL_SET_DEPTH = 0x0007
} hc_control;

/* ALLOC SITES flags */
#define HC_SITES_INCREMENTAL 0x0001u /* only sites changed since the last sites output */
#define HC_SITES_BY_ALLOC 0x0002u    /* ordered by allocated bytes, not live bytes */
#define HC_SITES_FORCE_GC 0x0004u    /* a GC first, so live counts are current */
#define HC_SITES_ALL_FLAGS 0x0007u

typedef struct hc_cmd {
    uint8_t tag;        /* hc_tag */
    uint32_t serial;    /* chosen by the sender, echoed in messages */
    uint16_t flags;     /* ALLOC SITES */
    float cutoff;       /* ALLOC SITES, CPU SAMPLES: 0 <= cutoff <= 1 */
    uint16_t control;   /* CONTROL: hc_control */
    uint64_t thread_id; /* CONTROL CPU ON/OFF: 0 = all threads */
    unsigned id_size;   /* CONTROL CPU ON/OFF: 4 or 8 (encode: 0 means 8) */
    uint16_t depth;     /* CONTROL SET DEPTH */
} hc_cmd;

/* What hc_decode found at the start of its buffer. */
typedef enum hc_status {
    HC_OK = 0,   /* a valid command, *used bytes long */
    HC_MORE = 1, /* incomplete: *used is the number of bytes needed in all
                    (HC_HEADER_SIZE + length once the header is there) */
    HC_BAD = 2,  /* unknown tag or bad payload: skip *used bytes (the whole
                    framed command); `why` says what was wrong */
    HC_END = 3   /* EOF (0xFF), *used = 1 */
} hc_status;

/* Encodes `c` into buf; returns its size, or 0 if `c` is not a valid
 * command (the size is returned without writing when cap is too small). */
size_t hc_encode(const hc_cmd *c, uint8_t *buf, size_t cap);

/* Decodes the header (9 bytes at hdr: not EOF) into tag, serial, length. */
void hc_decode_header(const uint8_t *hdr, uint8_t *tag, uint32_t *serial, uint32_t *length);

/* Decodes one command's payload. Returns HC_OK with *c filled, or HC_BAD
 * with the reason in why (one line, NUL-terminated, truncated to whylen). */
hc_status hc_decode_payload(uint8_t tag, uint32_t serial, const uint8_t *payload, uint32_t length,
                            hc_cmd *c, char *why, size_t whylen);

/* Decodes one command from buf[0..len): header and payload. */
hc_status hc_decode(const uint8_t *buf, size_t len, hc_cmd *c, size_t *used, char *why,
                    size_t whylen);

/* "DUMP HEAP", "CONTROL CPU ON"...: a name for messages (never NULL). */
const char *hc_name(const hc_cmd *c);
/* The name of a tag alone, or NULL for an unknown one. */
const char *hc_tag_name(uint8_t tag);

#endif

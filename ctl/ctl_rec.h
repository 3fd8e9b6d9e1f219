/*
 * ctl_rec.h: what hprof-ctl shows of one agent's stream: one readable line
 * per interesting record of a binary stream (threads, classes unloaded,
 * sites, samples, settings, the agent's in-band "HPROF ..." messages, odd
 * records), and the section lines of a text stream.
 *
 * Owns, per agent, the names those lines need (ctl_names), the messages
 * held back until it is known whether they name a thread, and the budget
 * of odd records shown before going quiet. The struct is embedded by
 * value; its fields are this module's own but for `names`, which the
 * caller may read (a thread serial's object id for `cpu on SERIAL`).
 */
#ifndef HPROF_CTL_REC_H
#define HPROF_CTL_REC_H

#include <stddef.h>
#include <stdint.h>

#include "ctl_names.h"
#include "ctl_show.h"

/* The in-band messages of the agent: UTF8 records whose text starts with
 * "HPROF " (or "HPROF:"). The agent's own threads are named so too: their
 * names are held back (CTL_MESSAGES_HELD at most) until the records that
 * follow show whether a START THREAD uses them. */
#define CTL_MESSAGE_PREFIX "HPROF"
#define CTL_MESSAGES_HELD 4u
#define CTL_PROBLEMS_SHOWN 10u /* odd records shown per agent before going quiet */

typedef struct ctl_rec {
    unsigned k; /* the agent's number, 1-based */
    ctl_show *show;
    ctl_names *names;
    uint64_t held[CTL_MESSAGES_HELD]; /* UTF8 ids of possible messages */
    unsigned nheld;
    unsigned problems_shown;
    uint8_t tag; /* the record being shown */
    uint32_t len;
} ctl_rec;

/* Agent k's display, its lines going to show. 0, or -1 out of memory. */
int ctl_rec_init(ctl_rec *r, unsigned k, ctl_show *show);
void ctl_rec_cleanup(ctl_rec *r);

/* How many body bytes of a record with this tag are kept for decoding
 * (0: the record is not shown). */
size_t ctl_rec_keep_size(uint8_t tag, uint32_t len, unsigned id);

/* A record with this tag starts: held messages are shown unless it is a
 * name or the START THREAD that may use them. */
void ctl_rec_begin(ctl_rec *r, uint8_t tag);

/* A complete small record: the first `have` bytes of its body (len
 * bytes), `keep` of them wanted (ctl_rec_keep_size: fewer when memory ran
 * out), ids of id bytes. */
void ctl_rec_show(ctl_rec *r, uint8_t tag, uint32_t len, const uint8_t *b, size_t have,
                  size_t keep, unsigned id);

/* Shows the held messages now (the read is over, or the stream ends). */
void ctl_rec_messages(ctl_rec *r);

/* An odd record (malformed, unknown) is to be shown: 1 while the budget
 * lasts; the first time past it, says that no more will be. */
int ctl_rec_odd(ctl_rec *r);

/* One complete line of a text stream (NUL-terminated, n bytes, no line
 * end): shown when it starts a section. */
void ctl_rec_text(ctl_rec *r, const char *line, size_t n);

#endif /* HPROF_CTL_REC_H */

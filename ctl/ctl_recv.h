/*
 * ctl_recv.h: hprof-ctl's receiving side of one agent: the byte stream it
 * sends (binary HPROF, the original's text layout, or anything else) goes
 * to the agent's file byte for byte; heap dumps 2, 3, ... also go to
 * complete files of their own (FILE.2, FILE.3, ...: readers see one heap
 * dump per file); what it holds is shown as it arrives (ctl_rec).
 *
 * Owns the agent's files and a resumable parser that keeps only small
 * state (a record header, the body of a small record being decoded, the
 * names needed for display), so any stream of any length is handled in
 * bounded memory and the bytes go to disk with write(2) in large spans.
 * Heap dump bodies are never buffered: ctl_scan counts their sub-records
 * as the bytes go by. Errors writing a file are reported on stderr with its
 * path and latch CTL_EXIT_ERROR in the caller's status; the stream goes on.
 */
#ifndef HPROF_CTL_RECV_H
#define HPROF_CTL_RECV_H

#include <stddef.h>
#include <stdint.h>

#include "ctl_show.h"

typedef struct ctl_recv ctl_recv;

/* Agent k's receiver: its lines go to show, file errors set *status to
 * CTL_EXIT_ERROR. NULL when out of memory. */
ctl_recv *ctl_recv_new(unsigned k, ctl_show *show, int *status);

/* Opens the agent's file at path (malloc'd, taken over, freed with the
 * receiver) by libhprofwriter's rules for output files. 0, or -1 once
 * reported: the stream is still received and shown, not written. A
 * receiver never opened (fuzzing) writes no file: it only shows lines. */
int ctl_recv_open(ctl_recv *c, char *path);

/* Everything the agent sent in one read (buf may be reused after). */
void ctl_recv_feed(ctl_recv *c, const uint8_t *buf, size_t n);

/* The stream is over (the agent is gone, or hprof-ctl stops): finishes the
 * files and shows "disconnected: ..." with why appended. */
void ctl_recv_end(ctl_recv *c, const char *why);

/* Frees the receiver (NULL is fine); files still open are closed as they
 * are, unfinished: call ctl_recv_end first. */
void ctl_recv_free(ctl_recv *c);

/* The id size commands to this agent use: its stream's, or 8 (the
 * protocol's default) for a text or unknown stream. */
unsigned ctl_recv_id_size(const ctl_recv *c);

/* The object id of thread `serial` seen in the stream (START THREAD, or
 * the text layout's THREAD START): 1 and *obj, or 0. */
int ctl_recv_thread_obj(const ctl_recv *c, uint64_t serial, uint64_t *obj);

/* FILE for agent 1, FILE with "-k" before its last extension for agent k
 * (malloc'd; NULL when out of memory). */
char *ctl_recv_path(const char *out, unsigned k);

#endif /* HPROF_CTL_RECV_H */

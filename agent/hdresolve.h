/*
 * hdresolve.h: what follows a heap dump's walk for the classes it met
 * outside the dump's set (hdresolve.c).
 */
#ifndef HPROF_HDRESOLVE_H
#define HPROF_HDRESOLVE_H

#include "hdstate.h"

/* Right after the walk, before the plain Class objects are written: late
 * objects whose class had no tag find it through their class's mirror, and
 * that class is known in the dump by the id the walk gave the mirror. */
void hdr_alias(hd_state *st, JNIEnv *env);
/* After the walk: the late classes resolved and laid out (st->late_list),
 * each late object given its class. 0, or -1 with st->err set (the dump
 * is then incomplete: their ids are in it already). */
int hdr_resolve(hd_state *st, JNIEnv *env);
/* Their top-level records (names, LOAD CLASS) into w, which must be outside
 * any heap dump (VisualVM reads everything between the first segment and
 * HEAP DUMP END as sub-records): before the dump, or into the region the
 * dump reserved for them. */
void hdr_write_names(hd_state *st, hw_writer *w);
/* Their CLASS DUMPs, then every object logged of them, into the dump. */
void hdr_write_heap(hd_state *st);

#endif

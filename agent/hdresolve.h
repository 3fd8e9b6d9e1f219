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
/* Before the dump's HEAP DUMP END: every late class's LOAD CLASS (its
 * names), CLASS DUMP, and the objects logged of it. Sets st->err when the
 * dump cannot be completed (their ids are in it already). */
void hdr_write(hd_state *st, JNIEnv *env);

#endif

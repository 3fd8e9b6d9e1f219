/*
 * hv_sites.h: the verifier's check of ALLOC SITES values the format
 * saturated (internal to libhprofwriter; hv_verify.c reports it).
 */
#ifndef HPROF_HV_SITES_H
#define HPROF_HV_SITES_H

#include <stddef.h>

#include "hprof/hr_reader.h"

/* Counts the u4 fields of ALLOC SITES record `r` (decoded) that hold
 * 4294967295, the format's maximum: a writer that caps (as hprof's agent
 * does, and the original did by truncating) leaves them there, and then
 * the figure, and any ranking by it, is wrong. When there are some, writes
 * a sentence naming the first saturated site into msg. Returns the count. */
unsigned hv_sites_saturated(const hr_record *r, char *msg, size_t cap);

#endif

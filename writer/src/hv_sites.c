/*
 * hv_sites.c: saturated u4 values in ALLOC SITES (see hv_sites.h). Apart
 * from hv_verify.c so that its per-record checks stay in one place.
 */
#include "hv_sites.h"

#include <stdio.h>

#include "hprof/hprof_format.h"

unsigned hv_sites_saturated(const hr_record *r, char *msg, size_t cap)
{
    unsigned n = 0;
    uint32_t first = UINT32_MAX;
    const char *field = NULL;
    if (r->u.alloc_sites.total_live_bytes == HPROF_U4_MAX) {
        n++;
        field = "total live bytes";
    }
    if (r->u.alloc_sites.total_live_instances == HPROF_U4_MAX) {
        n++;
        field = field ? field : "total live instances";
    }
    for (uint32_t i = 0; i < r->u.alloc_sites.nsites; i++) {
        hr_alloc_site s;
        hr_alloc_site_at(r, i, &s);
        const uint32_t v[4] = {s.live_bytes, s.live_instances, s.alloc_bytes, s.alloc_instances};
        static const char *const what[4] = {"live bytes", "live instances", "allocated bytes",
                                            "allocated instances"};
        for (int k = 0; k < 4; k++) {
            if (v[k] != HPROF_U4_MAX)
                continue;
            n++;
            if (first == UINT32_MAX && !field) {
                first = i;
                field = what[k];
            }
        }
    }
    if (n && cap) {
        if (first != UINT32_MAX)
            snprintf(msg, cap,
                     "ALLOC SITES at offset %llu holds %u value(s) at the u4 maximum 4294967295 "
                     "(first: %s of site #%u): the true figures may be larger, and a ranking by "
                     "them wrong",
                     (unsigned long long)r->offset, n, field, first);
        else
            snprintf(msg, cap,
                     "ALLOC SITES at offset %llu holds %u value(s) at the u4 maximum 4294967295 "
                     "(first: its %s): the true figures may be larger",
                     (unsigned long long)r->offset, n, field);
    }
    return n;
}

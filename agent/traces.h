/*
 * traces.h: frames and stack traces. A frame is a (method, location) pair
 * resolved once, when first seen, to names, source file and line (so it
 * stays printable after its class is unloaded). A trace is a sequence of
 * frames (plus the thread serial with thread=y) with an HPROF serial.
 */
#ifndef HPROF_TRACES_H
#define HPROF_TRACES_H

#include <jvmti.h>
#include <stdint.h>

typedef struct hp_frame {
    jmethodID method;
    jlocation location;
    uint32_t next;           /* hash chain */
    uint32_t method_name;    /* UTF8 ids */
    uint32_t method_sig;
    uint32_t source;         /* 0 when unknown */
    uint32_t class_serial;
    int32_t line;            /* > 0, or HPROF_LINE_UNKNOWN / _NATIVE */
    char *text;              /* "java.lang.Thread.<init>(Thread.java:432)" */
    uint8_t written;         /* FRAME record written (out_lock) */
} hp_frame;

typedef struct hp_trace {
    uint32_t serial;
    uint32_t thread_serial;  /* 0 unless thread=y */
    uint32_t nframes;
    uint32_t next;           /* hash chain (trace index) */
    uint64_t hash;
    uint8_t written;         /* TRACE record/block written (out_lock) */
    uint64_t cpu_samples;    /* cpu=samples hits since the last dump (atomic) */
    uint64_t tm_calls;       /* cpu=times|old since the last dump (atomics) */
    uint64_t tm_self_ns, tm_total_ns, tm_wait_ns; /* ns of work; of waiting (timing.h) */
    uint32_t *frame;         /* frame indices */
    jvmtiFrameInfo *jf;      /* the raw frames, for exact comparison */
} hp_trace;

int trace_init(void);
void trace_cleanup(void);
uint64_t trace_hash(const jvmtiFrameInfo *f, int n, uint32_t thread_serial);
/* The trace of these frames, created if new (resolving new frames with
 * JVMTI, outside the data lock). NULL when out of memory. */
hp_trace *trace_get(jvmtiEnv *j, const jvmtiFrameInfo *f, int n, uint32_t thread_serial, uint64_t hash);
hp_trace *trace_at(uint32_t index); /* index 1 = the empty system trace 300000 */
uint32_t trace_count(void);
hp_frame *frame_at(uint32_t index);
/* True when trace `t` has exactly these frames. */
int trace_equals(const hp_trace *t, const jvmtiFrameInfo *f, int n, uint32_t thread_serial);

#endif

/*
 * redact.h (tools): the front end of `hprof redact`, over libhprofredact
 * (redact/redact.h).
 */
#ifndef HPROF_TOOLS_REDACT_H
#define HPROF_TOOLS_REDACT_H

/* `hprof redact FILE -o OUT [options]`; argv[0] is "redact". Returns the
 * exit status: 0 done, 1 the input could not be redacted, 2 usage. */
int redact_cmd_main(int argc, char **argv);

#endif

/*
 * ctl_queue.h: the commands hprof-ctl has yet to run, in their order: the
 * command-line arguments, then the script's lines, then stdin's lines as
 * they come. Arguments and script wait for the first agent; stdin is read
 * only once they are done.
 *
 * Owns the arguments' list (pointers into argv), the script's lines (read
 * and checked whole at start-up) and stdin's line buffer. Arguments and
 * script lines are checked when added, so only stdin's lines can be bad:
 * those are reported on stderr and skipped. The struct is embedded by
 * value; its fields are this module's own.
 */
#ifndef HPROF_CTL_QUEUE_H
#define HPROF_CTL_QUEUE_H

#include <stddef.h>

#include "ctl_cmd.h"

#define CTL_STDIN_MAX 4096u /* one command line read from stdin */

typedef enum ctl_stage { STAGE_ARGS, STAGE_SCRIPT, STAGE_STDIN } ctl_stage;

typedef struct ctl_script_line {
    char *text;
    unsigned lineno;
} ctl_script_line;

typedef struct ctl_queue {
    char **args;
    size_t nargs;
    ctl_script_line *lines;
    size_t nlines;
    ctl_stage stage;
    size_t pos;
    int stdin_open;
    char stdin_buf[CTL_STDIN_MAX];
    size_t stdin_len;
    int stdin_overlong;
} ctl_queue;

/* Room for max_args arguments. 0, or -1 out of memory. */
int ctl_queue_init(ctl_queue *q, size_t max_args);
void ctl_queue_cleanup(ctl_queue *q);

/* A command argument, trimmed and checked by the caller (kept, not copied). */
void ctl_queue_add_arg(ctl_queue *q, char *arg);

/* Reads the script at path, checking every command. CTL_EXIT_OK;
 * CTL_EXIT_ERROR once reported (cannot read, out of memory); or
 * CTL_EXIT_USAGE with "PATH:LINE: why" in err for the caller to report. */
int ctl_queue_load_script(ctl_queue *q, const char *path, char *err, size_t errlen);

/* The next command to run, if one can run now (the arguments and the
 * script wait until agents_seen): 1 and *cmd, or 0. */
int ctl_queue_next(ctl_queue *q, int agents_seen, ctl_command *cmd);

/* Arguments and script done: the commands now come from stdin. */
int ctl_queue_at_stdin(const ctl_queue *q);

/* stdin is to be polled: its turn has come, it is open, and the buffer has
 * room (a full buffer that holds whole lines waits for them to run). */
int ctl_queue_wants_stdin(const ctl_queue *q);

/* stdin is readable: reads what is there (EOF closes it; a line longer
 * than CTL_STDIN_MAX is reported once and dropped). */
void ctl_queue_read_stdin(ctl_queue *q);

#endif /* HPROF_CTL_QUEUE_H */

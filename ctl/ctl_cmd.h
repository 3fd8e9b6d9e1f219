/*
 * ctl_cmd.h: hprof-ctl's command language: one line (from the command
 * line, a script or stdin) is a command sent to the agents (dump, sites,
 * cpu on 1, @2 gc, ...: hc_proto.h's commands by name) or a directive that
 * paces them (sleep, wait, wait-agents), or quit.
 *
 * Owns the parsing only, strict: a line is a command whose every word was
 * understood, or an error saying why. No state; ctl_command is a plain
 * value.
 */
#ifndef HPROF_CTL_CMD_H
#define HPROF_CTL_CMD_H

#include <stddef.h>
#include <stdint.h>

#include "ctl_util.h"
#include "hc_proto.h"

#define CTL_MAX_AGENTS_WANTED 1000000u
#define CTL_MAX_DEPTH 65535u /* u2 on the wire */
#define CTL_MAX_TOKENS 16

typedef enum ctl_kind { CK_SEND, CK_QUIT, CK_SLEEP, CK_WAIT, CK_WAIT_AGENTS } ctl_kind;
typedef enum ctl_thread_kind { CT_ALL, CT_SERIAL, CT_ID } ctl_thread_kind;

typedef struct ctl_command {
    ctl_kind kind;
    unsigned target; /* 0: every agent; k: agent k only (@k) */
    hc_cmd cmd;
    ctl_thread_kind thread_kind;
    uint64_t thread; /* a thread serial (CT_SERIAL) or object id (CT_ID) */
    uint64_t number; /* sleep: ms; wait-agents: N */
    char text[CTL_LINE_MAX]; /* as echoed; for wait: the text waited for */
} ctl_command;

/* Parses one command or directive (already trimmed, non-empty). 0, or -1
 * with the reason in err. */
int ctl_cmd_parse(const char *line, ctl_command *cmd, char *err, size_t errlen);

/* Trims blanks in place; returns NULL for a blank line or a # comment. */
char *ctl_cmd_trim(char *s);

#endif /* HPROF_CTL_CMD_H */

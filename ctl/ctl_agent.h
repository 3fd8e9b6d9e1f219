/*
 * ctl_agent.h: one agent connected to hprof-ctl: its socket, its address,
 * what it sends (ctl_recv) and the commands sent to it.
 *
 * Owns the connection: the socket is never blocked on (an agent that does
 * not read its commands must not stall the others), and once a command
 * cannot go whole, or after EOF, no more go to it. The struct's fields are
 * readable by the caller; this module changes them.
 */
#ifndef HPROF_CTL_AGENT_H
#define HPROF_CTL_AGENT_H

#include <netdb.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "ctl_cmd.h"
#include "ctl_recv.h"
#include "ctl_show.h"

#define CTL_ADDR_MAX (NI_MAXHOST + NI_MAXSERV + 4) /* "[host]:port" */

typedef struct ctl_agent {
    unsigned k; /* 1-based, in accept order */
    int fd;
    char addr[CTL_ADDR_MAX];
    ctl_recv *recv;
    int send_failed;
    /* no more commands to this agent: it took EOF, or it stopped reading
     * them (its command channel was shut down rather than block on it) */
    int cmds_closed;
    int refusal_shown; /* "not sent" said once */
} ctl_agent;

/* Agent k on the accepted socket fd from ss: NULL when out of memory (fd
 * is then still the caller's). Lines go to show, file errors set *status. */
ctl_agent *ctl_agent_new(int fd, const struct sockaddr_storage *ss, socklen_t len, unsigned k,
                         ctl_show *show, int *status);

/* Says where the agent connected from and opens its file (path taken over). */
void ctl_agent_start(ctl_agent *a, ctl_show *show, char *path);

/* Sends cmd to the agent with this serial. 1 if sent; else 0, said on
 * stderr (once per agent when it takes no more commands). */
int ctl_agent_send(ctl_agent *a, const ctl_command *cmd, uint32_t serial);

/* Reads what the agent sent into buf (cap bytes, shared by every agent)
 * and receives it. 0 while connected; 1 when it is gone, with why (" (the
 * error)" or "") for ctl_agent_close. */
int ctl_agent_read(ctl_agent *a, uint8_t *buf, size_t cap, char *why, size_t whycap);

/* Frees an agent never started (NULL is fine); its socket stays the
 * caller's. */
void ctl_agent_free(ctl_agent *a);

/* The agent is gone (or hprof-ctl stops): finishes its files, says so
 * (why appended), closes the socket and frees a. */
void ctl_agent_close(ctl_agent *a, const char *why);

#endif /* HPROF_CTL_AGENT_H */

/*
 * ctl_agent.c: one connected agent: its socket, receiving from it, sending
 * commands to it (ctl_agent.h).
 */
#include "ctl_agent.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl_util.h"

static void ctl_agent_format_addr(const struct sockaddr_storage *ss, socklen_t len, char *out,
                                  size_t cap)
{
    char host[NI_MAXHOST], serv[NI_MAXSERV];
    if (getnameinfo((const struct sockaddr *)ss, len, host, sizeof host, serv, sizeof serv,
                    NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
        snprintf(out, cap, "?");
        return;
    }
    const char *h = host;
    if (strncmp(h, "::ffff:", 7) == 0 && strchr(h + 7, '.')) /* IPv4 on a dual-stack socket */
        h += 7;
    if (strchr(h, ':'))
        snprintf(out, cap, "[%s]:%s", h, serv);
    else
        snprintf(out, cap, "%s:%s", h, serv);
}


ctl_agent *ctl_agent_new(int fd, const struct sockaddr_storage *ss, socklen_t len, unsigned k,
                         ctl_show *show, int *status)
{
    ctl_agent *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    a->recv = ctl_recv_new(k, show, status);
    if (!a->recv) {
        free(a);
        return NULL;
    }
    a->k = k;
    a->fd = fd;
    ctl_agent_format_addr(ss, len, a->addr, sizeof a->addr);
    return a;
}

void ctl_agent_start(ctl_agent *a, ctl_show *show, char *path)
{
    ctl_show_line(show, a->k, "connected from %s: writing %s", a->addr, path);
    ctl_recv_open(a->recv, path);
}

int ctl_agent_send(ctl_agent *a, const ctl_command *cmd, uint32_t serial)
{
    hc_cmd h = cmd->cmd;
    h.serial = serial;
    h.id_size = ctl_recv_id_size(a->recv);
    char note[CTL_LINE_MAX / 4] = "";
    if (cmd->thread_kind == CT_ID) {
        h.thread_id = cmd->thread;
    } else if (cmd->thread_kind == CT_SERIAL) {
        /* the protocol names threads by object id, as START THREAD does. An
         * id of 0 there (a thread the agent has not tagged) would mean "all
         * threads": then the serial goes as is, which this project's agent
         * also matches. */
        if (ctl_recv_thread_obj(a->recv, cmd->thread, &h.thread_id) && h.thread_id) {
            snprintf(note, sizeof note, ", thread object id 0x%" PRIx64, h.thread_id);
        } else {
            h.thread_id = cmd->thread;
            snprintf(note, sizeof note, ", thread serial sent as is: no object id seen for it");
        }
    }
    uint8_t buf[HC_HEADER_SIZE + HC_MAX_PAYLOAD];
    size_t n = hc_encode(&h, buf, sizeof buf);
    if (n == 0 || n > sizeof buf) {
        ctl_util_err("'%s' cannot be encoded for agent %u (a thread id of 0x%" PRIx64
                     " with %u-byte ids?): not sent",
                     cmd->text, a->k, h.thread_id, h.id_size);
        return 0;
    }
    if (a->cmds_closed) {
        if (!a->refusal_shown) /* once per agent: a script may send thousands */
            ctl_util_err("'%s' not sent to agent %u: it takes no more commands (%s); nor will the "
                         "next ones be",
                         cmd->text, a->k,
                         a->send_failed ? "its command channel is closed" : "it was sent EOF");
        a->refusal_shown = 1;
        return 0;
    }
    /* never block: one agent that does not read its commands must not
     * stall the others, stdin or quit. A command is a few bytes, so it
     * goes whole unless the agent has left a full socket buffer unread;
     * then (or on a partial send) the channel to it is shut down, which
     * also keeps the stream framed: the agent sees its input end. */
    ssize_t w;
    do
        w = send(a->fd, buf, n, MSG_DONTWAIT | MSG_NOSIGNAL);
    while (w < 0 && errno == EINTR);
    if (w != (ssize_t)n) {
        int e = w < 0 ? errno : EAGAIN;
        if (!a->send_failed)
            ctl_util_err("cannot send '%s' to agent %u: %s; no more commands go to it",
                         cmd->text, a->k,
                         e == EAGAIN || e == EWOULDBLOCK ? "it is not reading its commands"
                                                         : strerror(e));
        a->send_failed = 1;
        a->cmds_closed = 1;
        shutdown(a->fd, SHUT_WR);
        return 0;
    }
    if (h.tag == HC_EOF)
        a->cmds_closed = 1; /* the agent reads no more (it drains them) */
    if (h.tag == HC_EOF)
        printf("[%u] -> %s\n", a->k, cmd->text);
    else
        printf("[%u] -> %s (serial %" PRIu32 "%s)\n", a->k, cmd->text, serial, note);
    fflush(stdout);
    return 1;
}

int ctl_agent_read(ctl_agent *a, uint8_t *buf, size_t cap, char *why, size_t whycap)
{
    ssize_t r = recv(a->fd, buf, cap, 0);
    if (r < 0) {
        if (errno == EINTR || errno == EAGAIN)
            return 0;
        snprintf(why, whycap, " (%s)", strerror(errno));
        return 1;
    }
    if (r == 0) {
        snprintf(why, whycap, "%s", "");
        return 1;
    }
    ctl_recv_feed(a->recv, buf, (size_t)r);
    return 0;
}

void ctl_agent_close(ctl_agent *a, const char *why)
{
    ctl_recv_end(a->recv, why);
    if (a->fd >= 0)
        close(a->fd);
    a->fd = -1;
    ctl_recv_free(a->recv);
    free(a);
}

void ctl_agent_free(ctl_agent *a)
{
    if (!a)
        return;
    ctl_recv_free(a->recv);
    free(a);
}

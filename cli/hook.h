/* live --exec: a user's command run once per new error finding, with the
 * finding as JSON on its standard input, so that an alerting hook needs
 * no glue. The command line is split into words as a shell would split
 * them (quotes, backslashes) but nothing is expanded, and it runs without
 * a shell unless it names one (--exec 'sh -c "..."'). Runs are bounded:
 * HOOK_RUNNING at once, each stopped after its timeout, HOOK_QUEUED
 * waiting; a failure is reported, never fatal. */
#ifndef NCCLOG_HOOK_H
#define NCCLOG_HOOK_H

#include <stdbool.h>

#include "../util/str.h"

#define HOOK_RUNNING 4
#define HOOK_QUEUED 64

typedef struct hooks hooks;

/* Parses cmdline. out_fd takes the commands' output (-1: /dev/null); it
 * is not closed. On error (no word, an open quote), NULL is returned and
 * *err says why. */
hooks *hooks_new(const char *cmdline, double timeout, int out_fd, strbuf *err);
/* Where the commands' output goes from now on (-1: /dev/null). */
void hooks_output(hooks *h, int out_fd);
/* Queues one run with json on its standard input; `what` names it in
 * reports ("error[socket-iface-virtual]"), `id` goes to NCCLOG_FINDING_ID. */
void hooks_fire(hooks *h, const char *id, const char *what, const char *json);
/* Reaps runs that ended, stops runs past their timeout, starts queued
 * ones; a line per failure goes to *report. */
void hooks_poll(hooks *h, strbuf *report);
/* Runs what is queued and waits for every run to end (each within its
 * timeout); failures go to *report. */
void hooks_finish(hooks *h, strbuf *report);
/* Runs started, failed, and dropped because the queue was full. */
void hooks_counts(const hooks *h, size_t *run, size_t *failed, size_t *dropped);
void hooks_free(hooks *h);

#endif

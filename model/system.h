/* The system's side of the job model (model/ only): what kernel, scheduler,
 * nccl-tests and RAS lines tell, kept as events and runs (model.h) for
 * checks_system.c to join to the job. model_match hands their tags here. */
#ifndef NCCLOG_SYSTEM_H
#define NCCLOG_SYSTEM_H

#include "model.h"

/* Reads one match of a system tag (xid, oom-kill, scheduler-kill,
 * nccl-tests, ras) on the current record. */
void system_match(model *m, const match *mt);
/* A rank of nccl-tests' device table (process pi) read on the current
 * record: it belongs to the run of this input. */
void system_device_row(model *m, int pi);
/* The event equal to e (kind, host, pid, rank, code, a) or a new one
 * copied from e with an empty evidence; NULL when the cap is reached.
 * Folds: count goes up. */
sysev *system_event_put(model *m, const sysev *e);
/* The run of input file, made when new (NULL past the cap). */
ntrun *system_run_get(model *m, int file);
/* Reads a line a later part left (kind 1 nccl-tests, 2 RAS) into m, after
 * the parts before it: the merge calls it with m's numbering. */
void system_replay(model *m, const sysline *l);
/* Frees the events, runs and RAS cursors. */
void system_free(model *m);

#define SYSEV_MAX 4096
#define SYSEV_HASH 8192 /* a power of two, twice SYSEV_MAX */
#define NTRUN_MAX 256
#define SYSLINE_MAX 1024

#endif

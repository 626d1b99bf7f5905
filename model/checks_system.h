/* What the system checks share (model/ only): joining what a kernel log,
 * a scheduler or RAS names (a host, an address, a pid) to the processes of
 * the job, and the one way their findings cite and place. */
#ifndef NCCLOG_CHECKS_SYSTEM_H
#define NCCLOG_CHECKS_SYSTEM_H

#include "checks.h"

/* An interned string, "" for -1. */
const char *sys_str(const model *m, int id);
/* The host of the processes whose socket address is addr ("10.0.0.12"), or -1. */
int sys_host_of_addr(const model *m, const char *addr);
/* True when a process with a pid lives on host h. */
bool sys_host_known(const model *m, int h);
/* Where an event happened: the host its line names (a name, or an address
 * the logs give a host), else its process's, its input's, one its input's
 * name names, or the job's only host; -1 when unknown. */
int sys_event_host(const model *m, const sysev *e);
/* Adds the processes with a pid on host to out. */
void sys_procs_on_host(const model *m, int host, intset *out);
/* The process with pid on host (any host when -1), if exactly one fits; -1. */
int sys_proc_by_pid(const model *m, int host, long pid);
/* Adds the ranks of procs to out. */
void sys_ranks_of(const model *m, const intset *procs, intset *out);
/* Cites an evidence line (nothing when e has no text). */
void sys_cite(finding *f, const evref *e, int pi);
/* Places a finding on its processes (their ranks and hosts come with them). */
void sys_place(model *m, finding *f, const intset *procs);

#endif

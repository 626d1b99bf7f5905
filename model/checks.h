/* What the job-level check families share (model/ only): the one way a
 * check adds a finding, the job facts every family asks about, and the
 * entry points of the families, run in the order of model_check's table. */
#ifndef NCCLOG_CHECKS_H
#define NCCLOG_CHECKS_H

#include "../util/ipaddr.h"
#include "model.h"

enum if_kind { IFK_PHYS, IFK_LOOP, IFK_VIRTUAL, IFK_LINK_LOCAL };

/* A finding of a job-level check, recomputed by every check run; `scoped`
 * when msg already names the ranks. Valid until the next finding is added. */
finding *job_finding(model *m, const char *id, const char *key, enum severity sev, const char *msg,
		     const char *hint, bool scoped);

/* Job facts. */
enum if_kind iface_kind(const model *m, iface f);
bool iface_addr(const model *m, iface f, ipaddr *a);
/* The interfaces a process uses for sockets (out and ev hold 20), with the
 * line that shows each; returns the count. */
int used_ifaces(const proc *p, iface *out, const evref **ev);
/* A process quiet long enough that what it did not log means something. */
bool quiet(const model *m, const proc *p);
int count_hosts(const model *m);
/* The job spans hosts; provably one host. */
bool multi_host(const model *m);
bool single_host(const model *m);
bool any_error(const model *m);
/* An environment setting is var (=val, when not NULL). */
bool env_is(const model *m, const envset *e, const char *var, const char *val);

/* The families: checks_net.c */
void check_ifaces(model *m);
void check_iface_mismatch(model *m);
void infer_iface_not_found(model *m);
void hint_iface_not_found(model *m);
void check_transport(model *m);
void name_connect_target(model *m);
/* checks_config.c */
void check_versions(model *m);
void check_env(model *m);
void check_duplicate_hostname(model *m);
void check_duplicate_gpu(model *m);
void check_driver(model *m);
/* checks_progress.c */
void check_watchdog(model *m);
void check_ranks(model *m);
void check_silence(model *m);
void check_silence_live(model *m);
void check_init(model *m);
/* checks_fr.c */
void check_flight_recorder(model *m);
/* checks_system.c, checks_ras.c, checks_ncclt.c */
void check_xid(model *m);
void check_oom(model *m);
void check_kills(model *m);
void check_ras(model *m);
void check_nccl_tests(model *m);
/* caps.c */
void check_caps(model *m);
/* checks_causes.c */
void place_by_pid(model *m);
void check_recovered_chains(model *m);
void cite_root_warns(model *m);
void hint_first_failure(model *m);

#endif

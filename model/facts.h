/* What the model knows about one process: one line per fact, expanded
 * into the struct, its initial values, the merge of two partial models
 * (parts of a file read on other threads, the summaries of other nodes)
 * and the summary's named keys. A new fact is one line here and the code
 * that sets it.
 *
 * X(type, name, initial value, merge, file)
 *   type   INT LONG UINT U64 DOUBLE BOOL: a number
 *          STR: an interned string id; FILE: an input index; COMM: a
 *          communicator index (all three are renumbered by a merge)
 *          LINE: a line number of the input that fact `file` names
 *          (`none` for the other types)
 *          PHASE: an enum phase
 *   merge  FIRST: keep the earlier part's unless unset (the initial value)
 *          LAST:  the later part's when set; OR, MAX, SUM
 *          MINSET: the smallest of those set (times)
 *          OWN:   handled by hand in proc_merge (identity, ranks, phase)
 *
 * PROC_EVIDENCE(name): the line (evref ev_NAME) that shows a fact; merged
 * FIRST except where proc_merge says otherwise. */
#ifndef NCCLOG_FACTS_H
#define NCCLOG_FACTS_H

#define PROC_FACTS(X)                                                                        \
	X(STR, host, -1, OWN, none)              /* from NCCL's prefix, -1 unknown */              \
	X(LONG, pid, -1, OWN, none)                                                                \
	X(FILE, file, -1, OWN, none)             /* the input it was first seen in */              \
	X(INT, lrank, -1, FIRST, none)           /* launcher's rank tag */                         \
	X(STR, tag, -1, OWN, none)               /* launcher stream of a process known by it only */ \
	X(BOOL, activity_only, false, OWN, none) /* a later part's stream seen only in timed lines */ \
	X(BOOL, progress_unplaced, false, OWN, none) /* progress before its init complete, in a later part */ \
	X(INT, frank, -1, FIRST, none)           /* rank from the file name */                     \
	X(INT, dev, -1, FIRST, none)                                                               \
	X(U64, devs, 0, OR, none)                /* bit d: a device table gave it GPU d (d < 64) */ \
	X(INT, rank, -1, OWN, none)              /* in the largest communicator it joined */       \
	X(INT, nranks, 0, OWN, none)                                                               \
	X(COMM, comm, -1, OWN, none)                                                               \
	X(STR, busid, -1, OWN, none)             /* busId of that rank */                          \
	X(PHASE, phase, PH_NONE, OWN, none)                                                        \
	X(BOOL, init_started, false, OR, none)                                                     \
	X(BOOL, init_start_seen, false, OR, none) /* its Init START line itself */                 \
	X(BOOL, init_done, false, OR, none)                                                        \
	X(BOOL, aborted, false, OR, none)                                                          \
	X(BOOL, destroyed, false, OR, none)                                                        \
	X(BOOL, warned, false, OR, none)                                                           \
	X(BOOL, old_format, false, OR, none)     /* pre-2.3 lines without the NCCL token */        \
	X(UINT, fmt, 0, OR, none)                /* format tells, see model.c */                   \
	X(STR, version, -1, OWN, none)           /* "2.18.3+cuda12.2": the last with '+', else the first */   \
	X(STR, version_short, -1, LAST, none)    /* "2.18.3", of the last banner */                \
	X(LONG, driver, 0, LAST, none)           /* cudaDriverVersion, the last line's */          \
	X(INT, cuda_build, 0, LAST, none)        /* 1000*major + 10*minor of the last "+cudaX.Y" */\
	X(STR, net, -1, FIRST, none)             /* "IB", "Socket", a plugin's name */             \
	X(BOOL, ib_missing, false, OR, none)                                                       \
	X(UINT, transports, 0, OR, none)         /* transport bits */                              \
	X(INT, nnodes, 0, MAX, none)                                                               \
	X(FILE, done_file, -1, FIRST, none)      /* where it logged Init COMPLETE */               \
	X(LINE, done_line, 0, FIRST, done_file)                                           \
	X(LONG, chain_tid, -1, LAST, none)       /* the thread of its last "-> N" result chain */  \
	X(FILE, chain_file, -1, LAST, none)                                                        \
	X(LINE, chain_line, 0, LAST, chain_file)                                          \
	X(BOOL, chain_recovered, false, OWN, none) /* init went on after that chain */             \
	X(BOOL, collnet_off, false, OR, none)    /* NCCL gave CollNet up here and went on */       \
	X(FILE, last_file, -1, LAST, none)                                                         \
	X(LINE, last_line, 0, LAST, last_file)                                            \
	X(DOUBLE, first_time, 0, FIRST, none)    /* its first dated line's, not the smallest */     \
	X(DOUBLE, last_time, 0, MAX, none)                                                         \
	X(DOUBLE, warn_time, 0, OWN, none)       /* of ev_warn */                                  \
	X(DOUBLE, last_wall, 0, OWN, none)       /* live: when its last line arrived */            \
	X(U64, nlines, 0, SUM, none)                                                               \
	X(U64, records, 0, SUM, none)            /* its records: what a cap counts when a merge drops it */ \
	X(INT, nenv, 0, SUM, none)               /* "set by environment" lines seen */             \
	X(STR, ras_addr, -1, FIRST, none)        /* where its RAS thread listens ("10.0.0.5<30411>") */

#define PROC_EVIDENCE(X)                                                      \
	X(boot)       /* the bootstrap interface */                          \
	X(socket)     /* NET/Socket's interfaces */                          \
	X(init)       /* the communicator's init line */                     \
	X(version)                                                           \
	X(net)        /* "Using network ..." */                              \
	X(warn)       /* its first WARN */                                   \
	X(last_phase) /* the line that raised its phase last (merged OWN) */ \
	X(netchan)    /* a channel over the network */                      \
	X(ib)         /* the NET/IB device line */

/* How many evidence lines a process keeps. */
#define PROC_EVIDENCE_ONE(name) +1
#define PROC_NEVIDENCE (0 PROC_EVIDENCE(PROC_EVIDENCE_ONE))

#endif

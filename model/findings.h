/* Findings: diagnoses with their evidence, folded so that the same
 * problem on many ranks is one finding with a rank list. */
#ifndef NCCLOG_FINDINGS_H
#define NCCLOG_FINDINGS_H

#include "../rules/catalog.h"
#include "../util/hashidx.h"
#include "../util/siphash.h"
#include "../util/ranges.h"
#include "../util/str.h"

#define FINDING_MAX_EVIDENCE 4
/* What the input can make of findings, whatever it holds: at most this
 * many findings from lines and as many from the job-level checks, ranks,
 * pids and peers each finding names, such names over all findings, and
 * texts of this length (longer ones are cut). Past a cap, what does not
 * fit is dropped and counted (findings.dropped). */
#define FINDINGS_MAX 1024
#define FINDING_MAX_KEYS 4096
#define FINDINGS_MAX_KEYS (1u << 18)
#define FINDING_MAX_TEXT 1024

typedef struct evidence {
	int file;
	uint64_t line;
	int proc;      /* -1 when unknown */
	char *text;
} evidence;

typedef struct finding {
	char *id;
	char *title;
	enum severity severity;
	char *key;         /* what folds: same id and key, one finding */
	char *message;
	char *hint;
	intset procs;
	intset ranks;      /* explicit ranks named by the evidence itself */
	intset peers;      /* interned peer addresses the evidence names ("10.0.0.5") */
	intset pids;       /* pids of the processes a launcher's line is about */
	evidence ev[FINDING_MAX_EVIDENCE];
	size_t nev;
	uint64_t count;    /* occurrences folded in */
	uint64_t seq;      /* arrival order of the first occurrence */
	double time;       /* earliest timestamp, 0 when none */
	int cause;         /* index of the finding this one is a consequence of, or -1 */
	bool scoped;       /* the message names its ranks and hosts itself */
	bool job;          /* from a job-level check: recomputed by each check run */
	enum kind kind;    /* from the catalog */
	enum confidence confidence;
	bool demoted;      /* a suspicion that a proven cause explains: lowered to info */
	/* set by model_order: the root of its group and the size of the group */
	int root;
	int nconseq;
	int depth;
} finding;

/* What the caps of findings refused. */
typedef struct findrop {
	uint64_t findings; /* occurrences of findings that did not fit */
	uint64_t keys;     /* ranks, pids and peers that did not fit */
	uint64_t job;      /* findings of the last check run that did not fit */
} findrop;

typedef struct findings {
	finding *v;
	size_t n, cap;
	uint64_t seq;
	size_t nroots;     /* after model_order: the first finding of each group */
	hashidx idx;       /* (id, key) -> index in v */
	hashkey hkey;      /* idx's, drawn with its first finding */
	size_t nline, njob; /* findings from lines, from job-level checks */
	size_t nkeys;      /* ranks, pids and peers held by all findings */
	findrop dropped;
	finding sink;      /* a finding past the cap: written to, never listed */
} findings;

/* What a new finding is: findings_add takes its title, kind and (with
 * SEV_DEFAULT) severity from the catalog. */
#define SEV_DEFAULT (-1)
typedef struct findspec {
	const char *id;
	const char *key;     /* what folds: same id and key, one finding; NULL is "" */
	int severity;        /* an enum severity, or SEV_DEFAULT */
	const char *message, *hint;
	const char *title;   /* for an id the catalog lacks (a user's rule) */
	bool job;            /* from a job-level check: recomputed by each check run */
	bool keep;           /* never refused by the caps (the finding that reports them) */
} findspec;

/* Returns the finding with this id and key, creating it when new (title,
 * message and hint are copied on creation only, cut to FINDING_MAX_TEXT; a
 * higher severity raises it). The one constructor of findings. Past
 * FINDINGS_MAX findings from lines, a new one is a scratch finding that is
 * never listed (counted in dropped; *created is false). The pointer is
 * valid until the next finding is added: hold an index across additions. */
finding *findings_add(findings *fs, const catalog *cat, const findspec *spec, bool *created);
/* findings_add without a catalog lookup of the title (doctor's findings,
 * whose callers pass it). */
finding *findings_get(findings *fs, const char *id, const char *key, const char *title, enum severity sev,
		      const char *message, const char *hint, bool *created);
/* Adds one occurrence: its process, time and evidence line. */
void findings_note(finding *f, int proc, double time, int file, uint64_t line, slice text);
void findings_add_evidence(finding *f, int file, uint64_t line, int proc, slice text);
/* Adds x to one of f's sets of names (ranks, pids, peers), within
 * FINDING_MAX_KEYS of them and FINDINGS_MAX_KEYS over all findings; false
 * when x did not fit (counted in fs->dropped). */
bool findings_add_key(findings *fs, finding *f, intset *set, int x);
/* True when f is the scratch finding of findings past the cap. */
bool findings_is_sink(const findings *fs, const finding *f);
finding *findings_find(findings *fs, const char *id);
/* The finding with this id and fold key, or NULL. */
finding *findings_find_key(findings *fs, const char *id, const char *key);
/* Removes the findings of job-level checks, before the checks run again. */
void findings_drop_job(findings *fs);
/* Indexes the findings again after their order in v changed. */
void findings_reindex(findings *fs);
void findings_free(findings *fs);

#endif

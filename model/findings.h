/* Findings: diagnoses with their evidence, folded so that the same
 * problem on many ranks is one finding with a rank list. */
#ifndef NCCLOG_FINDINGS_H
#define NCCLOG_FINDINGS_H

#include "../rules/catalog.h"
#include "../util/ranges.h"
#include "../util/str.h"

#define FINDING_MAX_EVIDENCE 4

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
	evidence ev[FINDING_MAX_EVIDENCE];
	size_t nev;
	uint64_t count;    /* occurrences folded in */
	uint64_t seq;      /* arrival order of the first occurrence */
	double time;       /* earliest timestamp, 0 when none */
	int cause;         /* index of the finding this one is a symptom of, or -1 */
	bool scoped;       /* the message names its ranks and hosts itself */
	bool job;          /* from a job-level check: recomputed by each check run */
} finding;

typedef struct findings {
	finding *v;
	size_t n, cap;
	uint64_t seq;
} findings;

/* Returns the finding with this id and key, creating it when new
 * (title, severity, message and hint are copied on creation only). */
finding *findings_get(findings *fs, const char *id, const char *key, const char *title,
		      enum severity sev, const char *message, const char *hint, bool *created);
/* Adds one occurrence: its process, time and evidence line. */
void findings_note(finding *f, int proc, double time, int file, uint64_t line, slice text);
void findings_add_evidence(finding *f, int file, uint64_t line, int proc, slice text);
finding *findings_find(findings *fs, const char *id);
/* The finding with this id and fold key, or NULL. */
finding *findings_find_key(findings *fs, const char *id, const char *key);
/* Removes the findings of job-level checks, before the checks run again. */
void findings_drop_job(findings *fs);
void findings_free(findings *fs);
/* Sorts by severity (errors first), then arrival. Indices in `cause` are remapped. */
void findings_sort(findings *fs);

#endif

/* The finding catalog: every id ncclog can report, with its default
 * severity, title and the long text of `ncclog explain`. */
#ifndef NCCLOG_CATALOG_H
#define NCCLOG_CATALOG_H

#include "../util/str.h"

enum severity { SEV_INFO, SEV_WARNING, SEV_ERROR };

/* What part a finding plays in a failure, in the order of the causal
 * chain. Where several findings could explain one, the earliest kind
 * wins; a wildcard edge ("*") explains only later kinds; performance and
 * info findings and loose lines explain nothing. */
#define FINDING_KINDS(X)                                                           \
	X(KIND_CAUSE, "cause")                 /* the node, network or build */   \
	X(KIND_CONFIGURATION, "configuration") /* a setting that makes it fail */ \
	X(KIND_FAULT, "fault")                 /* a failure while running */      \
	X(KIND_STATE, "state")                 /* a rank stuck, behind, missing */ \
	X(KIND_SYMPTOM, "symptom")             /* what the others report then */  \
	X(KIND_RESULT, "result")               /* an ncclResult_t code */         \
	X(KIND_CATCH_ALL, "catch-all")         /* a line no diagnosis explains */ \
	X(KIND_PERFORMANCE, "performance")                                        \
	X(KIND_INFO, "info")
#define X(e, s) e,
enum kind { FINDING_KINDS(X) KIND_COUNT };
#undef X

/* How a finding is known: a line states it, it is derived across ranks,
 * or it is a heuristic's suspicion. */
enum confidence { CONF_ESTABLISHED, CONF_INFERRED, CONF_SUSPECTED };

/* Ranks a finding marks in the viewer. */
enum { MARK_TIMEOUT = 1, MARK_BEHIND = 2, MARK_STUCK = 4 };

typedef struct catentry {
	char *id, *family, *title, *explain;
	enum severity severity;
	enum kind kind;
	enum confidence confidence; /* of what a job check concludes; a rule's line is established */
	unsigned marks;
	char **emitters;            /* "rule", "result", "catch-all", "check:NAME" */
	char *collect;              /* what to collect next when this is all the logs show, or NULL */
	size_t nemitters;
} catentry;

/* Where a cause's findings and an effect's must meet for the edge to hold. */
enum cause_when {
	WHEN_JOB,          /* anywhere in the job */
	WHEN_SAME_PROCESS, /* on one process */
	WHEN_SAME_HOST,    /* on one host */
	WHEN_PEER,         /* the effect names a peer address on the cause's host, or shares it */
	WHEN_OTHER_PROCESS, /* on processes the cause is not on: a death seen by the survivors */
};

/* One edge of the cause graph: findings with id `cause` can explain
 * findings whose id matches `effect` ("nccl-*" is a prefix; "*" any id). */
typedef struct causeedge {
	char *cause, *effect;
	enum cause_when when;
	enum severity min_severity; /* of the cause */
} causeedge;

typedef struct catalog {
	catentry *v;
	size_t n, cap;
	causeedge *edges;
	size_t nedges, edgecap;
} catalog;

/* Loads a catalog file, and the cause graph beside it (causes.json in the
 * same directory, when present). On error, -1 is returned and *err says
 * why ("file:line:col: message"); an edge naming an unknown id is one. */
int catalog_load(catalog *c, const char *path, strbuf *err);
void catalog_free(catalog *c);
const catentry *catalog_find(const catalog *c, const char *id);
/* The known id closest to `id` (edit distance), for "did you mean". */
const char *catalog_nearest(const catalog *c, const char *id);

/* True for a finding id as a rule file or a summary may name one: 1 to
 * 64 of a-z 0-9 - . _ (reports print ids as they are). */
bool catalog_id_ok(const char *id);
/* True when id matches an edge's pattern ("nccl-*", "*", or itself). */
bool catalog_id_matches(const char *pattern, const char *id);
const char *kind_name(enum kind k);
const char *confidence_name(enum confidence c);

bool severity_parse(const char *s, enum severity *out);
const char *severity_name(enum severity s);

#endif

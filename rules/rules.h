/* Line rules: data files of {gate literal, PCRE2 pattern with named
 * captures, what it emits}. Loaded and JIT-compiled once; matched through
 * one literal gate pass per line, never one regex per rule per line. */
#ifndef NCCLOG_RULES_H
#define NCCLOG_RULES_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "../parser/record.h"
#include "../util/hashidx.h"
#include "../util/siphash.h"
#include "../util/str.h"
#include "catalog.h"
#include "gate.h"
#include "linememo.h"

#define RULE_MAX_CAPS 12

/* The capture names the job model reads, each asked for by a constant:
 * the loader maps every rule's captures to these slots once, so a match
 * costs no lookup by name. A name not listed is still found by
 * match_get. */
#define RULE_CAPTURES(X)                                                                            \
	X(CAPT_BUSID, "busid") X(CAPT_CODE, "code") X(CAPT_COMMID, "commid") X(CAPT_DEV, "dev")      \
	X(CAPT_DONE, "done") X(CAPT_DRIVER, "driver") X(CAPT_ENQ, "enq") X(CAPT_FROM, "from")        \
	X(CAPT_HOST, "host") X(CAPT_LIST, "list") X(CAPT_NAME, "name") X(CAPT_NET, "net")            \
	X(CAPT_NNODES, "nnodes") X(CAPT_NRANKS, "nranks") X(CAPT_OOB, "oob") X(CAPT_OP, "op")        \
	X(CAPT_PEER, "peer") X(CAPT_PID, "pid") X(CAPT_RANK, "rank") X(CAPT_RANKS, "ranks")          \
	X(CAPT_SEQ, "seq") X(CAPT_SPACE, "space") X(CAPT_STARTED, "started") X(CAPT_STATE, "state")  \
	X(CAPT_TEXT, "text") X(CAPT_TIMEOUT, "timeout") X(CAPT_TO, "to") X(CAPT_VAL, "val")          \
	X(CAPT_VAR, "var") X(CAPT_VERSION, "version") X(CAPT_VIA, "via") X(CAPT_WHAT, "what")

#define X(e, s) e,
enum rule_capture { RULE_CAPTURES(X) CAPT_COUNT };
#undef X

typedef struct rule {
	char *id;
	char *src;          /* "file:line" where it is defined */
	int file;           /* its file in the set's files */
	char **gates;
	size_t ngates;
	pcre2_code *re;     /* never JIT-compiled: every thread reads it */
	/* a JIT-compiled copy of re, this rule set's own (a clone makes its
	 * own), made when the rule first runs */
	pcre2_code *jre;
	bool nojit;         /* JIT failed (no JIT on this CPU): re serves */
	bool anchored;      /* every match starts where the text does (PCRE2 found it anchored) */
	char *finding;      /* finding id it reports, or NULL */
	enum severity severity;
	char *title;        /* for ids that the catalog does not know */
	char *message, *hint, *fold; /* templates over {capture} names */
	char *site;         /* the WARN call site must contain this, or NULL */
	enum level level;   /* the record must be of this level (WARN, INFO), or LV_NONE */
	int tag;            /* index into the tag vocabulary, or -1 */
	char **samples;
	size_t nsamples;
	int ncaps;
	char *capname[RULE_MAX_CAPS];
	int capnum[RULE_MAX_CAPS];
	/* the first capture of each listed name, -1 when none; then the next
	 * capture of the same name ((?J) patterns repeat names), -1 at the end */
	signed char slot[CAPT_COUNT];
	signed char next[RULE_MAX_CAPS];
} rule;

typedef struct capture {
	const char *name;
	slice v;
} capture;

typedef struct match {
	const rule *r;
	int ri;             /* index of the rule in its set */
	int ncaps;
	capture caps[RULE_MAX_CAPS];
} match;

/* At most this many rules load, shipped and the user's together: past it
 * the rest are skipped, counted and noted (their compiled patterns would
 * cost memory without bound). */
#define RULES_MAX 2048

typedef struct ruleset {
	rule *v;
	size_t n, cap;
	hashidx ids;        /* v by id */
	hashkey idkey;      /* its hash's key */
	uint64_t dropped;   /* rules past RULES_MAX, not loaded */
	const char *const *tags; /* the vocabulary of tags, NULL-terminated */
	const catalog *cat;
	gate *g;
	pcre2_match_context *mctx;
	pcre2_match_data *md;
	/* per-line scratch: candidate rules whose gate is in the line */
	int *cand;
	size_t ncand;
	bool record_hint;   /* the line holds "NCCL " or a pre-2.3 "] INFO ": maybe a record */
	unsigned *stamp;
	unsigned gen;
	/* per rule, NULL until an anchored rule fails: the starts of text it
	 * is known to fail on (rules.c) */
	struct deadpfx **dead;
	/* per set: rules' answers on texts seen before (memo.h) */
	struct rulememo *memo;
	/* per set: the gate's and the parser's answers on lines seen before;
	 * NULL when told to do without (ruleset_forget_lines) */
	linememo *lines;
	bool no_lines;
	strbuf notes;       /* run-time notes (the match limit reached), for the caller */
	uint64_t limit_hits; /* lines a rule gave up on at the match limit */
	int limit_rule;     /* the first rule that did, -1 */
	bool clone;         /* shares the compiled rules and gate of another set */
	char **files;       /* the files loaded, by real path: each is loaded once */
	size_t nfiles, filescap;
} ruleset;

void ruleset_init(ruleset *rs, const catalog *cat, const char *const *tags);
void ruleset_free(ruleset *rs);
/* Loads one rule file, or every *.json in a directory (sorted); a file
 * already loaded (the same file by another path, too) is not loaded again.
 * A key the schema does not know is an error, with the nearest one (see
 * rules/README.md). On error, -1 is returned and *err holds
 * "file:line:col: message". */
int ruleset_load(ruleset *rs, const char *path, strbuf *err);
/* Builds the gate; call after the last load. */
void ruleset_finish(ruleset *rs);
/* A set for another thread: it shares src's compiled rules and gate (which
 * must outlive it) and has its own scratch and match data. */
void ruleset_clone(ruleset *dst, const ruleset *src);
/* Takes what a clone noted while it ran into dst (its notes, and the
 * match-limit note if dst has none yet: one per run). */
void ruleset_absorb(ruleset *dst, const ruleset *clone);
/* Scans a line with the gate; returns the number of candidate rules and
 * sets rs->record_hint. */
size_t ruleset_gate(ruleset *rs, slice line);
/* Lets the gate scan with what pays off over `bytes` of input (see
 * gate_accelerate); the rules find the same either way. */
void ruleset_accelerate(ruleset *rs, uint64_t bytes);
/* Gates and parses every line, remembering none (its clones too). */
void ruleset_forget_lines(ruleset *rs);
/* Whether some size of input would change the gate's engine. */
bool ruleset_accelerable(const ruleset *rs);
/* As ruleset_gate, from the values of the literals a scan of a larger
 * buffer found in the line (vals[0..n), repeats allowed). */
size_t ruleset_gate_found(ruleset *rs, const int *vals, size_t n);
/* Keeps the outcome of the last gate scan; puts it back. Restoring returns
 * false when it did not fit (the caller scans again). */
void ruleset_hits_save(const ruleset *rs, gatehits *h);
bool ruleset_hits_restore(ruleset *rs, const gatehits *h);
/* Runs the candidates of the last gate scan over a record's message, call
 * site and level (LV_NONE: a line that is no NCCL record); calls fn per
 * match. */
void ruleset_match(ruleset *rs, slice text, slice site, enum level lv, void (*fn)(void *ctx, const match *m),
		   void *ctx);
/* ruleset_match on the record of a line in the line memo: the matches
 * the entry kept, when it has them, else matched and kept there. text,
 * site and lv are those of the entry's record. */
void ruleset_match_line(ruleset *rs, memoref ref, slice text, slice site, enum level lv,
			void (*fn)(void *ctx, const match *m), void *ctx);
/* Matches that a start an anchored rule is known to fail on spared so
 * far (for the tests and the benchmark). */
uint64_t ruleset_spared(const ruleset *rs);
/* Runs one rule over text (for `rules test`); returns true on a match. */
bool ruleset_match_one(ruleset *rs, size_t ri, slice text, match *m);
slice match_get(const match *m, const char *name);
/* The capture of a listed name that took part in the match, or SLICE_NONE. */
slice match_cap(const match *m, enum rule_capture c);
/* Renders a template: {name} becomes the capture's text. */
void template_render(strbuf *b, const char *tpl, const match *m);
/* Whether a template says something of this match: it names no capture,
 * or one that took part (an alternative of the pattern may leave all of
 * them out). */
bool template_filled(const char *tpl, const match *m);

#endif

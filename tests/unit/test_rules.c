/* The rule engine: shipped rules match their own samples through the gate;
 * broken rule files are refused with file:line:col; a catastrophic pattern
 * is stopped by the match limit on that line only. */
#include <stdlib.h>
#include <unistd.h>

#include "../../model/model.h"
#include "../../rules/memo.h"
#include "../../rules/rules.h"
#include "check.h"

#define X(e, s) s,
static const char *const capture_names[CAPT_COUNT] = { RULE_CAPTURES(X) };
#undef X

/* A capture asked for by its constant is the one match_get finds by name. */
static void check_slots(checks *c, const rule *r, const match *m, const char *line)
{
	for (int k = 0; k < CAPT_COUNT; k++) {
		slice a = match_cap(m, (enum rule_capture)k), b = match_get(m, capture_names[k]);
		CHECK(c, a.p == b.p && a.n == b.n, "rule %s, capture %s on '%s': by slot '%.*s', by name '%.*s'", r->id,
		      capture_names[k], line, (int)a.n, a.p ? a.p : "", (int)b.n, b.p ? b.p : "");
	}
}

/* The shipped catalog and rules of dir, loaded and finished. */
static void load_shipped(checks *c, const char *dir, catalog *cat, ruleset *rs)
{
	strbuf err = { 0 }, path = { 0 };
	sb_printf(&path, "%s/catalog.json", dir);
	CHECK(c, catalog_load(cat, path.p, &err) == 0, "catalog: %s", err.p);
	ruleset_init(rs, cat, model_tag_names);
	sb_clear(&err);
	CHECK(c, ruleset_load(rs, dir, &err) == 0, "rules: %s", err.p);
	ruleset_finish(rs);
	sb_free(&err);
	sb_free(&path);
}

static void test_shipped(checks *c, const char *dir)
{
	catalog cat = { 0 };
	ruleset rs;
	load_shipped(c, dir, &cat, &rs);
	CHECK(c, rs.n > 40, "%zu rules", rs.n);
	for (size_t i = 0; i < rs.n; i++) {
		const rule *r = &rs.v[i];
		CHECK(c, r->nsamples > 0, "rule %s has samples", r->id);
		for (size_t k = 0; k < r->nsamples; k++) {
			slice s = slice_from(r->samples[k]);
			ruleset_gate(&rs, s);
			bool gated = false;
			for (size_t j = 0; j < rs.ncand; j++)
				gated = gated || rs.cand[j] == (int)i;
			match m;
			CHECK(c, gated, "rule %s: its gate misses sample '%s'", r->id, r->samples[k]);
			CHECK(c, ruleset_match_one(&rs, i, s, &m), "rule %s does not match sample '%s'", r->id, r->samples[k]);
			if (m.r == r)
				check_slots(c, r, &m, r->samples[k]);
		}
		if (r->finding)
			CHECK(c, catalog_find(&cat, r->finding) != NULL, "rule %s reports unknown id %s", r->id, r->finding);
	}
	/* every catalog id is documented */
	for (size_t i = 0; i < cat.n; i++)
		CHECK(c, strlen(cat.v[i].explain) > 200 && strlen(cat.v[i].title) > 10, "catalog %s explained", cat.v[i].id);
	ruleset_free(&rs);
	catalog_free(&cat);
}

static int load_text(const char *text, strbuf *err, ruleset *rs)
{
	char name[] = "/tmp/ncclog-rule-XXXXXX";
	int fd = mkstemp(name);
	if (fd < 0)
		return -2;
	if (write(fd, text, strlen(text)) < 0)
		return -2;
	close(fd);
	int rc = ruleset_load(rs, name, err);
	unlink(name);
	/* drop the random file name: "…:line:col: message" */
	const char *colon = strchr(err->p ? err->p : "", ':');
	if (colon) {
		char *rest = xstrdup(colon + 1);
		sb_clear(err);
		sb_adds(err, rest);
		free(rest);
	}
	return rc;
}

static void test_broken(checks *c)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "{\"rules\": [\n  {\"id\": \"x\", \"gate\": \"abcd\",\n   \"pattern\": \"a(b\", \"finding\": \"cuda-oom\"}]}",
		  "3:19: pattern: missing closing parenthesis" },
		{ "{\"rules\": [\n  {\"id\": \"x\" \"gate\": \"abcd\"}]}", "2:14: invalid JSON" },
		{ "{\"rules\": [\n  {\"id\": \"x\", \"gate\": \"abc\", \"pattern\": \"abc\", \"finding\": \"cuda-oom\"}]}",
		  "2:23: a gate literal needs at least 4 characters" },
		{ "{\"rules\": [\n  {\"id\": \"x\", \"gate\": \"abcd\", \"pattern\": \"abcd\", \"finding\": \"no-such-id\"}]}",
		  "2:61: unknown finding id (a new id needs a \"title\")" },
		{ "{\"rules\": [\n  {\"id\": \"x\", \"gate\": \"abcd\", \"pattern\": \"abcd\", \"tag\": \"nope\"}]}",
		  "2:57: unknown tag" },
		{ "{\"rules\": [\n  {\"id\": \"x\", \"gate\": \"abcd\", \"pattern\": \"abcd(?<a>d)\", \"finding\": \"cuda-oom\", \"message\": \"{b}\"}]}",
		  "2:91: template names {b}, which the pattern does not capture" },
		{ "{\"rules\": [\n  {\"id\": \"x\", \"gate\": \"abcd\", \"pattern\": \"abcd.*(?<a>d)\", \"finding\": \"cuda-oom\"}]}",
		  "2:42: pattern: a greedy .* before a capture; anchor the capture on a literal" },
		{ "{\"rules\": {}}", "1:1: expected an object with a \"rules\" array" },
		{ "{\"rules\": [\n  {\"gate\": \"abcd\", \"pattern\": \"abcd\", \"finding\": \"cuda-oom\"}]}",
		  "2:3: a rule needs an \"id\" of lowercase letters, digits and '-'" },
		/* the schema: every key known, once, of its type; the nearest key for a typo */
		{ "{\"rules\": [\n  {\"id\": \"x\", \"gate\": \"abcd\", \"pattern\": \"abcd\", \"finding\": \"cuda-oom\", \"hnit\": \"h\"}]}",
		  "2:73: rule \"x\": unknown key \"hnit\"; did you mean \"hint\"?" },
		{ "{\"rules\": [\n  {\"gate\": \"abcd\", \"pattern\": \"abcd\", \"Finding\": \"cuda-oom\"}]}",
		  "2:39: rule 1: unknown key \"Finding\"; did you mean \"finding\"?" },
		{ "{\"rules\": [\n  {\"id\": \"x\", \"gate\": \"abcd\", \"pattern\": \"abcd\", \"finding\": \"cuda-oom\", \"zzzz\": 1}]}",
		  "2:73: rule \"x\": unknown key \"zzzz\" (see rules/README.md for the keys of a rule)" },
		{ "{\"rules\": [\n  {\"id\": \"x\", \"gate\": \"abcd\", \"pattern\": \"abcd\", \"finding\": \"cuda-oom\", \"hint\": \"a\", \"hint\": \"b\"}]}",
		  "2:73: rule \"x\": the key \"hint\" is given twice" },
		{ "{\"rules\": [\n  {\"id\": \"x\", \"gate\": \"abcd\", \"pattern\": \"abcd\", \"finding\": \"cuda-oom\", \"hint\": 5}]}",
		  "2:81: rule \"x\": \"hint\" must be a string" },
		{ "{\"rules\": [\n  {\"id\": \"x\", \"gate\": [\"abcd\", 5], \"pattern\": \"abcd\", \"finding\": \"cuda-oom\"}]}",
		  "2:23: rule \"x\": \"gate\" must be a string or a list of strings" },
		{ "{\"rulez\": [\n  {\"id\": \"x\"}]}", "1:2: the file: unknown key \"rulez\"; did you mean \"rules\"?" },
	};
	catalog cat = { 0 };
	grow(&cat.v, &cat.cap, 0, sizeof *cat.v);
	cat.v[0] = (catentry){ .id = xstrdup("cuda-oom"), .family = xstrdup("cuda"), .title = xstrdup("t"),
			       .explain = xstrdup("e"), .severity = SEV_ERROR };
	cat.n = 1;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		ruleset rs;
		ruleset_init(&rs, &cat, model_tag_names);
		strbuf err = { 0 };
		int rc = load_text(cases[i].text, &err, &rs);
		CHECK(c, rc == -1, "case %zu refused (rc %d)", i, rc);
		CHECK(c, err.p && strcmp(err.p, cases[i].want) == 0, "case %zu: got '%s', want '%s'", i, err.p ? err.p : "",
		      cases[i].want);
		sb_free(&err);
		ruleset_free(&rs);
	}
	catalog_free(&cat);
}

/* (?J) patterns repeat a name: by slot, the group that took part wins, as
 * by name; a name no reader lists has no slot and is found by name. */
static void test_capture_slots(checks *c)
{
	catalog cat = { 0 };
	ruleset rs;
	ruleset_init(&rs, &cat, model_tag_names);
	strbuf err = { 0 };
	int rc = load_text("{\"rules\": [{\"id\": \"j\", \"gate\": \"rank\", \"tag\": \"rank-of\", \"pattern\": "
			   "\"(?J)rank (?<rank>\\\\d+) of (?<nranks>\\\\d+)|(?<other>ranks) (?<rank>[a-z]+)\"}]}",
			   &err, &rs);
	CHECK(c, rc == 0, "the (?J) rule loads: %s", err.p ? err.p : "");
	ruleset_finish(&rs);
	static const struct {
		const char *line, *rank, *nranks;
	} cases[] = {
		{ "rank 3 of 8", "3", "8" },
		{ "ranks seven", "seven", NULL },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0] && rc == 0; i++) {
		match m;
		bool ok = ruleset_match_one(&rs, 0, slice_from(cases[i].line), &m);
		CHECK(c, ok, "'%s' matches", cases[i].line);
		if (!ok)
			continue;
		slice r = match_cap(&m, CAPT_RANK), n = match_cap(&m, CAPT_NRANKS);
		CHECK(c, slice_eq_str(r, cases[i].rank), "'%s': rank '%.*s'", cases[i].line, (int)r.n, r.p ? r.p : "");
		CHECK(c, cases[i].nranks ? slice_eq_str(n, cases[i].nranks) : !n.p, "'%s': nranks '%.*s'", cases[i].line,
		      (int)n.n, n.p ? n.p : "");
		CHECK(c, !match_cap(&m, CAPT_PID).p, "'%s': no pid", cases[i].line);
		slice o = match_get(&m, "other");
		CHECK(c, i == 0 ? !o.p : slice_eq_str(o, "ranks"), "'%s': other by name", cases[i].line);
		check_slots(c, &rs.v[0], &m, cases[i].line);
	}
	ruleset_free(&rs);
	sb_free(&err);
}

static int hits;
static void on_match(void *ctx, const match *m)
{
	(void)ctx;
	(void)m;
	hits++;
}

static void test_match_limit(checks *c)
{
	catalog cat = { 0 };
	ruleset rs;
	ruleset_init(&rs, &cat, model_tag_names);
	strbuf err = { 0 };
	int rc = load_text("{\"rules\": [{\"id\": \"evil\", \"gate\": \"aaaa\", \"pattern\": \"(a+)+$\", \"tag\": \"progress\"}]}",
			   &err, &rs);
	CHECK(c, rc == 0, "evil rule loads: %s", err.p ? err.p : "");
	ruleset_finish(&rs);
	char line[64];
	memset(line, 'a', 40);
	strcpy(line + 40, "!");
	slice s = slice_from(line);
	ruleset_gate(&rs, s);
	ruleset_match(&rs, s, SLICE_NONE, LV_NONE, on_match, NULL);
	ruleset_gate(&rs, s);
	ruleset_match(&rs, s, SLICE_NONE, LV_NONE, on_match, NULL);
	CHECK(c, hits == 0, "no match");
	CHECK(c, rs.limit_hits == 2 && rs.limit_rule == 0, "two lines at the limit: %llu",
	      (unsigned long long)rs.limit_hits);
	/* the next line the rule can match still matches */
	slice ok = slice_from("aaaaa");
	ruleset_gate(&rs, ok);
	ruleset_match(&rs, ok, SLICE_NONE, LV_NONE, on_match, NULL);
	CHECK(c, hits == 1, "the rule still runs after the limit: %d hits", hits);
	CHECK(c, rs.notes.p && strstr(rs.notes.p, "rule evil") && !strstr(strstr(rs.notes.p, "rule evil") + 1, "rule evil"),
	      "reported once: %s", rs.notes.p ? rs.notes.p : "");
	ruleset_free(&rs);
	sb_free(&err);
}

/* An anchored rule that failed on a text fails at once on texts that
 * start as it did, and only on those: every line gets the answer of a
 * match of its own (ruleset_match_one keeps nothing), in a long random
 * run over line shapes that share their starts. */
static unsigned rnd(unsigned *st)
{
	*st = *st * 1103515245u + 12345u;
	return *st >> 8;
}

static uint64_t got_rules;
static void on_dead_match(void *ctx, const match *m)
{
	(void)ctx;
	got_rules |= 1ULL << m->ri;
}

static void test_dead_starts(checks *c)
{
	catalog cat = { 0 };
	ruleset rs;
	ruleset_init(&rs, &cat, model_tag_names);
	strbuf err = { 0 };
	int rc = load_text("{\"rules\": ["
			   "{\"id\": \"chain\", \"gate\": \" -> \", \"tag\": \"nccl-result\", \"pattern\": \"^[^\\\\s:]+:\\\\d+ -> (?<code>\\\\d+)\"},"
			   "{\"id\": \"ring\", \"gate\": \"Chan\", \"tag\": \"topology\", \"pattern\": \"^(?:Trees |Channel \\\\d+(?:/\\\\d+)? :(?: +\\\\d+)+ *$)\"},"
			   "{\"id\": \"alt\", \"gate\": \"abcd\", \"tag\": \"topology\", \"pattern\": \"^(?:ab|a[bc]d)+x\\\\d{2,3}(?=y)\"},"
			   "{\"id\": \"loose\", \"gate\": \"1 ->\", \"tag\": \"topology\", \"pattern\": \"\\\\d -> \\\\d\"}"
			   "]}",
			   &err, &rs);
	CHECK(c, rc == 0, "the rules load: %s", err.p ? err.p : "");
	ruleset_finish(&rs);
	CHECK(c, rs.n == 4 && rs.v[0].anchored && rs.v[1].anchored && rs.v[2].anchored && !rs.v[3].anchored,
	      "three anchored rules and one that is not");
	static const char *const starts[] = { "Channel ", "Channel 0", "Channel:", "Channel 00/0 :", "misc/x.cc:",
					      "ab", "abd", "acd", "Trees ", "a", "", "-> ", "abx1" };
	static const char *const bits[] = { "0", "1", "27", " ", " -> ", "->", ":", "/", "[", "]", "ab", "cd", "x", "y", "Ch" };
	unsigned st = 11;
	int wrong = 0;
	char line[256]; /* a start and at most 40 bits of 4 bytes */
	for (int round = 0; round < 20000 && rc == 0; round++) {
		const char *s0 = starts[rnd(&st) % (sizeof starts / sizeof starts[0])];
		size_t n = strlen(s0), tail = rnd(&st) % (round % 7 ? 8 : 40);
		memcpy(line, s0, n);
		for (size_t k = 0; k < tail; k++) {
			const char *b = bits[rnd(&st) % (sizeof bits / sizeof bits[0])];
			memcpy(line + n, b, strlen(b));
			n += strlen(b);
		}
		slice s = { line, n };
		uint64_t want = 0;
		rs.ncand = 0;
		for (size_t ri = 0; ri < rs.n; ri++) {
			match m;
			if (ruleset_match_one(&rs, ri, s, &m))
				want |= 1ULL << ri;
			rs.cand[rs.ncand++] = (int)ri;
		}
		got_rules = 0;
		ruleset_match(&rs, s, SLICE_NONE, LV_NONE, on_dead_match, NULL);
		if (got_rules != want && wrong++ < 5)
			CHECK(c, false, "'%.*s': rules %llx matched, %llx match", (int)n, line, (unsigned long long)got_rules,
			      (unsigned long long)want);
	}
	CHECK(c, wrong == 0, "%d lines answered wrong", wrong);
	CHECK(c, ruleset_spared(&rs) > 1000, "matches spared: %llu", (unsigned long long)ruleset_spared(&rs));
	ruleset_free(&rs);
	sb_free(&err);
}

/* What ruleset_match gave, by rule: the captures' offsets in the text. */
typedef struct seen {
	slice text;
	int n, ri[64], ncaps[64];
	long cap[64][RULE_MAX_CAPS][2];
} seen;

static void on_seen(void *ctx, const match *m)
{
	seen *s = ctx;
	if (s->n >= 64)
		return;
	int k = s->n++;
	s->ri[k] = m->ri;
	s->ncaps[k] = m->ncaps;
	for (int i = 0; i < m->ncaps; i++) {
		s->cap[k][i][0] = m->caps[i].v.p ? (long)(m->caps[i].v.p - s->text.p) : -1;
		s->cap[k][i][1] = m->caps[i].v.p ? (long)m->caps[i].v.n : -1;
	}
}

/* A text seen again (the memo's answer) gives what PCRE2 gave it the
 * first time, captures included, and what one rule's match gives. */
static void test_memo_same(checks *c, const char *dir)
{
	catalog cat = { 0 };
	ruleset rs;
	load_shipped(c, dir, &cat, &rs);
	int wrong = 0;
	for (size_t i = 0; i < rs.n; i++)
		for (size_t k = 0; k < rs.v[i].nsamples; k++) {
			char copy[512];
			seen first = { 0 }, again = { 0 };
			first.text = slice_from(rs.v[i].samples[k]);
			rs.ncand = 0;
			for (size_t ri = 0; ri < rs.n; ri++)
				rs.cand[rs.ncand++] = (int)ri;
			ruleset_match(&rs, first.text, SLICE_NONE, LV_NONE, on_seen, &first);
			/* the same bytes elsewhere: captures point into the new text */
			snprintf(copy, sizeof copy, "%s", rs.v[i].samples[k]);
			again.text = slice_from(copy);
			for (int round = 0; round < 2; round++) {
				again.n = 0;
				ruleset_match(&rs, again.text, SLICE_NONE, LV_NONE, on_seen, &again);
				bool same = again.n == first.n;
				for (int j = 0; same && j < first.n; j++) {
					match m;
					same = again.ri[j] == first.ri[j] && again.ncaps[j] == first.ncaps[j] &&
					       memcmp(again.cap[j], first.cap[j], sizeof first.cap[j]) == 0 &&
					       ruleset_match_one(&rs, (size_t)first.ri[j], again.text, &m) &&
					       m.ncaps == first.ncaps[j];
					for (int q = 0; same && q < m.ncaps; q++)
						same = (m.caps[q].v.p ? (long)(m.caps[q].v.p - again.text.p) : -1) ==
							       first.cap[j][q][0];
				}
				if (!same && wrong++ < 5)
					CHECK(c, false, "rule %s sample '%s': seen again, another answer", rs.v[i].id, copy);
			}
		}
	CHECK(c, wrong == 0, "%d samples answered otherwise when seen again", wrong);
	CHECK(c, rs.memo && rs.memo->hits > 0, "the memo answered: %llu hits",
	      rs.memo ? (unsigned long long)rs.memo->hits : 0ULL);
	ruleset_free(&rs);
	catalog_free(&cat);
}

int main(int argc, char **argv)
{
	checks cc = { 0 }, *c = &cc;
	if (argc < 2) {
		fprintf(stderr, "usage: test_rules RULES_DIR\n");
		return 2;
	}
	test_shipped(c, argv[1]);
	test_broken(c);
	test_match_limit(c);
	test_capture_slots(c);
	test_dead_starts(c);
	test_memo_same(c, argv[1]);
	return check_done(c, "rules");
}

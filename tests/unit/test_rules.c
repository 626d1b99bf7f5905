/* The rule engine: shipped rules match their own samples through the gate;
 * broken rule files are refused with file:line:col; a catastrophic pattern
 * is stopped by the match limit on that line only. */
#include <stdlib.h>
#include <unistd.h>

#include "../../model/model.h"
#include "../../rules/rules.h"
#include "check.h"

static void test_shipped(checks *c, const char *dir)
{
	catalog cat = { 0 };
	strbuf err = { 0 }, path = { 0 };
	sb_printf(&path, "%s/catalog.json", dir);
	CHECK(c, catalog_load(&cat, path.p, &err) == 0, "catalog: %s", err.p);
	ruleset rs;
	ruleset_init(&rs, &cat, model_tag_names);
	CHECK(c, ruleset_load(&rs, dir, &err) == 0, "rules: %s", err.p);
	ruleset_finish(&rs);
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
		}
		if (r->finding)
			CHECK(c, catalog_find(&cat, r->finding) != NULL, "rule %s reports unknown id %s", r->id, r->finding);
	}
	/* every catalog id is documented */
	for (size_t i = 0; i < cat.n; i++)
		CHECK(c, strlen(cat.v[i].explain) > 200 && strlen(cat.v[i].title) > 10, "catalog %s explained", cat.v[i].id);
	ruleset_free(&rs);
	catalog_free(&cat);
	sb_free(&err);
	sb_free(&path);
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
	return check_done(c, "rules");
}

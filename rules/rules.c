#include "rules.h"
#include "jsonpos.h"
#include "memo.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../util/escape.h"
#include "../util/fileio.h"
#include "../util/nearest.h"

/* Bounds a pathological pattern on a hostile line: a few ms at worst. */
#define MATCH_LIMIT 200000
#define DEPTH_LIMIT 5000

void ruleset_init(ruleset *rs, const catalog *cat, const char *const *tags)
{
	*rs = (ruleset){ 0 };
	rs->cat = cat;
	rs->tags = tags;
	rs->limit_rule = -1;
	hashkey_random(&rs->idkey);
	rs->mctx = pcre2_match_context_create(NULL);
	pcre2_set_match_limit(rs->mctx, MATCH_LIMIT);
	pcre2_set_depth_limit(rs->mctx, DEPTH_LIMIT);
	rs->md = pcre2_match_data_create(2 * RULE_MAX_CAPS + 2, NULL);
}

/* What an anchored rule failed on: when it fails on a text, the shortest
 * start of that text from which PCRE2's partial matching says no match
 * can grow is kept (the multi-segment guarantee of PCRE2_PARTIAL_HARD:
 * after PCRE2_ERROR_NOMATCH no more text can make a match, and an
 * anchored match can start nowhere else), and every later text that
 * starts so fails without a match. Channel lines repeat the start
 * ("Channel ") that a rule of result chains fails on, thousands of times
 * a log. Learning costs a few partial matches of at most DEAD_LEN bytes;
 * a rule whose failures do not repeat stops learning. */
#define DEAD_MAX 4  /* starts kept a rule, the oldest replaced */
#define DEAD_LEN 48 /* the longest start looked for */
#define DEAD_TRIAL 8 /* learnt starts a rule gets before they must pay */
typedef struct deadpfx {
	unsigned char len[DEAD_MAX];
	char p[DEAD_MAX][DEAD_LEN];
	unsigned next;          /* the slot the next start takes */
	uint64_t learnt, spared; /* starts looked for; matches they spared */
} deadpfx;

static void dead_free(ruleset *rs)
{
	for (size_t i = 0; rs->dead && i < rs->n; i++)
		free(rs->dead[i]);
	free(rs->dead);
	rs->dead = NULL;
}

static void rule_free(rule *r)
{
	free(r->id);
	free(r->src);
	for (size_t i = 0; i < r->ngates; i++)
		free(r->gates[i]);
	free(r->gates);
	pcre2_code_free(r->re);
	pcre2_code_free(r->jre);
	free(r->finding);
	free(r->title);
	free(r->message);
	free(r->hint);
	free(r->fold);
	free(r->site);
	for (size_t i = 0; i < r->nsamples; i++)
		free(r->samples[i]);
	free(r->samples);
	for (int i = 0; i < r->ncaps; i++)
		free(r->capname[i]);
}

void ruleset_free(ruleset *rs)
{
	for (size_t i = 0; i < rs->n; i++) {
		if (!rs->clone)
			rule_free(&rs->v[i]);
		else
			pcre2_code_free(rs->v[i].jre);
	}
	free(rs->v);
	gate_free(rs->g); /* a clone's handle shares the tables */
	pcre2_match_context_free(rs->mctx);
	pcre2_match_data_free(rs->md);
	if (!rs->clone)
		hashidx_free(&rs->ids);
	dead_free(rs);
	free(rs->cand);
	free(rs->stamp);
	memo_free(rs->memo);
	linememo_free(rs->lines);
	sb_free(&rs->notes);
	for (size_t i = 0; i < rs->nfiles && !rs->clone; i++)
		free(rs->files[i]);
	if (!rs->clone)
		free(rs->files);
	*rs = (ruleset){ 0 };
}

typedef struct loadctx {
	const char *path, *text;
	int file;   /* index in the set's files */
	size_t index; /* of the rule in its file, from 0 */
	size_t obj; /* offset of the rule object being loaded */
	strbuf *err;
	size_t line_off; /* the rules come in order: lines counted up to here */
	int line;
} loadctx;

/* The line of the rule being loaded, counted on from the rule before it:
 * a file of many rules is read once, not once per rule. */
static int rule_line(loadctx *lc)
{
	if (lc->obj < lc->line_off || !lc->line) {
		lc->line_off = 0;
		lc->line = 1;
	}
	for (const char *p = lc->text + lc->line_off, *end = lc->text + lc->obj;
	     p < end && (p = memchr(p, '\n', (size_t)(end - p))); p++)
		lc->line++;
	lc->line_off = lc->obj;
	return lc->line;
}

static int fail_at(loadctx *lc, size_t off, const char *what, const char *detail)
{
	int l, c;
	jsonpos_linecol(lc->text, off, &l, &c);
	sb_printf(lc->err, "%s:%d:%d: %s%s", lc->path, l, c, what, detail ? detail : "");
	return -1;
}

static int fail_field(loadctx *lc, const char *field, const char *what)
{
	return fail_at(lc, jsonpos_field(lc->text, lc->obj, field), what, NULL);
}

static char *opt_string(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsString(v) ? xstrdup(v->valuestring) : NULL;
}

/* A list of strings, or one string. Returns false when the field has another type. */
static bool string_list(const cJSON *o, const char *k, char ***out, size_t *n)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	*out = NULL;
	*n = 0;
	if (!v)
		return true;
	if (cJSON_IsString(v)) {
		*out = xmalloc(sizeof(char *));
		(*out)[(*n)++] = xstrdup(v->valuestring);
		return true;
	}
	if (!cJSON_IsArray(v))
		return false;
	size_t cnt = (size_t)cJSON_GetArraySize(v);
	*out = xcalloc(cnt ? cnt : 1, sizeof(char *));
	const cJSON *e;
	cJSON_ArrayForEach(e, v) {
		if (!cJSON_IsString(e)) {
			for (size_t i = 0; i < *n; i++)
				free((*out)[i]);
			free(*out);
			*out = NULL;
			*n = 0;
			return false;
		}
		(*out)[(*n)++] = xstrdup(e->valuestring);
	}
	return true;
}

/* Every {name} in tpl must be a capture of r. Returns the bad name or NULL. */
static const char *template_check(const char *tpl, const rule *r, char *buf, size_t bufsz)
{
	for (const char *p = tpl; p && (p = strchr(p, '{'));) {
		const char *e = strchr(p, '}');
		if (!e)
			return "{";
		size_t n = (size_t)(e - p - 1);
		bool known = false;
		for (int i = 0; i < r->ncaps; i++)
			if (strlen(r->capname[i]) == n && memcmp(r->capname[i], p + 1, n) == 0)
				known = true;
		if (!known) {
			snprintf(buf, bufsz, "%.*s", (int)n, p + 1);
			return buf;
		}
		p = e + 1;
	}
	return NULL;
}

/* Maps the rule's captures to the slots of the names readers ask for by a
 * constant, in name-table order (the order match_get reads them in). */
static void map_slots(rule *r)
{
#define X(e, s) s,
	static const char *const names[CAPT_COUNT] = { RULE_CAPTURES(X) };
#undef X
	memset(r->slot, -1, sizeof r->slot);
	memset(r->next, -1, sizeof r->next);
	for (int i = r->ncaps - 1; i >= 0; i--)
		for (int k = 0; k < CAPT_COUNT; k++)
			if (strcmp(r->capname[i], names[k]) == 0) {
				r->next[i] = r->slot[k];
				r->slot[k] = (signed char)i;
				break;
			}
}

static int compile_pattern(loadctx *lc, rule *r, const char *pat)
{
	int code;
	PCRE2_SIZE at;
	r->re = pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED, 0, &code, &at, NULL);
	if (!r->re) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(code, msg, sizeof msg);
		size_t off = jsonpos_field(lc->text, lc->obj, "pattern");
		char detail[320];
		snprintf(detail, sizeof detail, "%s", (char *)msg);
		return fail_at(lc, jsonpos_string_byte(lc->text, off, at), "pattern: ", detail);
	}
	uint32_t opts = 0;
	pcre2_pattern_info(r->re, PCRE2_INFO_ALLOPTIONS, &opts);
	r->anchored = (opts & PCRE2_ANCHORED) != 0;
	uint32_t count = 0, size = 0;
	PCRE2_SPTR table = NULL;
	pcre2_pattern_info(r->re, PCRE2_INFO_NAMECOUNT, &count);
	pcre2_pattern_info(r->re, PCRE2_INFO_NAMEENTRYSIZE, &size);
	pcre2_pattern_info(r->re, PCRE2_INFO_NAMETABLE, &table);
	uint32_t groups = 0;
	pcre2_pattern_info(r->re, PCRE2_INFO_CAPTURECOUNT, &groups);
	if (groups > RULE_MAX_CAPS || count > RULE_MAX_CAPS)
		return fail_field(lc, "pattern", "pattern: at most 12 capture groups");
	for (uint32_t i = 0; i < count; i++) {
		const unsigned char *e = table + i * size;
		r->capnum[r->ncaps] = (e[0] << 8) | e[1];
		r->capname[r->ncaps] = xstrdup((const char *)e + 2);
		r->ncaps++;
	}
	map_slots(r);
	/* Lint: a greedy catch-all before a capture scans the whole line, then backtracks. */
	if (strstr(pat, ".*(?<") || strstr(pat, ".+(?<") || strncmp(pat, ".*", 2) == 0)
		return fail_field(lc, "pattern", "pattern: a greedy .* before a capture; anchor the capture on a literal");
	return 0;
}

static int tag_index(const ruleset *rs, const char *name)
{
	for (int i = 0; rs->tags && rs->tags[i]; i++)
		if (strcmp(rs->tags[i], name) == 0)
			return i;
	return -1;
}

/* The keys of a rule file (rules/README.md documents each): a string, or
 * a string or a list of strings. */
enum keytype { K_STRING, K_STRINGS };
static const struct rulekey {
	const char *name;
	enum keytype type;
} rule_keys[] = {
	{ "id", K_STRING },	  { "gate", K_STRINGS },   { "pattern", K_STRING }, { "finding", K_STRING },
	{ "tag", K_STRING },	  { "title", K_STRING },   { "severity", K_STRING }, { "message", K_STRING },
	{ "hint", K_STRING },	  { "fold", K_STRING },	   { "site", K_STRING },    { "level", K_STRING },
	{ "samples", K_STRINGS }, { "comment", K_STRINGS },
};
#define NRULE_KEYS (sizeof rule_keys / sizeof rule_keys[0])
static const char *const top_keys[] = { "rules", "comment" };

static bool strings_ok(const cJSON *v, enum keytype t)
{
	if (cJSON_IsString(v))
		return true;
	if (t != K_STRINGS || !cJSON_IsArray(v))
		return false;
	const cJSON *e;
	cJSON_ArrayForEach(e, v) {
		if (!cJSON_IsString(e))
			return false;
	}
	return true;
}

/* Says an unknown or doubled key of the object at lc->obj, with the
 * nearest known one; `where` names the object. */
static int fail_key(loadctx *lc, const char *where, const char *key, const char *const *known, size_t n, bool twice)
{
	char what[256];
	const char *near = twice ? NULL : nearest_word(key, known, n);
	strbuf shown = { 0 };
	escape_name(&shown, key);
	if (twice)
		snprintf(what, sizeof what, "%s: the key \"%s\" is given twice", where, shown.p);
	else if (near)
		snprintf(what, sizeof what, "%s: unknown key \"%s\"; did you mean \"%s\"?", where, shown.p, near);
	else
		snprintf(what, sizeof what, "%s: unknown key \"%s\" (see rules/README.md for the keys of a rule)", where,
			 shown.p);
	sb_free(&shown);
	return fail_at(lc, jsonpos_key(lc->text, lc->obj, key), what, NULL);
}

/* Every key of a rule is known, given once and of its type. */
static int check_keys(loadctx *lc, const cJSON *o)
{
	const char *names[NRULE_KEYS];
	for (size_t i = 0; i < NRULE_KEYS; i++)
		names[i] = rule_keys[i].name;
	/* the rule by its id, else by its place in the file */
	const cJSON *idv = cJSON_GetObjectItemCaseSensitive(o, "id");
	char where[96];
	if (cJSON_IsString(idv)) {
		strbuf shown = { 0 };
		snprintf(where, sizeof where, "rule \"%.60s\"", escape_name(&shown, idv->valuestring));
		sb_free(&shown);
	} else {
		snprintf(where, sizeof where, "rule %zu", lc->index + 1);
	}
	const cJSON *kv;
	cJSON_ArrayForEach(kv, o) {
		size_t k = 0;
		while (k < NRULE_KEYS && strcmp(rule_keys[k].name, kv->string) != 0)
			k++;
		if (k == NRULE_KEYS)
			return fail_key(lc, where, kv->string, names, NRULE_KEYS, false);
		for (const cJSON *before = o->child; before != kv; before = before->next)
			if (strcmp(before->string, kv->string) == 0)
				return fail_key(lc, where, kv->string, names, NRULE_KEYS, true);
		if (!strings_ok(kv, rule_keys[k].type)) {
			char what[160];
			snprintf(what, sizeof what, "%s: \"%s\" must be %s", where, kv->string,
				 rule_keys[k].type == K_STRING ? "a string" : "a string or a list of strings");
			return fail_at(lc, jsonpos_field(lc->text, lc->obj, kv->string), what, NULL);
		}
	}
	return 0;
}

/* Ids come from the user's rule files: keyed, as every input is. */
static uint64_t id_hash(const ruleset *rs, const char *id)
{
	return siphash(&rs->idkey, id, strlen(id));
}

typedef struct idkey {
	const ruleset *rs;
	const char *id;
} idkey;

static bool id_eq(const void *ctx, int i)
{
	const idkey *k = ctx;
	return strcmp(k->rs->v[i].id, k->id) == 0;
}

static int load_rule(ruleset *rs, loadctx *lc, const cJSON *o)
{
	if (!cJSON_IsObject(o))
		return fail_at(lc, lc->obj, "a rule must be an object", NULL);
	if (rs->n >= RULES_MAX) {
		/* noted once, where the first rule that does not fit is */
		if (!rs->dropped++)
			sb_printf(&rs->notes, "%s:%d: more than %d rules in all; this one and the rules after it are not loaded\n",
				  lc->path, rule_line(lc), RULES_MAX);
		return 0;
	}
	rule r = { 0 };
	r.tag = -1;
	if (check_keys(lc, o) != 0)
		return -1;
	strbuf src = { 0 };
	sb_printf(&src, "%s:%d", lc->path, rule_line(lc));
	r.src = sb_take(&src);
	r.file = lc->file;
	r.id = opt_string(o, "id");
	char *pat = opt_string(o, "pattern");
	char *tag = opt_string(o, "tag");
	char *sev = opt_string(o, "severity");
	char *lvs = opt_string(o, "level");
	int rc = -1;
	char name[80];
	const char *bad;
	if (!r.id || !catalog_id_ok(r.id)) {
		fail_field(lc, "id", "a rule needs an \"id\" of lowercase letters, digits and '-'");
		goto out;
	}
	idkey ik = { rs, r.id };
	if (hashidx_find(&rs->ids, id_hash(rs, r.id), id_eq, &ik) >= 0) {
		fail_field(lc, "id", "duplicate rule id");
		goto out;
	}
	if (!string_list(o, "gate", &r.gates, &r.ngates) || r.ngates == 0) {
		fail_field(lc, "gate", "a rule needs a \"gate\": a literal (or a list) that every match contains");
		goto out;
	}
	for (size_t i = 0; i < r.ngates; i++)
		if (strlen(r.gates[i]) < 4) {
			fail_field(lc, "gate", "a gate literal needs at least 4 characters");
			goto out;
		}
	if (!pat) {
		fail_field(lc, "pattern", "a rule needs a \"pattern\"");
		goto out;
	}
	if (compile_pattern(lc, &r, pat) != 0)
		goto out;
	r.finding = opt_string(o, "finding");
	if (tag && (r.tag = tag_index(rs, tag)) < 0) {
		fail_field(lc, "tag", "unknown tag");
		goto out;
	}
	if (!r.finding && r.tag < 0) {
		fail_at(lc, lc->obj, "a rule needs a \"finding\" or a \"tag\"", NULL);
		goto out;
	}
	if (r.finding) {
		const catentry *ce = rs->cat ? catalog_find(rs->cat, r.finding) : NULL;
		r.title = opt_string(o, "title");
		if (!catalog_id_ok(r.finding) || (!ce && !r.title)) {
			fail_field(lc, "finding", "unknown finding id (a new id needs a \"title\")");
			goto out;
		}
		r.severity = ce ? ce->severity : SEV_WARNING;
		if (sev && !severity_parse(sev, &r.severity)) {
			fail_field(lc, "severity", "severity must be error, warning or info");
			goto out;
		}
	}
	r.message = opt_string(o, "message");
	r.hint = opt_string(o, "hint");
	r.fold = opt_string(o, "fold");
	r.site = opt_string(o, "site");
	if (lvs) {
		if (strcmp(lvs, "WARN") == 0)
			r.level = LV_WARN;
		else if (strcmp(lvs, "INFO") == 0)
			r.level = LV_INFO;
		else {
			fail_field(lc, "level", "level must be WARN or INFO");
			goto out;
		}
	}
	const char *tpls[] = { r.message, r.hint, r.fold };
	const char *tplk[] = { "message", "hint", "fold" };
	for (int i = 0; i < 3; i++)
		if ((bad = template_check(tpls[i], &r, name, sizeof name))) {
			char what[160];
			snprintf(what, sizeof what, "template names {%s}, which the pattern does not capture", bad);
			fail_field(lc, tplk[i], what);
			goto out;
		}
	if (!string_list(o, "samples", &r.samples, &r.nsamples)) {
		fail_field(lc, "samples", "\"samples\" must be a list of strings");
		goto out;
	}
	grow(&rs->v, &rs->cap, rs->n, sizeof *rs->v);
	rs->v[rs->n] = r;
	hashidx_put(&rs->ids, id_hash(rs, r.id), (int)rs->n++);
	rc = 0;
out:
	if (rc)
		rule_free(&r);
	free(pat);
	free(tag);
	free(sev);
	free(lvs);
	return rc;
}

/* Whether path is a file the set has loaded; if not, it is now one. */
static bool already_loaded(ruleset *rs, const char *path, int *index)
{
	char *real = realpath(path, NULL);
	if (!real)
		real = xstrdup(path);
	for (size_t i = 0; i < rs->nfiles; i++)
		if (strcmp(rs->files[i], real) == 0) {
			free(real);
			return true;
		}
	grow(&rs->files, &rs->filescap, rs->nfiles, sizeof *rs->files);
	*index = (int)rs->nfiles;
	rs->files[rs->nfiles++] = real;
	return false;
}

static int load_file(ruleset *rs, const char *path, strbuf *err)
{
	/* a user rule named again (rules test ~/.config/ncclog/rules.d/x.json),
	 * or a file given twice: its rules are there already */
	int file;
	if (already_loaded(rs, path, &file))
		return 0;
	char *text;
	size_t len;
	if (file_slurp_regular(path, &text, &len, err) != 0)
		return -1;
	/* the name rule locations and messages show: never a raw control byte */
	strbuf shown = { 0 };
	loadctx lc = { .path = escape_name(&shown, path), .text = text, .file = file, .err = err };
	cJSON *doc = cJSON_ParseWithLength(text, len);
	int rc = 0;
	if (!doc) {
		const char *at = cJSON_GetErrorPtr();
		rc = fail_at(&lc, at && at >= text && at <= text + len ? (size_t)(at - text) : 0, "invalid JSON", NULL);
		free(text);
		sb_free(&shown);
		return rc;
	}
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(doc, "rules");
	const cJSON *kv;
	if (cJSON_IsObject(doc))
		cJSON_ArrayForEach(kv, doc) {
			if (rc == 0 && strcmp(kv->string, "rules") != 0 && strcmp(kv->string, "comment") != 0)
				rc = fail_key(&lc, "the file", kv->string, top_keys, 2, false);
		}
	if (rc != 0) {
		/* said */
	} else if (!cJSON_IsArray(arr)) {
		rc = fail_at(&lc, 0, "expected an object with a \"rules\" array", NULL);
	} else {
		size_t cnt = (size_t)cJSON_GetArraySize(arr);
		size_t *offs = xcalloc(cnt ? cnt : 1, sizeof *offs);
		size_t noffs = jsonpos_elements(text, "rules", offs, cnt);
		size_t k = 0;
		const cJSON *o;
		cJSON_ArrayForEach(o, arr) {
			lc.obj = k < noffs ? offs[k] : 0;
			lc.index = k;
			if ((rc = load_rule(rs, &lc, o)) != 0)
				break;
			k++;
		}
		free(offs);
	}
	cJSON_Delete(doc);
	free(text);
	sb_free(&shown);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int ruleset_load(ruleset *rs, const char *path, strbuf *err)
{
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
		return load_file(rs, path, err);
	DIR *d = opendir(path);
	if (!d) {
		sb_printf(err, "%s: cannot open directory", path);
		return -1;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		if (len > 5 && strcmp(de->d_name + len - 5, ".json") == 0 && strcmp(de->d_name, "catalog.json") != 0 &&
		    strcmp(de->d_name, "causes.json") != 0) {
			grow(&names, &cap, n, sizeof *names);
			strbuf p = { 0 };
			sb_printf(&p, "%s/%s", path, de->d_name);
			names[n++] = sb_take(&p);
		}
	}
	closedir(d);
	qsort(names, n, sizeof *names, cmp_str);
	int rc = 0;
	strbuf shown = { 0 };
	for (size_t i = 0; i < n; i++) {
		/* a FIFO or a device among the rule files would block or never
		 * end: it is skipped, with a note */
		if (rc == 0 && stat(names[i], &st) == 0 && !S_ISREG(st.st_mode))
			sb_printf(&rs->notes, "%s: is %s, not a regular file; skipped\n", escape_name(&shown, names[i]),
				  file_kind_name(st.st_mode));
		else if (rc == 0)
			rc = load_file(rs, names[i], err);
		free(names[i]);
	}
	sb_free(&shown);
	free(names);
	return rc;
}

void ruleset_finish(ruleset *rs)
{
	/* The words that make a line a possible NCCL record ride the same pass. */
	static const char *const record_words[] = {
		"NCCL ", "] INFO ", "] WARN ", "0 WARN ", "1 WARN ", "2 WARN ", "3 WARN ", "4 WARN ",
		"5 WARN ", "6 WARN ", "7 WARN ", "8 WARN ", "9 WARN ",
	};
	size_t nwords = sizeof record_words / sizeof record_words[0];
	size_t total = nwords;
	for (size_t i = 0; i < rs->n; i++)
		total += rs->v[i].ngates;
	slice *pats = xcalloc(total, sizeof *pats);
	int *vals = xcalloc(total, sizeof *vals);
	size_t k = 0;
	for (size_t i = 0; i < nwords; i++) {
		pats[k] = slice_from(record_words[i]);
		vals[k++] = -1;
	}
	for (size_t i = 0; i < rs->n; i++)
		for (size_t j = 0; j < rs->v[i].ngates; j++) {
			pats[k] = slice_from(rs->v[i].gates[j]);
			vals[k++] = (int)i;
		}
	gate_free(rs->g);
	rs->g = gate_build(pats, vals, k);
	free(pats);
	free(vals);
	free(rs->cand);
	free(rs->stamp);
	dead_free(rs);
	rs->cand = xcalloc(rs->n ? rs->n : 1, sizeof *rs->cand);
	rs->stamp = xcalloc(rs->n ? rs->n : 1, sizeof *rs->stamp);
	rs->dead = xcalloc(rs->n ? rs->n : 1, sizeof *rs->dead);
	rs->gen = 0;
	memo_free(rs->memo);
	rs->memo = memo_new(rs->n);
	linememo_free(rs->lines);
	rs->lines = rs->no_lines ? NULL : linememo_new();
}

void ruleset_clone(ruleset *dst, const ruleset *src)
{
	ruleset_init(dst, src->cat, src->tags);
	dst->clone = true;
	dst->dropped = src->dropped;
	dst->n = dst->cap = src->n;
	dst->v = xmalloc((src->n ? src->n : 1) * sizeof *dst->v);
	memcpy(dst->v, src->v, src->n * sizeof *dst->v);
	for (size_t i = 0; i < src->n; i++)
		dst->v[i].jre = NULL; /* it makes JIT copies of its own */
	dst->g = src->g ? gate_clone(src->g) : NULL;
	dst->cand = xcalloc(src->n ? src->n : 1, sizeof *dst->cand);
	dst->stamp = xcalloc(src->n ? src->n : 1, sizeof *dst->stamp);
	dst->dead = xcalloc(src->n ? src->n : 1, sizeof *dst->dead);
	dst->memo = memo_new(src->n);
	dst->no_lines = src->no_lines;
	dst->lines = src->no_lines ? NULL : linememo_new();
}

void ruleset_forget_lines(ruleset *rs)
{
	linememo_free(rs->lines);
	rs->lines = NULL;
	rs->no_lines = true;
}

void ruleset_accelerate(ruleset *rs, uint64_t bytes)
{
	if (rs->g)
		gate_accelerate(rs->g, bytes);
}

bool ruleset_accelerable(const ruleset *rs)
{
	return rs->g && gate_accelerable(rs->g);
}

static void on_gate_hit(void *ctx, int ri)
{
	ruleset *rs = ctx;
	if (ri < 0) {
		rs->record_hint = true;
		return;
	}
	if (rs->stamp[ri] == rs->gen)
		return;
	rs->stamp[ri] = rs->gen;
	/* keep candidates in rule order: rules earlier in the files run first */
	size_t i = rs->ncand;
	while (i > 0 && rs->cand[i - 1] > ri) {
		rs->cand[i] = rs->cand[i - 1];
		i--;
	}
	rs->cand[i] = ri;
	rs->ncand++;
}

size_t ruleset_gate(ruleset *rs, slice line)
{
	if (++rs->gen == 0) {
		memset(rs->stamp, 0, rs->n * sizeof *rs->stamp);
		rs->gen = 1;
	}
	rs->ncand = 0;
	rs->record_hint = false;
	gate_scan(rs->g, line, on_gate_hit, rs);
	return rs->ncand;
}

size_t ruleset_gate_found(ruleset *rs, const int *vals, size_t n)
{
	rs->ncand = 0;
	rs->record_hint = false;
	if (!n)
		return 0; /* most lines */
	if (++rs->gen == 0) {
		memset(rs->stamp, 0, rs->n * sizeof *rs->stamp);
		rs->gen = 1;
	}
	rs->ncand = 0;
	rs->record_hint = false;
	for (size_t i = 0; i < n; i++)
		on_gate_hit(rs, vals[i]);
	return rs->ncand;
}

void ruleset_hits_save(const ruleset *rs, gatehits *h)
{
	h->n = rs->ncand < GATEHITS_MAX ? rs->ncand : GATEHITS_MAX;
	h->overflow = rs->ncand > GATEHITS_MAX;
	memcpy(h->cand, rs->cand, h->n * sizeof *h->cand);
	h->hint = rs->record_hint;
}

bool ruleset_hits_restore(ruleset *rs, const gatehits *h)
{
	if (h->overflow)
		return false;
	memcpy(rs->cand, h->cand, h->n * sizeof *h->cand);
	rs->ncand = h->n;
	rs->record_hint = h->hint;
	return true;
}

static void limit_note(ruleset *rs)
{
	const rule *r = &rs->v[rs->limit_rule];
	sb_printf(&rs->notes,
		  "rule %s (%s) gave up on a line at the match limit: that line counts as not matched by it, and the "
		  "rule goes on with the others\n",
		  r->id, r->src);
}

void ruleset_absorb(ruleset *dst, const ruleset *clone)
{
	if (clone->notes.n)
		sb_add(&dst->notes, clone->notes.p, clone->notes.n);
	if (clone->limit_hits && !dst->limit_hits++) {
		dst->limit_rule = clone->limit_rule;
		limit_note(dst);
	}
	if (clone->limit_hits)
		dst->limit_hits += clone->limit_hits - 1;
}

/* True when text starts with a start rule ri is known to fail on. */
static bool dead_known(ruleset *rs, size_t ri, slice text)
{
	deadpfx *d = rs->dead ? rs->dead[ri] : NULL;
	if (!d)
		return false;
	for (int k = 0; k < DEAD_MAX; k++) {
		size_t n = d->len[k];
		if (n && n <= text.n && memcmp(d->p[k], text.p, n) == 0) {
			d->spared++;
			return true;
		}
	}
	return false;
}

/* True when no match of r can grow from the first n bytes of text. */
static bool dead_at(ruleset *rs, const rule *r, slice text, size_t n)
{
	return pcre2_match(r->re, (PCRE2_SPTR)text.p, n, 0, PCRE2_PARTIAL_HARD, rs->md, rs->mctx) == PCRE2_ERROR_NOMATCH;
}

/* Rule ri (anchored) did not match text: keeps the shortest start of it
 * that no match can grow from, when there is one within DEAD_LEN. */
static void dead_learn(ruleset *rs, size_t ri, slice text)
{
	if (!rs->dead || !text.n)
		return;
	deadpfx *d = rs->dead[ri];
	if (!d)
		d = rs->dead[ri] = xcalloc(1, sizeof *d);
	if (d->learnt >= DEAD_TRIAL && d->spared < DEAD_TRIAL * d->learnt)
		return; /* its failures do not repeat: learning costs more than it spares */
	d->learnt++;
	const rule *r = &rs->v[ri];
	size_t hi = text.n < DEAD_LEN ? text.n : DEAD_LEN, lo = 0;
	if (!dead_at(rs, r, text, hi))
		return; /* decided further on */
	/* hi is dead, lo is not (or empty): the shortest dead start between */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (dead_at(rs, r, text, mid))
			hi = mid;
		else
			lo = mid;
	}
	unsigned k = d->next++ % DEAD_MAX;
	memcpy(d->p[k], text.p, hi);
	d->len[k] = (unsigned char)hi;
}

/* A copy of the rule's pattern for the JIT, made when the rule first runs:
 * most rules of a large table never do, and a compile costs what ~50
 * matches cost. Every match goes through the JIT, so its match limits are
 * the ones that count, on any thread. JIT is an optimisation: without it
 * (no JIT on this CPU) matching still works. */
static void jit_compile(rule *r)
{
	if (r->jre || r->nojit)
		return;
	r->jre = pcre2_code_copy(r->re);
	if (r->jre && pcre2_jit_compile(r->jre, PCRE2_JIT_COMPLETE) == 0)
		return;
	pcre2_code_free(r->jre);
	r->jre = NULL;
	r->nojit = true;
}

/* Matches rule ri over text into m; returns PCRE2's code (>= 0: a match). */
static int run_rule(ruleset *rs, size_t ri, slice text, match *m)
{
	rule *r = &rs->v[ri];
	jit_compile(r);
	/* the JIT's own entry: what pcre2_match would call, without its checks
	 * of options that no rule uses (a fifth of a match's cost) */
	int rc = r->jre ? pcre2_jit_match(r->jre, (PCRE2_SPTR)text.p, text.n, 0, 0, rs->md, rs->mctx)
			: pcre2_match(r->re, (PCRE2_SPTR)text.p, text.n, 0, 0, rs->md, rs->mctx);
	if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT || rc == PCRE2_ERROR_JIT_STACKLIMIT) {
		/* this line only: no line may switch a rule off for the rest of the run */
		if (!rs->limit_hits++) {
			rs->limit_rule = (int)ri;
			if (!rs->clone)
				limit_note(rs);
		}
		return rc;
	}
	if (rc < 0)
		return rc;
	PCRE2_SIZE *ov = pcre2_get_ovector_pointer(rs->md);
	m->r = r;
	m->ri = (int)ri;
	m->ncaps = 0;
	for (int i = 0; i < r->ncaps; i++) {
		int g = r->capnum[i];
		capture *c = &m->caps[m->ncaps++];
		c->name = r->capname[i];
		if (g < rc && ov[2 * g] != PCRE2_UNSET)
			c->v = (slice){ text.p + ov[2 * g], ov[2 * g + 1] - ov[2 * g] };
		else
			c->v = SLICE_NONE;
	}
	return rc;
}

_Static_assert(MEMO_CAPS >= RULE_MAX_CAPS, "the memo keeps every capture a rule may have");

/* Rule ri's match on text from what the memo kept of it; returns its code. */
static int memo_match(const ruleset *rs, size_t ri, slice text, const memoval *v, match *m)
{
	if (v->rc < 0)
		return v->rc;
	const rule *r = &rs->v[ri];
	m->r = r;
	m->ri = (int)ri;
	m->ncaps = r->ncaps;
	for (int i = 0; i < r->ncaps; i++) {
		capture *c = &m->caps[i];
		c->name = r->capname[i];
		c->v = v->cap[i][0] == MEMO_UNSET ? SLICE_NONE
						   : (slice){ text.p + v->cap[i][0], (size_t)(v->cap[i][1] - v->cap[i][0]) };
	}
	return v->rc;
}

/* What a memo keeps of run_rule's answer on text (shorter than 255 bytes). */
static memoval memo_value(slice text, int rc, const match *m)
{
	memoval v = { .rc = rc };
	for (int i = 0; rc >= 0 && i < m->ncaps; i++) {
		const capture *c = &m->caps[i];
		v.cap[i][0] = c->v.p ? (unsigned char)(c->v.p - text.p) : MEMO_UNSET;
		v.cap[i][1] = c->v.p ? (unsigned char)(c->v.p - text.p + c->v.n) : MEMO_UNSET;
	}
	return v;
}

/* Keeps what run_rule answered (a match, or none; never a limit). */
static void memo_keep(ruleset *rs, size_t ri, slice text, uint64_t h, int rc, const match *m)
{
	memoval v = memo_value(text, rc, m);
	memo_put(rs->memo, ri, text, h, &v);
}

/* The rules' matches on a line's record, kept in its line memo entry
 * while they are matched; kept is false when they cannot be (more than
 * fit, a match limit). */
typedef struct linelog {
	lineent *e;
	bool kept;
} linelog;

static void match_all(ruleset *rs, slice text, slice site, enum level lv, void (*fn)(void *ctx, const match *m),
		      void *ctx, linelog *log)
{
	match m;
	/* hashed once for all the rules tried on it, when one is */
	uint64_t h = 0;
	bool hashed = !rs->memo;
	for (size_t i = 0; i < rs->ncand; i++) {
		const rule *r = &rs->v[rs->cand[i]];
		if (r->site && slice_find(site, r->site, strlen(r->site)) < 0)
			continue;
		/* an ABORT is a WARN that ended the process */
		if (r->level && r->level != lv && !(r->level == LV_WARN && lv == LV_ABORT))
			continue;
		size_t ri = (size_t)rs->cand[i];
		if (r->anchored && dead_known(rs, ri, text))
			continue;
		memoval v;
		int rc;
		bool memo = rs->memo && memo_worth(rs->memo, ri);
		if (memo && !hashed) {
			h = memo_hash(rs->memo, text);
			hashed = true;
		}
		memo = memo && h;
		if (memo && memo_find(rs->memo, ri, text, h, &v)) {
			/* learnt from when it was kept: nothing to learn again */
			rc = memo_match(rs, ri, text, &v, &m);
		} else {
			rc = run_rule(rs, ri, text, &m);
			if (memo && (rc >= 0 || rc == PCRE2_ERROR_NOMATCH))
				memo_keep(rs, ri, text, h, rc, &m);
			if (rc == PCRE2_ERROR_NOMATCH && r->anchored)
				dead_learn(rs, ri, text);
		}
		if (log) {
			lineent *e = log->e;
			if (rc >= 0 && e->nmatch < LINEMEMO_MATCHES && text.n < MEMO_UNSET)
				e->match[e->nmatch++] = (linematch){ (int)ri, memo_value(text, rc, &m) };
			else if (rc != PCRE2_ERROR_NOMATCH)
				log->kept = false; /* more than fit, or a limit: this line only */
		}
		if (rc >= 0)
			fn(ctx, &m);
	}
}

void ruleset_match(ruleset *rs, slice text, slice site, enum level lv, void (*fn)(void *ctx, const match *m),
		   void *ctx)
{
	match_all(rs, text, site, lv, fn, ctx, NULL);
}

void ruleset_match_line(ruleset *rs, memoref ref, slice text, slice site, enum level lv,
			void (*fn)(void *ctx, const match *m), void *ctx)
{
	lineent *e = linememo_entry(ref);
	if (!e) {
		match_all(rs, text, site, lv, fn, ctx, NULL);
		return;
	}
	if (e->matched) {
		/* the same rules match the same text the same way */
		match m;
		for (int i = 0; i < e->nmatch; i++) {
			memo_match(rs, (size_t)e->match[i].ri, text, &e->match[i].v, &m);
			fn(ctx, &m);
		}
		return;
	}
	e->nmatch = 0;
	linelog log = { e, true };
	match_all(rs, text, site, lv, fn, ctx, &log);
	e->matched = log.kept;
}

uint64_t ruleset_spared(const ruleset *rs)
{
	uint64_t n = 0;
	for (size_t i = 0; rs->dead && i < rs->n; i++)
		n += rs->dead[i] ? rs->dead[i]->spared : 0;
	return n;
}

bool ruleset_match_one(ruleset *rs, size_t ri, slice text, match *m)
{
	return ri < rs->n && run_rule(rs, ri, text, m) >= 0;
}

slice match_get(const match *m, const char *name)
{
	/* (?J) patterns may repeat a name: the group that took part wins */
	for (int i = 0; i < m->ncaps; i++)
		if (m->caps[i].v.p && strcmp(m->caps[i].name, name) == 0)
			return m->caps[i].v;
	return SLICE_NONE;
}

slice match_cap(const match *m, enum rule_capture c)
{
	/* (?J) patterns may repeat a name: the group that took part wins */
	for (int i = m->r->slot[c]; i >= 0; i = m->r->next[i])
		if (m->caps[i].v.p)
			return m->caps[i].v;
	return SLICE_NONE;
}

void template_render(strbuf *b, const char *tpl, const match *m)
{
	for (const char *p = tpl; *p;) {
		const char *o = strchr(p, '{');
		const char *e = o ? strchr(o, '}') : NULL;
		if (!o || !e) {
			sb_adds(b, p);
			return;
		}
		sb_add(b, p, (size_t)(o - p));
		char name[64];
		snprintf(name, sizeof name, "%.*s", (int)(e - o - 1), o + 1);
		sb_addsl(b, match_get(m, name));
		p = e + 1;
	}
}

bool template_filled(const char *tpl, const match *m)
{
	bool names = false;
	for (const char *o = tpl ? strchr(tpl, '{') : NULL, *e; o && (e = strchr(o, '}')); o = strchr(e, '{')) {
		char name[64];
		snprintf(name, sizeof name, "%.*s", (int)(e - o - 1), o + 1);
		if (match_get(m, name).n)
			return true;
		names = true;
	}
	return !names;
}

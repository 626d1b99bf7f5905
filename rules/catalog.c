#include "catalog.h"
#include "jsonpos.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/escape.h"
#include "../util/fileio.h"
#include "../util/nearest.h"

bool severity_parse(const char *s, enum severity *out)
{
	static const char *names[] = { "info", "warning", "error" };
	for (int i = 0; i < 3; i++)
		if (strcmp(s, names[i]) == 0) {
			*out = (enum severity)i;
			return true;
		}
	return false;
}

const char *severity_name(enum severity s)
{
	static const char *names[] = { "info", "warning", "error" };
	return names[s];
}

static const char *str_field(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

#define X(e, s) s,
static const char *const kind_names[] = { FINDING_KINDS(X) NULL };
#undef X
static const char *const confidence_names[] = { "established", "inferred", "suspected", NULL };
static const char *const mark_names[] = { "timeout", "behind", "stuck", NULL };
static const char *const when_names[] = { "job", "same-process", "same-host", "peer", "other-process", NULL };

const char *kind_name(enum kind k)
{
	return kind_names[k];
}

const char *confidence_name(enum confidence c)
{
	return confidence_names[c];
}

/* Index of s in a NULL-terminated list, or -1. */
static int name_index(const char *const *names, const char *s)
{
	for (int i = 0; s && names[i]; i++)
		if (strcmp(names[i], s) == 0)
			return i;
	return -1;
}

bool catalog_id_ok(const char *id)
{
	if (!*id || strlen(id) > 64)
		return false;
	for (const char *p = id; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-' || *p == '.' || *p == '_'))
			return false;
	return true;
}

bool catalog_id_matches(const char *pattern, const char *id)
{
	size_t n = strlen(pattern);
	if (n && pattern[n - 1] == '*')
		return strncmp(pattern, id, n - 1) == 0;
	return strcmp(pattern, id) == 0;
}

typedef struct loader {
	const char *path, *text;
	const size_t *offs;
	size_t noffs;
	strbuf *err;
} loader;

static int fail(const loader *ld, int k, const char *what, const char *detail)
{
	int l = 1, col = 1;
	if (k >= 0 && (size_t)k < ld->noffs)
		jsonpos_linecol(ld->text, ld->offs[k], &l, &col);
	sb_printf(ld->err, "%s:%d:%d: %s%s", ld->path, l, col, what, detail ? detail : "");
	return -1;
}

static const char *const finding_keys[] = { "id",    "title",      "severity", "family",  "kind",
					     "confidence", "marks", "emitted_by", "collect", "explain" };
static const char *const edge_keys[] = { "cause", "explains", "when", "min_severity", "why" };

/* Every key of an entry is one the loader reads: a misspelled "severty"
 * would otherwise be ignored without a word. */
static int known_keys(const loader *ld, int k, const cJSON *e, const char *const *keys, size_t n)
{
	const cJSON *kv;
	cJSON_ArrayForEach(kv, e) {
		size_t i = 0;
		while (i < n && strcmp(keys[i], kv->string) != 0)
			i++;
		if (i < n)
			continue;
		const char *near = nearest_word(kv->string, keys, n);
		strbuf shown = { 0 }, what = { 0 };
		escape_name(&shown, kv->string);
		sb_printf(&what, "unknown key \"%s\"", shown.p);
		if (near)
			sb_printf(&what, "; did you mean \"%s\"?", near);
		int rc = fail(ld, k, what.p, NULL);
		sb_free(&shown);
		sb_free(&what);
		return rc;
	}
	return 0;
}

/* The optional fields of an entry: kind, confidence, marks, emitted_by. */
static int entry_extras(const loader *ld, int k, const cJSON *e, catentry *ce)
{
	const char *kind = str_field(e, "kind"), *conf = str_field(e, "confidence");
	int i;
	ce->kind = KIND_CAUSE;
	if (kind && (i = name_index(kind_names, kind)) < 0)
		return fail(ld, k, "unknown \"kind\": ", kind);
	if (kind)
		ce->kind = (enum kind)i;
	ce->confidence = CONF_INFERRED;
	if (conf && (i = name_index(confidence_names, conf)) < 0)
		return fail(ld, k, "\"confidence\" must be established, inferred or suspected: ", conf);
	if (conf)
		ce->confidence = (enum confidence)i;
	const cJSON *x;
	cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(e, "marks")) {
		if (!cJSON_IsString(x) || (i = name_index(mark_names, x->valuestring)) < 0)
			return fail(ld, k, "\"marks\" are timeout, behind or stuck", NULL);
		ce->marks |= 1u << i;
	}
	cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(e, "emitted_by")) {
		if (!cJSON_IsString(x))
			return fail(ld, k, "\"emitted_by\" is a list of strings", NULL);
		ce->emitters = xrealloc(ce->emitters, (ce->nemitters + 1) * sizeof *ce->emitters);
		ce->emitters[ce->nemitters++] = xstrdup(x->valuestring);
	}
	return 0;
}

/* causes.json: {"causes": [{"cause": ID, "explains": [ID|PREFIX*...], "when": ..., "min_severity": ...}]} */
static int load_causes(catalog *c, const char *path, strbuf *err)
{
	char *text = NULL;
	size_t len;
	if (file_slurp(path, &text, &len, err) != 0)
		return -1;
	cJSON *doc = cJSON_ParseWithLength(text, len);
	size_t offs[1024];
	loader ld = { path, text, offs, jsonpos_elements(text, "causes", offs, 1024), err };
	int rc = 0, k = 0;
	if (!doc) {
		const char *at = cJSON_GetErrorPtr();
		int l, col;
		jsonpos_linecol(text, at && at >= text && at <= text + len ? (size_t)(at - text) : 0, &l, &col);
		sb_printf(err, "%s:%d:%d: invalid JSON", path, l, col);
		free(text);
		return -1;
	}
	const cJSON *e;
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(doc, "causes")) {
		const char *cause = str_field(e, "cause"), *when = str_field(e, "when"), *ms = str_field(e, "min_severity");
		int w = when ? name_index(when_names, when) : WHEN_JOB;
		enum severity minsev = SEV_INFO;
		if ((rc = known_keys(&ld, k, e, edge_keys, sizeof edge_keys / sizeof *edge_keys)) != 0)
			break;
		if (!cause || (strcmp(cause, "*") != 0 && !catalog_find(c, cause))) {
			rc = fail(&ld, k, "an edge needs a \"cause\" that the catalog knows: ", cause);
			break;
		}
		if (w < 0 || (ms && !severity_parse(ms, &minsev))) {
			rc = fail(&ld, k, "\"when\" is job, same-process, same-host, peer or other-process; \"min_severity\" a severity", NULL);
			break;
		}
		const cJSON *x, *list = cJSON_GetObjectItemCaseSensitive(e, "explains");
		if (!cJSON_IsArray(list)) {
			rc = fail(&ld, k, "an edge needs an \"explains\" list", NULL);
			break;
		}
		cJSON_ArrayForEach(x, list) {
			const char *eff = cJSON_IsString(x) ? x->valuestring : NULL;
			size_t n = eff ? strlen(eff) : 0;
			if (!eff || (!(n && eff[n - 1] == '*') && !catalog_find(c, eff))) {
				rc = fail(&ld, k, "an edge explains an id the catalog does not know: ", eff);
				break;
			}
			grow(&c->edges, &c->edgecap, c->nedges, sizeof *c->edges);
			c->edges[c->nedges++] = (causeedge){ xstrdup(cause), xstrdup(eff), (enum cause_when)w, minsev };
		}
		if (rc)
			break;
		k++;
	}
	cJSON_Delete(doc);
	free(text);
	return rc;
}

int catalog_load(catalog *c, const char *path, strbuf *err)
{
	char *text = NULL;
	size_t len;
	if (file_slurp(path, &text, &len, err) != 0)
		return -1;
	cJSON *doc = cJSON_ParseWithLength(text, len);
	if (!doc) {
		int l, col;
		const char *at = cJSON_GetErrorPtr();
		jsonpos_linecol(text, at && at >= text && at <= text + len ? (size_t)(at - text) : 0, &l, &col);
		sb_printf(err, "%s:%d:%d: invalid JSON", path, l, col);
		free(text);
		return -1;
	}
	size_t offs[512];
	size_t noffs = jsonpos_elements(text, "findings", offs, 512);
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(doc, "findings");
	int rc = 0, k = 0;
	const cJSON *e;
	cJSON_ArrayForEach(e, arr) {
		const char *id = str_field(e, "id"), *title = str_field(e, "title");
		const char *sev = str_field(e, "severity");
		enum severity s;
		loader ld = { path, text, offs, noffs, err };
		if (known_keys(&ld, k, e, finding_keys, sizeof finding_keys / sizeof *finding_keys) != 0) {
			rc = -1;
			break;
		}
		if (!id || !title || !sev || !severity_parse(sev, &s)) {
			int l = 1, col = 1;
			if ((size_t)k < noffs)
				jsonpos_linecol(text, offs[k], &l, &col);
			sb_printf(err, "%s:%d:%d: a finding needs \"id\", \"title\" and \"severity\" (error, warning or info)", path, l, col);
			rc = -1;
			break;
		}
		grow(&c->v, &c->cap, c->n, sizeof *c->v);
		catentry *ce = &c->v[c->n++];
		*ce = (catentry){ 0 };
		ce->id = xstrdup(id);
		ce->title = xstrdup(title);
		ce->family = xstrdup(str_field(e, "family") ? str_field(e, "family") : "");
		ce->explain = xstrdup(str_field(e, "explain") ? str_field(e, "explain") : "");
		ce->collect = str_field(e, "collect") ? xstrdup(str_field(e, "collect")) : NULL;
		ce->severity = s;
		if (entry_extras(&ld, k, e, ce) != 0) {
			rc = -1;
			break;
		}
		k++;
	}
	if (rc == 0 && !cJSON_IsArray(arr)) {
		sb_printf(err, "%s:1:1: expected an object with a \"findings\" array", path);
		rc = -1;
	}
	cJSON_Delete(doc);
	free(text);
	if (rc == 0) {
		/* the cause graph lives beside the catalog */
		strbuf cp = { 0 };
		const char *slash = strrchr(path, '/');
		if (slash)
			sb_add(&cp, path, (size_t)(slash - path + 1));
		sb_adds(&cp, "causes.json");
		if (access(cp.p, F_OK) == 0)
			rc = load_causes(c, cp.p, err);
		sb_free(&cp);
	}
	return rc;
}

void catalog_free(catalog *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].id);
		free(c->v[i].family);
		free(c->v[i].title);
		free(c->v[i].explain);
		free(c->v[i].collect);
		for (size_t k = 0; k < c->v[i].nemitters; k++)
			free(c->v[i].emitters[k]);
		free(c->v[i].emitters);
	}
	free(c->v);
	for (size_t i = 0; i < c->nedges; i++) {
		free(c->edges[i].cause);
		free(c->edges[i].effect);
	}
	free(c->edges);
	*c = (catalog){ 0 };
}

const catentry *catalog_find(const catalog *c, const char *id)
{
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->v[i].id, id) == 0)
			return &c->v[i];
	return NULL;
}

const char *catalog_nearest(const catalog *c, const char *id)
{
	const char *best = NULL;
	size_t bd = (size_t)-1;
	for (size_t i = 0; i < c->n; i++) {
		size_t d = nearest_distance(id, c->v[i].id);
		if (strstr(c->v[i].id, id))
			d = d / 2;
		if (d < bd) {
			bd = d;
			best = c->v[i].id;
		}
	}
	return best;
}

#include "catalog.h"
#include "jsonpos.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "../util/fileio.h"

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
		ce->id = xstrdup(id);
		ce->title = xstrdup(title);
		ce->family = xstrdup(str_field(e, "family") ? str_field(e, "family") : "");
		ce->explain = xstrdup(str_field(e, "explain") ? str_field(e, "explain") : "");
		ce->severity = s;
		k++;
	}
	if (rc == 0 && !cJSON_IsArray(arr)) {
		sb_printf(err, "%s:1:1: expected an object with a \"findings\" array", path);
		rc = -1;
	}
	cJSON_Delete(doc);
	free(text);
	return rc;
}

void catalog_free(catalog *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].id);
		free(c->v[i].family);
		free(c->v[i].title);
		free(c->v[i].explain);
	}
	free(c->v);
	*c = (catalog){ 0 };
}

const catentry *catalog_find(const catalog *c, const char *id)
{
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->v[i].id, id) == 0)
			return &c->v[i];
	return NULL;
}

static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 64 || lb > 64)
		return 64;
	size_t row[65];
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t prev = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t cur = row[j];
			size_t best = prev + (a[i - 1] != b[j - 1]);
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			prev = cur;
		}
	}
	return row[lb];
}

const char *catalog_nearest(const catalog *c, const char *id)
{
	const char *best = NULL;
	size_t bd = (size_t)-1;
	for (size_t i = 0; i < c->n; i++) {
		size_t d = edit_distance(id, c->v[i].id);
		if (strstr(c->v[i].id, id))
			d = d / 2;
		if (d < bd) {
			bd = d;
			best = c->v[i].id;
		}
	}
	return best;
}

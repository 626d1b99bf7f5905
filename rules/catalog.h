/* The finding catalog: every id ncclog can report, with its default
 * severity, title and the long text of `ncclog explain`. */
#ifndef NCCLOG_CATALOG_H
#define NCCLOG_CATALOG_H

#include "../util/str.h"

enum severity { SEV_INFO, SEV_WARNING, SEV_ERROR };

typedef struct catentry {
	char *id, *family, *title, *explain;
	enum severity severity;
} catentry;

typedef struct catalog {
	catentry *v;
	size_t n, cap;
} catalog;

/* Loads a catalog file. On error, 0 is not returned and *err says why
 * ("file:line:col: message"). */
int catalog_load(catalog *c, const char *path, strbuf *err);
void catalog_free(catalog *c);
const catentry *catalog_find(const catalog *c, const char *id);
/* The known id closest to `id` (edit distance), for "did you mean". */
const char *catalog_nearest(const catalog *c, const char *id);

bool severity_parse(const char *s, enum severity *out);
const char *severity_name(enum severity s);

#endif

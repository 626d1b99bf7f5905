/* String interning: equal strings get equal small ids, so the job model
 * stores hosts, interfaces and versions as ints and never per-line copies. */
#ifndef NCCLOG_INTERN_H
#define NCCLOG_INTERN_H

#include "str.h"

typedef struct intern {
	char **strs;
	size_t n, cap;
	int *table; /* open addressing, -1 = empty */
	size_t tcap;
} intern;

void intern_init(intern *t);
void intern_free(intern *t);
/* Returns the id of s, adding it when new. */
int intern_get(intern *t, slice s);
/* Returns the id of s or -1 when it was never added. */
int intern_find(const intern *t, slice s);
const char *intern_str(const intern *t, int id);

#endif

/* Fake file trees for doctor's unit tests: tree_put writes ROOT/REL (its
 * folders created) with the given text. */
#ifndef NCCLOG_TEST_DOCTOR_TREE_H
#define NCCLOG_TEST_DOCTOR_TREE_H

#include <stdio.h>
#include <stdlib.h>

static inline void tree_put(const char *root, const char *rel, const char *text)
{
	char p[4096], cmd[4200];
	snprintf(p, sizeof p, "%s/%s", root, rel);
	snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s')\"", p);
	if (system(cmd) != 0)
		return;
	FILE *f = fopen(p, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

#endif

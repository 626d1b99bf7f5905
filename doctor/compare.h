/* `ncclog doctor --compare`: the JSON documents of several nodes, merged
 * into one report, with the checks that need them all: nodes that would
 * bootstrap on different subnets, NCCL variables set differently. */
#ifndef NCCLOG_DOCTOR_COMPARE_H
#define NCCLOG_DOCTOR_COMPARE_H

#include "../model/model.h"
#include "ifaces.h"

typedef struct cnode {
	char *host;
	int proc, file;
	uint64_t boot_line;   /* line of "bootstrap" in the file, 0 */
	uint64_t env_line;    /* line of "env" */
	bool has_boot;
	dif boot;             /* name, addr, prefix of the predicted bootstrap interface */
	diflist ifs;          /* the node's addresses */
	char **env;           /* "NAME=value", sorted */
	size_t nenv;
} cnode;

typedef struct compare {
	cnode *v;
	size_t n, cap;
} compare;

/* Reads one node's `doctor --format json` document into m and c. On error,
 * -1 is returned and *err says "path: reason". On success, 0 is returned. */
int compare_load(compare *c, model *m, const char *path, strbuf *err);
/* Adds the cross-node findings. */
void compare_check(compare *c, model *m);
void compare_free(compare *c);

#endif

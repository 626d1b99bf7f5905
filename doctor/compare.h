/* `ncclog doctor --compare`: the JSON documents of several nodes, merged
 * into one report, with the checks that need them all: nodes that would
 * bootstrap on different subnets, NCCL variables set differently. */
#ifndef NCCLOG_DOCTOR_COMPARE_H
#define NCCLOG_DOCTOR_COMPARE_H

#include "../model/model.h"
#include "ifaces.h"

/* One name as a node resolves it. */
typedef struct cname {
	char *name;
	ipaddr addr;
	bool self;            /* the node's own host name */
} cname;

typedef struct cnode {
	char *host;
	int proc, file;
	/* lines of the members in the file, for evidence; 0 when absent */
	uint64_t boot_line, env_line, nccl_line, driver_line, plugin_line, rdma_line, hostname_line, peers_line;
	bool has_boot;
	dif boot;             /* name, addr, prefix, mtu of the predicted bootstrap interface */
	char *boot_driver, *boot_fw; /* "driver version" and firmware of that interface; NULL unknown */
	diflist ifs;          /* the node's addresses */
	char **env;           /* "NAME=value", sorted: NCCL_*, TORCH_NCCL_*, MASTER_ADDR, MASTER_PORT */
	size_t nenv;
	char *nccl;           /* the version of the NCCL it loads, NULL unknown */
	char *nccl_path;
	bool nccl_known;      /* the report says where it looked (an older report does not) */
	char *driver;         /* "550.54.14 (CUDA 12.4)", NULL unknown */
	bool has_plugin;      /* the report says which net plugin NCCL finds */
	char *plugin;         /* its name or path; NULL when there is none */
	char *net;            /* the predicted network */
	int rdma_active;      /* ACTIVE RDMA ports */
	char *links;          /* their link layers, "Ethernet" or "Ethernet,InfiniBand"; NULL */
	char *rdma_fw;        /* the firmware of the first ACTIVE port's device; NULL */
	cname *names;         /* peers and itself, as it resolves them */
	size_t nnames;
} cnode;

typedef struct compare {
	cnode *v;
	size_t n, cap;
} compare;

/* Reads one node's `doctor --format json` document into m and c. On error,
 * -1 is returned and *err says "path: reason". On success, 0 is returned. */
int compare_load(compare *c, model *m, const char *path, strbuf *err);
/* Adds the cross-node findings: subnets, environment, host names here;
 * versions, drivers, NICs, plugins and names in crosscheck.h. */
void compare_check(compare *c, model *m);
void compare_free(compare *c);

#endif

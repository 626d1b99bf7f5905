/* What a node offers NCCL besides its interfaces: /dev/shm, the memlock
 * limit, RDMA ports, GPUs and the NCCL variables of the environment. */
#ifndef NCCLOG_DOCTOR_NODE_H
#define NCCLOG_DOCTOR_NODE_H

#include <stdint.h>

#include "../util/str.h"
#include "gid.h"

#define NODE_MAX_GIDS 64   /* non-zero GID entries kept per port */

typedef struct ibport {
	char dev[64];
	int port;
	char state[64];   /* "ACTIVE", "DOWN", ... ("4: ACTIVE" in sysfs) */
	char link[64];    /* "InfiniBand" or "Ethernet" (RoCE) */
	char fw[64];      /* the device's fw_ver, "" */
	char rate[64];    /* "200 Gb/sec (4X HDR)", "" */
	char netdev[32];  /* the interface of a RoCE port (its GID 0), "" */
	gident *gids;     /* the non-zero entries of its GID table */
	size_t ngids;
	int gid_tbl_len;
} ibport;

typedef struct envvar {
	char *name, *value;
} envvar;

/* Where to look; tests point these at a fake tree. */
typedef struct node_paths {
	const char *shm;  /* "/dev/shm" */
	const char *dev;  /* "/dev": nvidia0, nvidia1, ... */
	const char *ib;   /* "/sys/class/infiniband" */
} node_paths;

extern const node_paths node_default_paths;

typedef struct node_facts {
	char host[256];
	long pid;             /* of this process: the node's row in reports */
	int gpus;             /* local GPUs: --gpus, else /dev/nvidiaN count */
	bool gpus_given;
	bool shm_ok;          /* statvfs worked */
	uint64_t shm_size, shm_free;
	bool memlock_unlimited;
	uint64_t memlock_soft, memlock_hard;
	ibport *ib;
	size_t nib;
	envvar *env;          /* NCCL_* and TORCH_NCCL_*, sorted by name */
	size_t nenv;
} node_facts;

/* Gathers the facts of this node; gpus < 0 means "count the devices".
 * Never fails: what cannot be read stays unset. */
void node_collect(node_facts *f, const node_paths *p, char *const *environ_, int gpus);
void node_free(node_facts *f);
/* The value of an NCCL variable of the environment, or NULL. */
const char *node_env(const node_facts *f, const char *name);
/* Bytes of /dev/shm NCCL needs for `gpus` local GPUs at NCCL_BUFFSIZE
 * `buffsize` (0: the default 4 MiB). */
uint64_t node_shm_need(int gpus, uint64_t buffsize);
/* True for the settings analyze flags as risky: transports disabled,
 * forced ALGO/PROTO, graph or topology files. */
bool node_env_risky(const char *name, const char *value);
/* "64.0 MiB" into b. */
void node_bytes_str(uint64_t n, strbuf *b);

#endif

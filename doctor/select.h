/* NCCL's choice of socket interfaces, predicted from an interface list and
 * the environment, by the rules of NCCL's src/misc/socket.cc (findInterfaces,
 * ncclFindInterfaces, ncclFindInterfaceMatchSubnet) across versions 2.3 to
 * 2.30. Pure: no system call, so tests can feed it any list. */
#ifndef NCCLOG_DOCTOR_SELECT_H
#define NCCLOG_DOCTOR_SELECT_H

#include "ifaces.h"

#define SEL_MAX_IFS 16            /* NCCL's MAX_IFS */
#define SEL_VERSION(a, b, c) ((a) * 10000 + (b) * 100 + (c))
#define SEL_VERSION_LATEST SEL_VERSION(2, 30, 7)

/* Which step of NCCL's order produced a choice. */
enum sel_step {
	SEL_NONE,     /* nothing matched */
	SEL_USER,     /* NCCL_SOCKET_IFNAME */
	SEL_IB,       /* the "ib" prefix */
	SEL_COMM_ID,  /* the subnet of NCCL_COMM_ID */
	SEL_DEFAULT,  /* "^docker,lo" (from 2.28.3 "^docker,lo,virbr") */
	SEL_DOCKER,
	SEL_LO,
	SEL_VIRBR,    /* from 2.28.3 */
};

typedef struct sel_input {
	const char *ifname;   /* NCCL_SOCKET_IFNAME; NULL when unset */
	const char *comm_id;  /* NCCL_COMM_ID; NULL when unset */
	ipaddr comm_addr;     /* its address when comm_id names a host (resolved by the caller); family 0 otherwise */
	const char *family;   /* NCCL_SOCKET_FAMILY; NULL when unset */
	int version;          /* SEL_VERSION(); 0 means the latest */
} sel_input;

typedef struct sel_pick {
	int idx[SEL_MAX_IFS]; /* indices into the interface list, in NCCL's order */
	int n;
	enum sel_step step;
	char list[64];        /* the list that matched, e.g. "^docker,lo,virbr" */
	char why[384];        /* one sentence: why these */
} sel_pick;

typedef struct sel_result {
	sel_pick boot;        /* bootstrap: 1 interface from 2.8.3 */
	sel_pick sock;        /* NET/Socket: up to 16 */
	bool ifname_ignored;  /* NCCL_SOCKET_IFNAME set to a value of length <= 1 */
	bool comm_id_bad;     /* NCCL_COMM_ID set but no address could be read from it */
	int down[SEL_MAX_IFS];/* interfaces a tried list matched but NCCL skips: not RUNNING (2.28.3+) */
	int ndown;
} sel_result;

/* Predicts bootstrap and NET/Socket interfaces for ifs[0..n) (kernel order). */
void select_predict(const dif *ifs, size_t n, const sel_input *in, sel_result *out);
/* Parses "2.28.3", "2.28.3-1", "v2.28.3", "2.28.3+cuda12.2" into *out
 * (SEL_VERSION form). Returns false when s is no version. */
bool select_version_parse(const char *s, int *out);
/* True when name would match NCCL list `list` (with its ^ and = forms) for
 * NCCL `version`. */
bool select_list_matches(const char *list, const char *name, int version);
/* The host part of an NCCL_COMM_ID value ("h:p", "[v6]:p") into buf;
 * returns false when it has none. */
bool select_comm_id_host(const char *comm_id, char *buf, size_t size);

#endif

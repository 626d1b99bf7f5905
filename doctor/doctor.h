/* `ncclog doctor`: what NCCL will find on this node, as findings of the
 * same catalog as `analyze`. The facts are gathered by ifaces/node/peers;
 * everything from facts to findings is pure and testable. */
#ifndef NCCLOG_DOCTOR_H
#define NCCLOG_DOCTOR_H

#include "../model/model.h"
#include "ifaces.h"
#include "node.h"
#include "peers.h"
#include "select.h"

typedef struct doctor_facts {
	diflist ifs;
	node_facts node;
	peerlist peers;
	bool connected;          /* --connect ran */
	sel_input sel;           /* from node.env; sel.version from --nccl-version or the latest */
	bool version_given;
	sel_result pick;         /* at sel.version */
	sel_result pick_old;     /* before 2.28.3, when no version was given */
	int suggest;             /* the interface to name in NCCL_SOCKET_IFNAME, -1 */
	char net[32];            /* the predicted transport: "IB", "Socket" or NCCL_NET */
} doctor_facts;

/* The report's own lines, one pseudo-input per section ("doctor:ifaces"),
 * which findings cite as evidence. */
enum doctor_section { DS_IFACES, DS_NCCL, DS_NODE, DS_ENV, DS_PEERS, DS_COUNT };

typedef struct doctor_report {
	int file[DS_COUNT];      /* model input of each section */
	char **lines[DS_COUNT];
	size_t n[DS_COUNT], cap[DS_COUNT];
	int proc;                /* the node as a process of the model */
} doctor_report;

extern const char *const doctor_section_names[DS_COUNT];

/* Reads NCCL_SOCKET_IFNAME, NCCL_COMM_ID and NCCL_SOCKET_FAMILY from
 * f->node.env into f->sel and predicts (f->pick, f->pick_old, f->suggest,
 * f->net). Pure. */
void doctor_predict(doctor_facts *f);
/* Writes the report lines and adds the findings of one node to m. Pure. */
void doctor_diagnose(model *m, const doctor_facts *f, doctor_report *r);
void doctor_report_free(doctor_report *r);
void doctor_facts_free(doctor_facts *f);
/* "lo", docker*, veth*, ... and link-local addresses: what NCCL must not
 * use between nodes. 0 routable, 1 loopback, 2 virtual, 3 link-local. */
int doctor_iface_kind(const dif *d);

#endif

/* The checks of `ncclog doctor --compare` that ask "do the nodes agree?":
 * the NCCL each loads, CUDA drivers, the MTU and NIC of NCCL's interface,
 * RDMA port counts, link layers and firmware, net plugins, the network
 * NCCL picks, and how each node resolves the others' names. Each finding
 * names the hosts on each side. */
#ifndef NCCLOG_DOCTOR_CROSSCHECK_H
#define NCCLOG_DOCTOR_CROSSCHECK_H

#include "compare.h"

/* Adds those findings to m. */
void crosscheck_run(const compare *c, model *m);

#endif

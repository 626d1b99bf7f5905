/* Causes and consequences: the cause graph of the catalog applied to a
 * job's findings, and the order a report gives them. */
#ifndef NCCLOG_CAUSES_H
#define NCCLOG_CAUSES_H

#include "model.h"

/* Sets each finding's cause: the finding that an edge of the cause graph
 * lets explain it, where both meet as the edge asks (job, process, host,
 * peer), earlier in the causal chain and not later in time. Suspicions
 * that a proven finding explains are marked demoted. The last step of
 * model_check. */
void causes_link(model *m);
/* Orders the findings for a report: the roots (findings nothing explains)
 * by the worst severity of their group, then the processes it covers, its
 * size and its time; each root followed, depth first, by what it
 * explains. Sets root, depth, nconseq and fs.nroots; cause indices follow
 * the findings. */
void model_order(model *m);

#endif

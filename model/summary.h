/* The job model as a mergeable JSON summary: `ncclog analyze --summary` on
 * each node, then `ncclog merge` of the summaries gives the findings of
 * analyzing all the logs at once. */
#ifndef NCCLOG_SUMMARY_H
#define NCCLOG_SUMMARY_H

#include <cjson/cJSON.h>

#include "model.h"

/* The whole state of m (before its job-level checks), as a new JSON object. */
cJSON *summary_write(const model *m);
/* Loads a summary into m, which must be freshly initialized. Every value
 * is checked against what the model allows there (an integer, an index
 * below its table's count, a rank below its communicator's nranks). On
 * error, -1 is returned, *err names the first bad field ("summary field
 * comms[3].seen[2]: rank 70000 outside [0, 8)") and m is only fit to be
 * freed. On success, 0 is returned. */
int summary_read(model *m, const cJSON *doc, strbuf *err);

#endif

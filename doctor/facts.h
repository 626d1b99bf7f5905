/* A node's facts and prediction as the "node" member of doctor's JSON
 * document: what `ncclog doctor --compare` reads back. */
#ifndef NCCLOG_DOCTOR_FACTS_H
#define NCCLOG_DOCTOR_FACTS_H

#include <cjson/cJSON.h>

#include "doctor.h"

/* Returns a new object; the caller owns it. */
cJSON *facts_json(const doctor_facts *f);

#endif

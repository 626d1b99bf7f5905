/* From the facts of one node to the report's lines and findings, with the
 * ids and formats of `ncclog analyze`. Pure: no system call. */
#ifndef NCCLOG_DOCTOR_DIAGNOSE_H
#define NCCLOG_DOCTOR_DIAGNOSE_H

#include "../model/model.h"
#include "doctor.h"

/* The report's own lines, one pseudo-input per section ("doctor:ifaces"),
 * which findings cite as evidence. New sections go at the end: the inputs
 * of the JSON document keep their order. */
enum doctor_section { DS_IFACES, DS_NCCL, DS_NODE, DS_ENV, DS_PEERS, DS_LIBS, DS_NAMES, DS_COUNT };

typedef struct doctor_report {
	int file[DS_COUNT];      /* model input of each section */
	char **lines[DS_COUNT];
	size_t n[DS_COUNT], cap[DS_COUNT];
	int proc;                /* the node as a process of the model */
} doctor_report;

extern const char *const doctor_section_names[DS_COUNT];
/* The order a reader wants them in: what is installed, then what NCCL does with it. */
extern const enum doctor_section doctor_section_order[DS_COUNT];
/* The heading of each section in the text report. */
extern const char *const doctor_section_titles[DS_COUNT];

/* Writes the report lines and adds the findings of one node to m. */
void doctor_diagnose(model *m, const doctor_facts *f, doctor_report *r);
void doctor_report_free(doctor_report *r);

#endif

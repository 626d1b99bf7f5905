/* Inside doctor_diagnose: the helpers its parts share, and the parts
 * (network in diagnose.c, the node in diag_node.c, libraries and drivers
 * in diag_libs.c, names in diag_names.c). Not an API. */
#ifndef NCCLOG_DOCTOR_DIAG_H
#define NCCLOG_DOCTOR_DIAG_H

#include "diagnose.h"

/* Appends a line to section s; returns its 1-based number. */
size_t diag_line(doctor_report *r, enum doctor_section s, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The finding of id and key, created with the catalog's title. */
finding *diag_finding(model *m, const char *id, const char *key, enum severity sev, const char *msg, const char *hint);
/* Cites line `line` of section s as evidence of fd (0: nothing). */
void diag_cite(finding *fd, const doctor_report *r, enum doctor_section s, size_t line);
/* The NCCL_SOCKET_IFNAME advice: a value verified against NCCL's rules. */
void diag_ifname_hint(const doctor_facts *f, strbuf *h);
/* "10.0.0.5" into b ("-" for no address). */
void diag_addr(const ipaddr *a, strbuf *b);

void diag_node(model *m, const doctor_facts *f, doctor_report *r);
void diag_libs(model *m, const doctor_facts *f, doctor_report *r);
void diag_names(model *m, const doctor_facts *f, doctor_report *r);

#endif

/* Calls into a shared library without trusting it: the library is opened
 * with dlopen(3) in a child process, so one that crashes, hangs, or prints
 * while it loads costs a line of the report, not the report. */
#ifndef NCCLOG_DOCTOR_PROBE_H
#define NCCLOG_DOCTOR_PROBE_H

#include <stdbool.h>

enum probe_kind {
	PROBE_NCCL_VERSION, /* ncclGetVersion(int *): needs no GPU */
	PROBE_CUDA_DRIVER,  /* cuDriverGetVersion(int *): needs no GPU, no cuInit */
	PROBE_NET_PLUGIN,   /* the name of the newest ncclNetPlugin_vN it exports */
};

typedef struct probe_result {
	bool loaded;      /* dlopen worked */
	bool called;      /* the symbol was there and the call returned */
	int rc;           /* what the call returned (ncclResult_t, CUresult) */
	int value;        /* the version it wrote */
	int abi;          /* PROBE_NET_PLUGIN: N of ncclNetPlugin_vN */
	char name[64];    /* PROBE_NET_PLUGIN: the plugin's name, printable ASCII */
	char err[256];    /* why not loaded or not called */
} probe_result;

/* Probes the library at path, waiting at most timeout_ms for the child.
 * Never fails: what went wrong is in out->err. */
void probe_run(const char *path, enum probe_kind kind, int timeout_ms, probe_result *out);

#endif

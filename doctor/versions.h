/* The NCCL a job on this node will load, the CUDA driver it will meet and
 * the net plugin NCCL will open, read without a GPU: found the way the
 * dynamic loader finds them (loader.h), then asked (probe.h), or read from
 * the version string NCCL keeps in its binary, the file name, or the
 * metadata of the wheel that installed it. */
#ifndef NCCLOG_DOCTOR_VERSIONS_H
#define NCCLOG_DOCTOR_VERSIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "loader.h"

#define VERSIONS_MAX_COPIES 8

/* How a version was learnt, best first. */
enum ver_from { VF_NONE, VF_CALL, VF_BANNER, VF_FILENAME, VF_WHEEL };

typedef struct ncclcopy {
	libcand lib;          /* owned strings */
	int code;             /* SEL_VERSION() form, 0 unknown */
	char version[32];     /* "2.21.5" */
	enum ver_from from;
	char cuda[16];        /* "12.4": the CUDA it was built for, from its version string */
	int cuda_build;       /* 1000 * major + 10 * minor, 0 */
	char wheel[160];      /* the dist-info folder of the wheel that installed it */
	char err[256];        /* why it could not be asked (loaded, called) */
} ncclcopy;

typedef struct versions {
	ncclcopy nccl[VERSIONS_MAX_COPIES]; /* [0] is the one the job loads */
	size_t nnccl;
	bool nccl_option_missing;           /* --nccl-lib named nothing usable */
	/* the CUDA driver */
	char kmod[32];        /* "550.54.14", the kernel module of /proc/driver/nvidia/version */
	int driver;           /* the CUDA version it supports, 1000 * major + 10 * minor; 0 unknown */
	bool driver_called;   /* from cuDriverGetVersion (else from NVIDIA's table by kmod) */
	bool driver_past_table; /* kmod is newer than the table: driver is a lower bound */
	char *libcuda;        /* the libcuda.so.1 the job loads, NULL */
	char libcuda_err[256];
	/* the net plugin */
	char plugin_want[300];/* the library NCCL will ask for ("libnccl-net.so"), "" for none */
	char *plugin;         /* where it is, NULL when NCCL will not find it */
	enum lib_where plugin_where;
	char plugin_name[64]; /* its ncclNet name ("AWS Libfabric"), "" */
	int plugin_abi;
	char plugin_err[256];
} versions;

typedef struct versions_opts {
	const char *nccl_lib;   /* --nccl-lib: a file or a directory; NULL */
	const char *root;       /* prefix of /proc and the system directories, "" */
	char *const *environ_;
	int timeout_ms;         /* for each probe */
	bool probe;             /* dlopen the libraries (false: names and files only) */
} versions_opts;

/* Gathers everything above. Never fails: what cannot be found stays unset. */
void versions_collect(versions *v, const versions_opts *o);
void versions_free(versions *v);

/* An ncclGetVersion() code (22105, or 2804 before 2.9) as SEL_VERSION();
 * false when it is no NCCL 2+ version. */
bool versions_decode(int code, int *out);
/* The first "NCCL version X.Y.Z[suffix]+cudaA.B" in buf: ver "X.Y.Z",
 * cuda "A.B". Pure. */
bool versions_banner_in(const char *buf, size_t len, char *ver, size_t vsize, char *cuda, size_t csize);
/* The same in the read-only data of the ELF file at path. On failure,
 * false is returned and *why (if not NULL) says why. */
bool versions_banner(const char *path, char *ver, size_t vsize, char *cuda, size_t csize, char *why, size_t wsize);
/* "2.21.5" from a file name such as libnccl.so.2.21.5. */
bool versions_from_name(const char *path, char *ver, size_t size);
/* For a library inside site-packages/nvidia/nccl/lib: the wheel's
 * dist-info folder name and its Version. */
bool versions_wheel(const char *libpath, char *dist, size_t dsize, char *ver, size_t vsize);
/* The kernel module version in the text of /proc/driver/nvidia/version. */
bool versions_kmod(const char *text, char *out, size_t size);
/* The newest CUDA a kernel module version supports by NVIDIA's table of
 * minimum drivers (CUDA 10.0 to 13.0): 1000 * major + 10 * minor, 0 when
 * older than the table; *past set when newer than its last row. */
int versions_kmod_cuda(const char *kmod, bool *past);
/* "12.4" for 12040. */
void versions_cuda_str(int v, char *buf, size_t size);
const char *versions_from_name_of(enum ver_from f);

#endif

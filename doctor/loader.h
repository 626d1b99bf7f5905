/* Where a process would load a shared library from: the order ld.so(8)
 * searches for a program that needs SONAME (LD_PRELOAD, LD_LIBRARY_PATH,
 * the ldconfig cache, the default directories), with the copies Python
 * packages install (the nvidia-nccl-cu12 wheel's site-packages/nvidia/
 * nccl/lib), which PyTorch's RUNPATH reaches after LD_LIBRARY_PATH, and a
 * conda environment's lib. Reads directories and the cache; loads nothing. */
#ifndef NCCLOG_DOCTOR_LOADER_H
#define NCCLOG_DOCTOR_LOADER_H

#include <stddef.h>

#include "../util/str.h"

enum lib_where { LW_OPTION, LW_PRELOAD, LW_LD_LIBRARY_PATH, LW_PYTHON, LW_CONDA, LW_LDCACHE, LW_DEFAULT };

typedef struct libcand {
	char *path;   /* as found: DIR/SONAME, maybe a link */
	char *real;   /* the file it resolves to */
	enum lib_where where;
	char *via;    /* what led there: the directory, site-packages or cache file */
} libcand;

typedef struct libcands {
	libcand *v;
	size_t n, cap;
} libcands;

/* The process environment the search depends on; NULL when unset. */
typedef struct loader_env {
	const char *root;              /* prefix of the system paths (cache, default and system Python dirs); "" is / */
	const char *ld_preload, *ld_library_path;
	const char *virtual_env, *conda_prefix, *path, *pythonpath, *home;
} loader_env;

/* The value of name in an environment array (NAME=value strings), or NULL. */
const char *loader_env_get(char *const *environ_, const char *name);
/* Fills e from an environment array and a root. */
void loader_env_from(loader_env *e, char *const *environ_, const char *root);
/* Appends every file the loader could take for soname, in its order, each
 * real file once. pysub is the wheel's folder inside site-packages
 * ("nvidia/nccl/lib"), or NULL to skip Python environments and conda. */
void loader_find(const loader_env *e, const char *soname, const char *pysub, libcands *out);
/* Adds one file found another way (an option): false when it does not exist. */
bool loader_add(libcands *out, const char *path, enum lib_where where, const char *via);
/* The values of an ld.so.cache image whose key is soname and whose flags
 * fit this machine, as new strings into out[0..max). Returns how many;
 * a damaged image yields what could be read safely. Pure. */
size_t loader_cache_parse(const unsigned char *buf, size_t len, const char *soname, char **out, size_t max);
/* "LD_LIBRARY_PATH", "the ldconfig cache", ... */
const char *loader_where_name(enum lib_where w);
void loader_free(libcands *c);

#endif

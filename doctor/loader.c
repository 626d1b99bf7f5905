#include "loader.h"

#include <glob.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/fileio.h"

#if defined(__x86_64__)
#define MULTIARCH "x86_64-linux-gnu"
#define CACHE_ARCH 0x0300 /* FLAG_X8664_LIB64 of glibc's dl-cache.h */
#elif defined(__aarch64__)
#define MULTIARCH "aarch64-linux-gnu"
#define CACHE_ARCH 0x0a00 /* FLAG_AARCH64_LIB64 */
#elif defined(__powerpc64__)
#define MULTIARCH "powerpc64le-linux-gnu"
#define CACHE_ARCH 0x0500 /* FLAG_POWERPC_LIB64 */
#else
#define CACHE_ARCH -1
#endif

#define CACHE_MAX_HITS 8

const char *loader_where_name(enum lib_where w)
{
	static const char *const names[] = { "--nccl-lib", "LD_PRELOAD", "LD_LIBRARY_PATH", "a Python environment",
					     "the conda environment", "the ldconfig cache", "a default directory" };
	return names[w];
}

const char *loader_env_get(char *const *env, const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; env && env[i]; i++)
		if (strncmp(env[i], name, n) == 0 && env[i][n] == '=')
			return env[i] + n + 1;
	return NULL;
}

void loader_env_from(loader_env *e, char *const *env, const char *root)
{
	*e = (loader_env){
		.root = root ? root : "",
		.ld_preload = loader_env_get(env, "LD_PRELOAD"),
		.ld_library_path = loader_env_get(env, "LD_LIBRARY_PATH"),
		.virtual_env = loader_env_get(env, "VIRTUAL_ENV"),
		.conda_prefix = loader_env_get(env, "CONDA_PREFIX"),
		.path = loader_env_get(env, "PATH"),
		.pythonpath = loader_env_get(env, "PYTHONPATH"),
		.home = loader_env_get(env, "HOME"),
	};
}

bool loader_add(libcands *out, const char *path, enum lib_where where, const char *via)
{
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return false;
	char real[PATH_MAX];
	if (!realpath(path, real))
		snprintf(real, sizeof real, "%s", path);
	for (size_t i = 0; i < out->n; i++)
		if (strcmp(out->v[i].real, real) == 0)
			return true; /* the same file by another way: the first way wins */
	grow(&out->v, &out->cap, out->n, sizeof *out->v);
	out->v[out->n++] = (libcand){ xstrdup(path), xstrdup(real), where, xstrdup(via ? via : "") };
	return true;
}

static void try_dir(libcands *out, const char *dir, const char *soname, enum lib_where where, const char *via)
{
	if (!*dir)
		return; /* an empty element means the current directory: not where a job's library lives */
	strbuf p = { 0 };
	sb_printf(&p, "%s/%s", dir, soname);
	loader_add(out, p.p, where, via ? via : dir);
	sb_free(&p);
}

/* Calls try_dir for each element of a ':'-separated list (';' too, as ld.so). */
static void try_list(libcands *out, const char *list, const char *soname, enum lib_where where)
{
	if (!list)
		return;
	while (*list) {
		size_t n = strcspn(list, ":;");
		char *dir = xstrndup(list, n);
		try_dir(out, dir, soname, where, NULL);
		free(dir);
		list += n;
		if (*list)
			list++;
	}
}

/* LD_PRELOAD entries (separated by blanks or ':') that are paths to the library. */
static void try_preload(libcands *out, const char *list, const char *soname)
{
	if (!list)
		return;
	size_t stem = strcspn(soname, "."); /* "libnccl" of "libnccl.so.2" */
	while (*list) {
		list += strspn(list, " \t:");
		size_t n = strcspn(list, " \t:");
		if (!n)
			break;
		char *e = xstrndup(list, n);
		const char *base = strrchr(e, '/');
		if (base && strncmp(base + 1, soname, stem) == 0 && base[1 + stem] == '.')
			loader_add(out, e, LW_PRELOAD, "LD_PRELOAD");
		free(e);
		list += n;
	}
}

static uint32_t rd32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The NUL-terminated string at off within [base, end), or NULL. */
static const char *cache_str(const unsigned char *base, const unsigned char *end, uint32_t off)
{
	if (off >= (size_t)(end - base))
		return NULL;
	const char *s = (const char *)base + off;
	return memchr(s, '\0', (size_t)(end - (const unsigned char *)s)) ? s : NULL;
}

static bool flags_fit(uint32_t flags)
{
	if ((flags & 0xff) != 0x03) /* FLAG_ELF_LIBC6 */
		return false;
	return CACHE_ARCH < 0 || (int)(flags & 0xff00) == CACHE_ARCH;
}

#define NEW_MAGIC "glibc-ld.so.cache1.1"
#define OLD_MAGIC "ld.so-1.7.0"

size_t loader_cache_parse(const unsigned char *buf, size_t len, const char *soname, char **out, size_t max)
{
	const unsigned char *end = buf + len, *hdr = NULL;
	size_t found = 0;
	if (len >= 48 && memcmp(buf, NEW_MAGIC, sizeof NEW_MAGIC - 1) == 0) {
		hdr = buf;
	} else if (len >= 16 && memcmp(buf, OLD_MAGIC, sizeof OLD_MAGIC - 1) == 0) {
		/* the old table, then (since glibc 2.3) the new format, 8-aligned */
		uint64_t nold = rd32(buf + 12);
		uint64_t after = 16 + nold * 12;
		uint64_t at = (after + 7) & ~(uint64_t)7;
		if (at + 48 <= len && memcmp(buf + at, NEW_MAGIC, sizeof NEW_MAGIC - 1) == 0) {
			hdr = buf + at;
		} else if (after <= len) {
			const unsigned char *strs = buf + after;
			for (uint64_t i = 0; i < nold && found < max; i++) {
				const unsigned char *e = buf + 16 + i * 12;
				const char *k = cache_str(strs, end, rd32(e + 4)), *v = cache_str(strs, end, rd32(e + 8));
				if (k && v && strcmp(k, soname) == 0 && flags_fit(rd32(e)))
					out[found++] = xstrdup(v);
			}
			return found;
		}
	}
	if (!hdr)
		return 0;
	uint64_t n = rd32(hdr + 20);
	for (uint64_t i = 0; i < n && found < max; i++) {
		const unsigned char *e = hdr + 48 + i * 24;
		if (e + 24 > end)
			break;
		const char *k = cache_str(hdr, end, rd32(e + 4)), *v = cache_str(hdr, end, rd32(e + 8));
		if (k && v && strcmp(k, soname) == 0 && flags_fit(rd32(e)))
			out[found++] = xstrdup(v);
	}
	return found;
}

static void try_cache(libcands *out, const char *root, const char *soname)
{
	strbuf path = { 0 }, err = { 0 };
	sb_printf(&path, "%s/etc/ld.so.cache", root);
	char *text;
	size_t len;
	if (file_slurp(path.p, &text, &len, &err) == 0) {
		char *hits[CACHE_MAX_HITS];
		size_t n = loader_cache_parse((const unsigned char *)text, len, soname, hits, CACHE_MAX_HITS);
		for (size_t i = 0; i < n; i++) {
			strbuf p = { 0 };
			sb_printf(&p, "%s%s", root, hits[i]);
			loader_add(out, p.p, LW_LDCACHE, path.p);
			sb_free(&p);
			free(hits[i]);
		}
		free(text);
	}
	sb_free(&path);
	sb_free(&err);
}

/* Each match of pattern (a glob), in glob's order. */
static void try_glob(libcands *out, const char *pattern, const char *pysub, const char *soname)
{
	glob_t g;
	if (glob(pattern, 0, NULL, &g) != 0)
		return;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		strbuf dir = { 0 };
		sb_printf(&dir, "%s/%s", g.gl_pathv[i], pysub);
		try_dir(out, dir.p, soname, LW_PYTHON, g.gl_pathv[i]);
		sb_free(&dir);
	}
	globfree(&g);
}

static void try_prefix(libcands *out, const char *prefix, const char *pysub, const char *soname)
{
	strbuf pat = { 0 };
	sb_printf(&pat, "%s/lib/python3*/site-packages", prefix);
	try_glob(out, pat.p, pysub, soname);
	sb_clear(&pat);
	sb_printf(&pat, "%s/lib/python3*/dist-packages", prefix);
	try_glob(out, pat.p, pysub, soname);
	sb_free(&pat);
}

/* The Python environments a job is likely to run: the active virtualenv or
 * conda environment, the pythons on PATH, PYTHONPATH, the user's site, then
 * the system's. */
static void try_python(libcands *out, const loader_env *e, const char *pysub, const char *soname)
{
	if (e->virtual_env)
		try_prefix(out, e->virtual_env, pysub, soname);
	if (e->conda_prefix)
		try_prefix(out, e->conda_prefix, pysub, soname);
	for (const char *p = e->path; p && *p;) {
		size_t n = strcspn(p, ":");
		char *dir = xstrndup(p, n);
		strbuf py = { 0 };
		sb_printf(&py, "%s/python3", dir);
		if (n && access(py.p, X_OK) == 0) {
			sb_clear(&py);
			sb_printf(&py, "%s/..", dir);
			try_prefix(out, py.p, pysub, soname);
		}
		sb_free(&py);
		free(dir);
		p += n;
		if (*p)
			p++;
	}
	for (const char *p = e->pythonpath; p && *p;) {
		size_t n = strcspn(p, ":");
		char *site = xstrndup(p, n);
		strbuf dir = { 0 };
		sb_printf(&dir, "%s/%s", site, pysub);
		if (n)
			try_dir(out, dir.p, soname, LW_PYTHON, site);
		sb_free(&dir);
		free(site);
		p += n;
		if (*p)
			p++;
	}
	if (e->home) {
		strbuf pat = { 0 };
		sb_printf(&pat, "%s/.local/lib/python3*/site-packages", e->home);
		try_glob(out, pat.p, pysub, soname);
		sb_free(&pat);
	}
	strbuf pre = { 0 };
	sb_printf(&pre, "%s/usr/local", e->root);
	try_prefix(out, pre.p, pysub, soname);
	sb_clear(&pre);
	sb_printf(&pre, "%s/usr/lib/python3/dist-packages", e->root);
	strbuf dir = { 0 };
	sb_printf(&dir, "%s/%s", pre.p, pysub);
	try_dir(out, dir.p, soname, LW_PYTHON, pre.p);
	sb_free(&dir);
	sb_clear(&pre);
	sb_printf(&pre, "%s/usr", e->root);
	try_prefix(out, pre.p, pysub, soname);
	sb_free(&pre);
}

void loader_find(const loader_env *e, const char *soname, const char *pysub, libcands *out)
{
	try_preload(out, e->ld_preload, soname);
	try_list(out, e->ld_library_path, soname, LW_LD_LIBRARY_PATH);
	if (pysub) {
		try_python(out, e, pysub, soname);
		if (e->conda_prefix) {
			strbuf d = { 0 };
			sb_printf(&d, "%s/lib", e->conda_prefix);
			try_dir(out, d.p, soname, LW_CONDA, NULL);
			sb_free(&d);
		}
	}
	try_cache(out, e->root, soname);
	static const char *const defaults[] = {
#ifdef MULTIARCH
		"/lib/" MULTIARCH, "/usr/lib/" MULTIARCH,
#endif
		"/lib64", "/usr/lib64", "/lib", "/usr/lib",
	};
	for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; i++) {
		strbuf d = { 0 };
		sb_printf(&d, "%s%s", e->root, defaults[i]);
		try_dir(out, d.p, soname, LW_DEFAULT, NULL);
		sb_free(&d);
	}
}

void loader_free(libcands *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].path);
		free(c->v[i].real);
		free(c->v[i].via);
	}
	free(c->v);
	*c = (libcands){ 0 };
}

#include "versions.h"

#include <ctype.h>
#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "probe.h"
#include "select.h"
#include "sysfs.h"

#if defined(__x86_64__)
#define OUR_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define OUR_MACHINE EM_AARCH64
#elif defined(__powerpc64__)
#define OUR_MACHINE EM_PPC64
#else
#define OUR_MACHINE -1
#endif

#define RODATA_MAX (64u << 20)
#define BANNER "NCCL version "

const char *versions_from_name_of(enum ver_from f)
{
	static const char *const names[] = { "unknown", "ncclGetVersion()", "the version string in the library",
					     "the file name", "the wheel's metadata" };
	return names[f];
}

bool versions_decode(int code, int *out)
{
	/* NCCL_VERSION(X,Y,Z): X*1000 + Y*100 + Z up to 2.8, X*10000 + Y*100 + Z from 2.9 */
	int a, b, c;
	if (code >= 20900) {
		a = code / 10000, b = code / 100 % 100, c = code % 100;
	} else if (code >= 2000 && code < 10000) {
		a = code / 1000, b = code / 100 % 10, c = code % 100;
	} else {
		return false;
	}
	if (a < 2)
		return false;
	*out = SEL_VERSION(a, b, c);
	return true;
}

void versions_cuda_str(int v, char *buf, size_t size)
{
	snprintf(buf, size, "%d.%d", v / 1000, v % 1000 / 10);
}

static bool digits_dots(const char *s, size_t n, int min_dots)
{
	int dots = 0;
	if (!n || !isdigit((unsigned char)s[0]) || !isdigit((unsigned char)s[n - 1]))
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '.') {
			if (s[i + 1] == '.')
				return false;
			dots++;
		} else if (!isdigit((unsigned char)s[i])) {
			return false;
		}
	}
	return dots >= min_dots;
}

bool versions_banner_in(const char *buf, size_t len, char *ver, size_t vsize, char *cuda, size_t csize)
{
	const size_t bl = sizeof BANNER - 1;
	for (const char *p = buf, *end = buf + len; p && (size_t)(end - p) > bl;) {
		p = memmem(p, (size_t)(end - p), BANNER, bl);
		if (!p)
			break;
		const char *v = p + bl, *q = v;
		while (q < end && (isdigit((unsigned char)*q) || *q == '.'))
			q++;
		const char *vend = q;
		/* NCCL_SUFFIX, if any, sits between the version and "+cuda" */
		while (q < end && q - vend < 16 && (isalnum((unsigned char)*q) || *q == '-' || *q == '_'))
			q++;
		const char *c = q + 5, *ce = c;
		if (q + 5 <= end && memcmp(q, "+cuda", 5) == 0) {
			while (ce < end && (isdigit((unsigned char)*ce) || *ce == '.'))
				ce++;
			if (digits_dots(v, (size_t)(vend - v), 2) && digits_dots(c, (size_t)(ce - c), 1) &&
			    (size_t)(vend - v) < vsize && (size_t)(ce - c) < csize) {
				snprintf(ver, vsize, "%.*s", (int)(vend - v), v);
				snprintf(cuda, csize, "%.*s", (int)(ce - c), c);
				return true;
			}
		}
		p += bl;
	}
	return false;
}

static void say(char *why, size_t size, const char *text)
{
	if (why)
		snprintf(why, size, "%s", text);
}

bool versions_banner(const char *path, char *ver, size_t vsize, char *cuda, size_t csize, char *why, size_t wsize)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		say(why, wsize, "cannot be opened");
		return false;
	}
	bool ok = false;
	Elf64_Ehdr eh;
	Elf64_Shdr *sh = NULL;
	char *names = NULL, *data = NULL;
	if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) {
		say(why, wsize, "is not an ELF file");
		goto out;
	}
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr) || !eh.e_shnum ||
	    eh.e_shstrndx >= eh.e_shnum) {
		say(why, wsize, "is not a 64-bit ELF library with sections");
		goto out;
	}
	if (OUR_MACHINE >= 0 && eh.e_machine != OUR_MACHINE) {
		say(why, wsize, "is built for another processor architecture");
		goto out;
	}
	size_t shn = eh.e_shnum;
	sh = xcalloc(shn, sizeof *sh);
	if (pread(fd, sh, shn * sizeof *sh, (off_t)eh.e_shoff) != (ssize_t)(shn * sizeof *sh)) {
		say(why, wsize, "has a truncated section table");
		goto out;
	}
	const Elf64_Shdr *ns = &sh[eh.e_shstrndx];
	if (ns->sh_size == 0 || ns->sh_size > (1u << 20)) {
		say(why, wsize, "has no section names");
		goto out;
	}
	names = xcalloc(1, ns->sh_size + 1);
	if (pread(fd, names, ns->sh_size, (off_t)ns->sh_offset) != (ssize_t)ns->sh_size) {
		say(why, wsize, "has truncated section names");
		goto out;
	}
	say(why, wsize, "holds no NCCL version string");
	for (size_t i = 0; i < shn && !ok; i++) {
		if (sh[i].sh_name >= ns->sh_size || strcmp(names + sh[i].sh_name, ".rodata") != 0 ||
		    sh[i].sh_type != SHT_PROGBITS || sh[i].sh_size > RODATA_MAX)
			continue;
		data = xmalloc(sh[i].sh_size + 1);
		ssize_t got = pread(fd, data, sh[i].sh_size, (off_t)sh[i].sh_offset);
		if (got > 0)
			ok = versions_banner_in(data, (size_t)got, ver, vsize, cuda, csize);
		free(data);
		data = NULL;
	}
out:
	free(sh);
	free(names);
	close(fd);
	return ok;
}

bool versions_from_name(const char *path, char *ver, size_t size)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	const char *so = strstr(base, ".so.");
	if (!so)
		return false;
	const char *v = so + 4;
	size_t n = strlen(v);
	if (!digits_dots(v, n, 2) || n >= size)
		return false;
	snprintf(ver, size, "%s", v);
	return true;
}

bool versions_wheel(const char *libpath, char *dist, size_t dsize, char *ver, size_t vsize)
{
	static const char tail[] = "/nvidia/nccl/lib/";
	const char *t = strstr(libpath, tail);
	if (!t || strchr(t + sizeof tail - 1, '/'))
		return false;
	char *site = xstrndup(libpath, (size_t)(t - libpath));
	char **names = sysfs_names(site);
	bool ok = false;
	for (size_t i = 0; names && names[i] && !ok; i++) {
		const char *n = names[i];
		size_t len = strlen(n);
		if (strncmp(n, "nvidia_nccl_cu", 14) != 0 || len < 10 || strcmp(n + len - 10, ".dist-info") != 0)
			continue;
		strbuf meta = { 0 };
		sb_printf(&meta, "%s/%s/METADATA", site, n);
		FILE *f = fopen(meta.p, "r");
		char line[256];
		for (int k = 0; f && k < 64 && fgets(line, sizeof line, f); k++) {
			if (strncmp(line, "Version:", 8) != 0)
				continue;
			char *v = line + 8;
			v += strspn(v, " \t");
			v[strcspn(v, " \t\r\n")] = '\0';
			if (*v && strlen(v) < vsize) {
				snprintf(ver, vsize, "%s", v);
				snprintf(dist, dsize, "%s", n);
				ok = true;
			}
			break;
		}
		if (f)
			fclose(f);
		sb_free(&meta);
	}
	sysfs_names_free(names);
	free(site);
	return ok;
}

bool versions_kmod(const char *text, char *out, size_t size)
{
	/* "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22 ..." and
	 * "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.54.14  Release Build ..." */
	const char *p = strstr(text, "Kernel Module");
	if (!p)
		return false;
	p += 13;
	for (int words = 0; *p && *p != '\n' && words < 6; words++) {
		p += strspn(p, " \t");
		size_t n = strcspn(p, " \t\n");
		if (n && n < size && digits_dots(p, n, 1)) {
			snprintf(out, size, "%.*s", (int)n, p);
			return true;
		}
		p += n;
	}
	return false;
}

/* Compares dotted versions numerically: <0, 0, >0 ("570.26" < "570.26.1"). */
static int cmp_dotted(const char *a, const char *b)
{
	for (;;) {
		char *ea, *eb;
		long x = strtol(a, &ea, 10), y = strtol(b, &eb, 10);
		if (x != y)
			return x < y ? -1 : 1;
		bool ma = *ea == '.', mb = *eb == '.';
		if (!ma || !mb)
			return ma == mb ? 0 : ma ? 1 : -1;
		a = ea + 1;
		b = eb + 1;
	}
}

/* The minimum Linux x86_64 driver of each CUDA release (its GA), from the
 * CUDA Toolkit release notes ("CUDA Toolkit and Corresponding Driver
 * Versions"). */
static const struct {
	int cuda;
	const char *min;
} driver_table[] = {
	{ 10000, "410.48" },    { 10010, "418.39" },    { 10020, "440.33" },    { 11000, "450.36.06" },
	{ 11010, "455.23" },    { 11020, "460.27.03" }, { 11030, "465.19.01" }, { 11040, "470.42.01" },
	{ 11050, "495.29.05" }, { 11060, "510.39.01" }, { 11070, "515.43.04" }, { 11080, "520.61.05" },
	{ 12000, "525.60.13" }, { 12010, "530.30.02" }, { 12020, "535.54.03" }, { 12030, "545.23.06" },
	{ 12040, "550.54.14" }, { 12050, "555.42.02" }, { 12060, "560.28.03" }, { 12080, "570.26" },
	{ 12090, "575.51.03" }, { 13000, "580.65.06" },
};

int versions_kmod_cuda(const char *kmod, bool *past)
{
	size_t n = sizeof driver_table / sizeof driver_table[0];
	int best = 0;
	for (size_t i = 0; i < n; i++)
		if (cmp_dotted(kmod, driver_table[i].min) >= 0)
			best = driver_table[i].cuda;
	/* a branch after the last row's may support a newer CUDA than the table knows */
	*past = best == driver_table[n - 1].cuda && atoi(kmod) > atoi(driver_table[n - 1].min);
	return best;
}

/* ---- gathering ---- */

static void copy_cand(libcand *dst, const libcand *src)
{
	dst->path = xstrdup(src->path);
	dst->real = xstrdup(src->real);
	dst->via = xstrdup(src->via);
	dst->where = src->where;
}

static void ask_copy(ncclcopy *c, const versions_opts *o)
{
	char why[128] = "";
	char ver[32] = "";
	if (versions_banner(c->lib.real, ver, sizeof ver, c->cuda, sizeof c->cuda, why, sizeof why)) {
		int maj = 0, min = 0;
		if (sscanf(c->cuda, "%d.%d", &maj, &min) == 2)
			c->cuda_build = maj * 1000 + min * 10;
	}
	if (o->probe && !strstr(why, "not an ELF") && !strstr(why, "another processor")) {
		probe_result r;
		probe_run(c->lib.path, PROBE_NCCL_VERSION, o->timeout_ms, &r);
		int code;
		if (r.called && r.rc == 0 && versions_decode(r.value, &code)) {
			c->code = code;
			c->from = VF_CALL;
		} else if (r.called) {
			snprintf(c->err, sizeof c->err, "ncclGetVersion() returned %d with version %d", r.rc, r.value);
		} else {
			snprintf(c->err, sizeof c->err, "%s", r.err);
		}
	} else if (why[0] && !ver[0]) {
		snprintf(c->err, sizeof c->err, "the file %s", why);
	}
	char wv[32] = "", nv[32] = "";
	bool wheel = versions_wheel(c->lib.path, c->wheel, sizeof c->wheel, wv, sizeof wv);
	if (!c->code && ver[0] && select_version_parse(ver, &c->code))
		c->from = VF_BANNER;
	if (!c->code && versions_from_name(c->lib.real, nv, sizeof nv) && select_version_parse(nv, &c->code))
		c->from = VF_FILENAME;
	if (!c->code && wheel && select_version_parse(wv, &c->code))
		c->from = VF_WHEEL;
	if (c->code)
		snprintf(c->version, sizeof c->version, "%d.%d.%d", c->code / 10000, c->code / 100 % 100, c->code % 100);
}

/* --nccl-lib: the file itself, or in a directory the names a loader or a
 * wheel would use. */
static bool find_option(libcands *c, const char *arg)
{
	struct stat st;
	if (stat(arg, &st) != 0)
		return false;
	if (!S_ISDIR(st.st_mode))
		return loader_add(c, arg, LW_OPTION, "--nccl-lib");
	static const char *const names[] = { "libnccl.so.2", "libnccl.so", "lib/libnccl.so.2", "lib/libnccl.so" };
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		strbuf p = { 0 };
		sb_printf(&p, "%s/%s", arg, names[i]);
		bool ok = loader_add(c, p.p, LW_OPTION, "--nccl-lib");
		sb_free(&p);
		if (ok)
			return true;
	}
	return false;
}

static void find_nccl(versions *v, const versions_opts *o, const loader_env *e)
{
	libcands c = { 0 };
	if (o->nccl_lib && !find_option(&c, o->nccl_lib))
		v->nccl_option_missing = true;
	if (!o->nccl_lib)
		loader_find(e, "libnccl.so.2", "nvidia/nccl/lib", &c);
	for (size_t i = 0; i < c.n && v->nnccl < VERSIONS_MAX_COPIES; i++) {
		ncclcopy *n = &v->nccl[v->nnccl++];
		copy_cand(&n->lib, &c.v[i]);
		ask_copy(n, o);
	}
	loader_free(&c);
}

static void find_driver(versions *v, const versions_opts *o, const loader_env *e)
{
	strbuf p = { 0 };
	sb_printf(&p, "%s/proc/driver/nvidia/version", o->root);
	char text[512];
	FILE *f = fopen(p.p, "r");
	size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
	text[n] = '\0';
	if (f)
		fclose(f);
	if (versions_kmod(text, v->kmod, sizeof v->kmod))
		v->driver = versions_kmod_cuda(v->kmod, &v->driver_past_table);
	sb_free(&p);
	libcands c = { 0 };
	loader_find(e, "libcuda.so.1", NULL, &c);
	if (c.n) {
		v->libcuda = xstrdup(c.v[0].path);
		if (o->probe) {
			probe_result r;
			probe_run(c.v[0].path, PROBE_CUDA_DRIVER, o->timeout_ms, &r);
			if (r.called && r.rc == 0 && r.value > 0) {
				v->driver = r.value;
				v->driver_called = true;
				v->driver_past_table = false;
			} else if (r.called) {
				snprintf(v->libcuda_err, sizeof v->libcuda_err, "cuDriverGetVersion() returned %d", r.rc);
			} else {
				snprintf(v->libcuda_err, sizeof v->libcuda_err, "%s", r.err);
			}
		}
	}
	loader_free(&c);
}

/* NCCL's plugin lookup (plugin_open.cc): NCCL_NET_PLUGIN unset asks for
 * libnccl-net.so; "none" for nothing; NAME for NAME itself, then
 * libnccl-net-NAME.so; a list (2.30) for each in turn. */
static void find_plugin(versions *v, const versions_opts *o, const loader_env *e)
{
	const char *want = loader_env_get(o->environ_, "NCCL_NET_PLUGIN");
	if (want && strcasecmp(want, "none") == 0)
		return;
	char list[300];
	snprintf(list, sizeof list, "%s", want && *want ? want : "libnccl-net.so");
	snprintf(v->plugin_want, sizeof v->plugin_want, "%s", list);
	char *save = NULL;
	for (char *name = strtok_r(list, ",", &save); name && !v->plugin; name = strtok_r(NULL, ",", &save)) {
		char tries[2][300];
		int nt = 0;
		snprintf(tries[nt++], sizeof tries[0], "%s", name);
		if (!strchr(name, '/') && !(strncmp(name, "lib", 3) == 0 && strstr(name, ".so")))
			snprintf(tries[nt++], sizeof tries[0], "libnccl-net-%s.so", name);
		for (int t = 0; t < nt && !v->plugin; t++) {
			libcands c = { 0 };
			if (strchr(tries[t], '/'))
				loader_add(&c, tries[t], LW_OPTION, "NCCL_NET_PLUGIN");
			else
				loader_find(e, tries[t], NULL, &c);
			if (c.n) {
				v->plugin = xstrdup(c.v[0].path);
				v->plugin_where = c.v[0].where;
			}
			loader_free(&c);
		}
	}
	if (v->plugin && o->probe) {
		probe_result r;
		probe_run(v->plugin, PROBE_NET_PLUGIN, o->timeout_ms, &r);
		if (r.called) {
			snprintf(v->plugin_name, sizeof v->plugin_name, "%s", r.name);
			v->plugin_abi = r.abi;
		} else {
			snprintf(v->plugin_err, sizeof v->plugin_err, "%s", r.err);
		}
	}
}

void versions_collect(versions *v, const versions_opts *o)
{
	*v = (versions){ 0 };
	loader_env e;
	loader_env_from(&e, o->environ_, o->root);
	find_nccl(v, o, &e);
	find_driver(v, o, &e);
	find_plugin(v, o, &e);
}

void versions_free(versions *v)
{
	for (size_t i = 0; i < v->nnccl; i++) {
		free(v->nccl[i].lib.path);
		free(v->nccl[i].lib.real);
		free(v->nccl[i].lib.via);
	}
	free(v->libcuda);
	free(v->plugin);
	*v = (versions){ 0 };
}

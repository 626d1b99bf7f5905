/* Finding and reading libraries without loading them: the ld.so.cache
 * format, the loader's search order over a fake tree, NCCL's version
 * codes and version string, versions from file names and wheel metadata,
 * the CUDA driver from /proc and NVIDIA's table.
 * usage: test_doctor_libs */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../doctor/loader.h"
#include "../../doctor/select.h"
#include "../../doctor/versions.h"
#include "check.h"
#include "test_doctor_tree.h"

static char root[] = "/tmp/ncclog-libs-XXXXXX";

static void put(const char *rel, const char *text)
{
	tree_put(root, rel, text);
}

static const char *at(const char *rel)
{
	static char b[4][4096];
	static int k;
	k = (k + 1) % 4;
	snprintf(b[k], sizeof b[k], "%s/%s", root, rel);
	return b[k];
}

#if defined(__x86_64__)
#define ARCH_FLAGS 0x0303
#elif defined(__aarch64__)
#define ARCH_FLAGS 0x0a03
#elif defined(__powerpc64__)
#define ARCH_FLAGS 0x0503
#else
#define ARCH_FLAGS 0x0003
#endif

static void w32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v, p[1] = (unsigned char)(v >> 8), p[2] = (unsigned char)(v >> 16), p[3] = (unsigned char)(v >> 24);
}

/* A new-format cache image: entries (flags, key, value) then the strings. */
static size_t make_cache(unsigned char *buf, size_t off, int n, const uint32_t *flags, const char *const *keys,
			 const char *const *vals)
{
	unsigned char *h = buf + off;
	memset(h, 0, 48 + (size_t)n * 24);
	memcpy(h, "glibc-ld.so.cache1.1", 20);
	w32(h + 20, (uint32_t)n);
	size_t s = 48 + (size_t)n * 24;
	for (int i = 0; i < n; i++) {
		unsigned char *e = h + 48 + i * 24;
		w32(e, flags[i]);
		w32(e + 4, (uint32_t)s);
		strcpy((char *)h + s, keys[i]);
		s += strlen(keys[i]) + 1;
		w32(e + 8, (uint32_t)s);
		strcpy((char *)h + s, vals[i]);
		s += strlen(vals[i]) + 1;
	}
	return off + s;
}

static void test_cache(checks *c)
{
	static unsigned char buf[4096];
	uint32_t flags[] = { ARCH_FLAGS, ARCH_FLAGS ^ 0x0100, ARCH_FLAGS, 0x0001 };
	const char *keys[] = { "libnccl.so.2", "libnccl.so.2", "libz.so.1", "libnccl.so.2" };
	const char *vals[] = { "/usr/lib/libnccl.so.2", "/usr/lib32/libnccl.so.2", "/lib/libz.so.1", "/libc5/libnccl.so.2" };
	size_t len = make_cache(buf, 0, 4, flags, keys, vals);
	char *out[8];
	size_t n = loader_cache_parse(buf, len, "libnccl.so.2", out, 8);
	CHECK(c, n == 1 && strcmp(out[0], "/usr/lib/libnccl.so.2") == 0, "new format: the entry of this machine only (%zu)", n);
	for (size_t i = 0; i < n; i++)
		free(out[i]);
	/* the old format, then the new one 8-aligned after it */
	static unsigned char old[4096];
	memcpy(old, "ld.so-1.7.0", 11);
	w32(old + 12, 2);
	size_t at_new = (16 + 2 * 12 + 7) & ~(size_t)7;
	len = make_cache(old, at_new, 4, flags, keys, vals);
	n = loader_cache_parse(old, len, "libnccl.so.2", out, 8);
	CHECK(c, n == 1 && strcmp(out[0], "/usr/lib/libnccl.so.2") == 0, "old format with the new inside (%zu)", n);
	for (size_t i = 0; i < n; i++)
		free(out[i]);
	/* damage: every cut of the image, and offsets pointing out of it */
	bool safe = true;
	for (size_t cut = 0; cut < len; cut += 7) {
		n = loader_cache_parse(old, cut, "libnccl.so.2", out, 8);
		for (size_t i = 0; i < n; i++)
			free(out[i]);
		safe = safe && n <= 1;
	}
	CHECK(c, safe, "truncated images");
	len = make_cache(buf, 0, 1, flags, keys, vals);
	w32(buf + 48 + 8, 100000);
	CHECK(c, loader_cache_parse(buf, len, "libnccl.so.2", out, 8) == 0, "a value out of the image");
	w32(buf + 20, 0x7fffffff);
	CHECK(c, loader_cache_parse(buf, len, "libnccl.so.2", out, 8) == 0, "an entry count past the end");
	/* this machine's own cache knows its C library */
	FILE *f = fopen("/etc/ld.so.cache", "rb");
	if (f) {
		static unsigned char real[8 << 20];
		size_t rl = fread(real, 1, sizeof real, f);
		fclose(f);
		n = loader_cache_parse(real, rl, "libc.so.6", out, 8);
		CHECK(c, n >= 1 && strstr(out[0], "libc.so.6"), "/etc/ld.so.cache has libc.so.6 (%zu)", n);
		for (size_t i = 0; i < n; i++)
			free(out[i]);
	}
}

static void test_search(checks *c)
{
	put("ld/libnccl.so.2", "first");
	put("ld2/libnccl.so.2", "second");
	put("venv/lib/python3.11/site-packages/nvidia/nccl/lib/libnccl.so.2", "wheel");
	put("venv/lib/python3.11/site-packages/nvidia_nccl_cu12-2.21.5.dist-info/METADATA",
	    "Metadata-Version: 2.1\nName: nvidia-nccl-cu12\nVersion: 2.21.5\n");
	put("conda/lib/libnccl.so.2", "conda");
	put("sys/usr/lib/libnccl.so.2", "default");
	put("pre/libnccl.so.2.19.3", "preload");
	/* the same file twice through LD_LIBRARY_PATH: found once */
	char ldp[8192], pre[4200];
	snprintf(ldp, sizeof ldp, "%s::%s;%s", at("ld"), at("ld2"), at("ld"));
	snprintf(pre, sizeof pre, "/lib/libother.so %s", at("pre/libnccl.so.2.19.3"));
	loader_env e = { .root = at("sys"), .ld_library_path = ldp, .ld_preload = pre, .virtual_env = at("venv"),
			 .conda_prefix = at("conda") };
	libcands l = { 0 };
	loader_find(&e, "libnccl.so.2", "nvidia/nccl/lib", &l);
	enum lib_where want[] = { LW_PRELOAD, LW_LD_LIBRARY_PATH, LW_LD_LIBRARY_PATH, LW_PYTHON, LW_CONDA, LW_DEFAULT };
	bool order = l.n == 6;
	for (size_t i = 0; order && i < l.n; i++)
		order = l.v[i].where == want[i];
	CHECK(c, order, "the loader's order: %zu found", l.n);
	CHECK(c, l.n > 3 && strstr(l.v[3].via, "site-packages"), "the wheel is found through its site-packages");
	loader_free(&l);
	loader_find(&e, "libnccl.so.2", NULL, &l);
	CHECK(c, l.n == 4, "without Python: %zu", l.n);
	loader_free(&l);
	CHECK(c, !loader_add(&l, at("none"), LW_OPTION, "x") && !loader_add(&l, at("ld"), LW_OPTION, "x"),
	      "no such file, a directory");
	loader_free(&l);
}

static void test_versions(checks *c)
{
	int v;
	CHECK(c, versions_decode(22105, &v) && v == SEL_VERSION(2, 21, 5), "22105");
	CHECK(c, versions_decode(2804, &v) && v == SEL_VERSION(2, 8, 4), "2804: before 2.9");
	CHECK(c, versions_decode(23007, &v) && v == SEL_VERSION(2, 30, 7), "23007");
	CHECK(c, !versions_decode(0, &v) && !versions_decode(1234, &v) && !versions_decode(-5, &v), "no versions");
	char ver[32], cuda[16];
	const char blob[] = "xx NCCL version %s\0NCCL version 2.x\0NCCL version 2.19.3+cuda\0"
			    "NCCL version 2.21.5+cuda12.4\0tail";
	CHECK(c, versions_banner_in(blob, sizeof blob, ver, sizeof ver, cuda, sizeof cuda) &&
		      strcmp(ver, "2.21.5") == 0 && strcmp(cuda, "12.4") == 0,
	      "the first whole version string: %s %s", ver, cuda);
	const char suffix[] = "NCCL version 2.18.1a0+cuda11.8";
	CHECK(c, versions_banner_in(suffix, sizeof suffix - 1, ver, sizeof ver, cuda, sizeof cuda) &&
		      strcmp(ver, "2.18.1") == 0 && strcmp(cuda, "11.8") == 0,
	      "a suffix (NCCL_SUFFIX) between version and cuda");
	const char cut[] = "NCCL version 2.21.5+cu";
	CHECK(c, !versions_banner_in(cut, sizeof cut - 1, ver, sizeof ver, cuda, sizeof cuda), "cut at the end");
	char why[128];
	put("notelf/libnccl.so.2", "#!/bin/sh\n");
	CHECK(c, !versions_banner(at("notelf/libnccl.so.2"), ver, sizeof ver, cuda, sizeof cuda, why, sizeof why) &&
		      strstr(why, "not an ELF"),
	      "not an ELF file: %s", why);
	CHECK(c, !versions_banner(at("none"), ver, sizeof ver, cuda, sizeof cuda, why, sizeof why), "missing file");
	/* the shell is an ELF file without NCCL's string (this test holds one: its blob above) */
	CHECK(c, !versions_banner("/bin/sh", ver, sizeof ver, cuda, sizeof cuda, why, sizeof why) &&
		      strstr(why, "no NCCL version"),
	      "an ELF file without the string: %s", why);
	CHECK(c, versions_from_name("/usr/lib/x86_64-linux-gnu/libnccl.so.2.21.5", ver, sizeof ver) &&
		      strcmp(ver, "2.21.5") == 0,
	      "file name");
	CHECK(c, !versions_from_name("/usr/lib/libnccl.so.2", ver, sizeof ver) &&
		      !versions_from_name("/x/libnccl.so.2.21.x", ver, sizeof ver),
	      "no version in the name");
	char dist[160];
	CHECK(c, versions_wheel(at("venv/lib/python3.11/site-packages/nvidia/nccl/lib/libnccl.so.2"), dist, sizeof dist, ver,
				sizeof ver) &&
		      strcmp(ver, "2.21.5") == 0 && strcmp(dist, "nvidia_nccl_cu12-2.21.5.dist-info") == 0,
	      "wheel metadata: %s", dist);
	CHECK(c, !versions_wheel(at("ld/libnccl.so.2"), dist, sizeof dist, ver, sizeof ver), "not in a wheel");
	char k[32];
	CHECK(c, versions_kmod("NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC 2023\n", k,
			       sizeof k) &&
		      strcmp(k, "535.104.05") == 0,
	      "proprietary module");
	CHECK(c, versions_kmod("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.54.14  Release Build  (x)\n", k,
			       sizeof k) &&
		      strcmp(k, "550.54.14") == 0,
	      "open module");
	CHECK(c, !versions_kmod("garbage\n", k, sizeof k) && !versions_kmod("Kernel Module\n", k, sizeof k), "no module");
	bool past;
	CHECK(c, versions_kmod_cuda("535.104.05", &past) == 12020 && !past, "535 supports 12.2");
	CHECK(c, versions_kmod_cuda("550.54.14", &past) == 12040, "550.54.14 supports 12.4");
	CHECK(c, versions_kmod_cuda("550.54.13", &past) == 12030, "just below 12.4's minimum");
	CHECK(c, versions_kmod_cuda("570.26", &past) == 12080, "570.26: 12.8");
	CHECK(c, versions_kmod_cuda("418.39", &past) == 10010, "418.39: 10.1");
	CHECK(c, versions_kmod_cuda("390.1", &past) == 0, "older than the table");
	CHECK(c, versions_kmod_cuda("590.44.01", &past) == 13000 && past, "past the table: a lower bound");
	CHECK(c, versions_kmod_cuda("580.95.05", &past) == 13000 && !past, "580: 13.0");
}

int main(void)
{
	checks c = { 0 };
	if (!mkdtemp(root))
		return 1;
	test_cache(&c);
	test_search(&c);
	test_versions(&c);
	char cmd[4200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	CHECK(&c, system(cmd) == 0, "cleanup");
	return check_done(&c, "doctor_libs");
}

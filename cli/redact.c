/* ncclog redact: a copy of the logs that can be shared, with the same
 * diagnosis as the original. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../parser/source.h"
#include "../util/escape.h"
#include "commands.h"
#include "../ingest/input.h"

enum { O_OUTPUT_DIR };
static const cli_opt opts[] = {
	[O_OUTPUT_DIR] = { "output-dir", 'o', "DIR", "one redacted file per input in DIR (created if needed), its "
						     "name redacted too; default: all inputs to standard output" },
	{ NULL, 0, NULL, NULL },
};

const cli_cmd redact_cmd = {
	.name = "redact",
	.synopsis = "[OPTIONS] [FILE...]",
	.about = "Writes a copy of the logs (plain, .gz or .zst; no FILE or \"-\": standard input) with\n"
		 "every identifier replaced by a pseudonym that is consistent within the run: host\n"
		 "names (learned from NCCL's prefix, MASTER_ADDR, URLs, c10d and Slurm messages, node\n"
		 "lists, ...; then found anywhere, with their FQDN and -suffix forms), domains, IPv4\n"
		 "and IPv6 addresses (also spelled in cloud host names), users in home paths, ~user,\n"
		 "e-mail addresses and URLs, shared file system directories, Kubernetes namespaces,\n"
		 "pids, pointers and commIds. Values of *TOKEN*, *SECRET*, *PASSWORD*, *KEY* keys,\n"
		 "URL passwords and token-shaped strings become <redacted>. Addresses keep their\n"
		 "subnets, and loopback, link-local and docker-bridge addresses stay in their ranges;\n"
		 "interface names, ports, ranks, versions, times and NCCL_* values are kept, so\n"
		 "`ncclog analyze` of the copy gives the same findings. The copy is never coloured\n"
		 "(--color is accepted for symmetry); on a terminal its control bytes are escaped.\n",
	.common = COMMON_COLOR,
	.opts = opts,
	.epilog = "NCCLOG_REDACT_KEY=SECRET gives the same pseudonyms in every run with that key.\n"
		  "Standard input and FIFOs are read once: a host name shows until it is learned.\n"
		  "\n"
		  "exit status: 0 success, 2 bad usage or an unreadable input or output\n",
	.operands = "FILE",
};

typedef struct sink {
	FILE *f;
	bool tty;
	strbuf esc;
	bool failed;
} sink;

static void to_sink(void *ctx, const char *p, size_t n)
{
	sink *k = ctx;
	if (k->tty) {
		sb_clear(&k->esc);
		escape_text(&k->esc, (slice){ p, n - 1 });
		sb_addc(&k->esc, '\n');
		p = k->esc.p;
		n = k->esc.n;
	}
	if (fwrite(p, 1, n, k->f) != n)
		k->failed = true;
}

/* The output name of an input: its base name, without .gz/.zst when it
 * was compressed, redacted. */
static void out_name(redactor *rd, const char *path, enum source_kind kind, strbuf *out)
{
	if (strcmp(path, "-") == 0) {
		sb_adds(out, "stdin.log");
		return;
	}
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	char *b = xstrdup(base);
	size_t n = strlen(b);
	if (kind == SOURCE_GZIP && n > 3 && strcmp(b + n - 3, ".gz") == 0)
		b[n - 3] = '\0';
	if (kind == SOURCE_ZSTD && n > 4 && strcmp(b + n - 4, ".zst") == 0)
		b[n - 4] = '\0';
	redact_name(rd, b, out);
	free(b);
}

static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Redacts one input to out (or to DIR/name). Returns 0, or 2 after
 * reporting an error. */
static int redact_one(redactor *rd, const char *path, const char *dir, char ***names, size_t *nnames, size_t *cap)
{
	strbuf err = { 0 };
	source *src = source_open(path, &err);
	if (!src) {
		cli_error("%s", err.p);
		sb_free(&err);
		return 2;
	}
	sink k = { stdout, false, { 0 }, false };
	strbuf outp = { 0 };
	int rc = 0;
	if (dir) {
		strbuf name = { 0 };
		out_name(rd, path, source_kind_of(src), &name);
		sb_printf(&outp, "%s/%s", dir, name.p);
		sb_free(&name);
		for (size_t i = 0; i < *nnames; i++)
			if (strcmp((*names)[i], outp.p) == 0) {
				cli_error("%s: two inputs would be written to this file; redact them into separate directories",
					  outp.p);
				rc = 2;
			}
		if (!rc && strcmp(path, "-") != 0 && same_file(path, outp.p)) {
			cli_error("%s: is the input itself; choose another output directory", outp.p);
			rc = 2;
		}
		if (!rc && !(k.f = fopen(outp.p, "w"))) {
			cli_error("%s: %s", outp.p, strerror(errno));
			rc = 2;
		}
		if (rc) {
			sb_free(&outp);
			source_close(src);
			return rc;
		}
		grow(names, cap, *nnames, sizeof **names);
		(*names)[(*nnames)++] = xstrdup(outp.p);
	} else {
		k.tty = isatty(STDOUT_FILENO);
	}
	redact_stream st;
	redact_stream_begin(&st, rd, false, to_sink, &k);
	for (;;) {
		const char *buf;
		ssize_t n = source_next(src, &buf, &err);
		if (n < 0) {
			cli_error("%s", err.p);
			rc = 2;
		}
		if (n <= 0)
			break;
		redact_stream_feed(&st, buf, (size_t)n);
	}
	redact_stream_end(&st);
	source_close(src);
	if (dir && fclose(k.f) != 0)
		k.failed = true;
	if (k.failed) {
		cli_error("%s: cannot write the redacted copy", dir ? outp.p : "standard output");
		rc = 2;
	}
	sb_free(&k.esc);
	sb_free(&outp);
	sb_free(&err);
	return rc;
}

/* mkdir -p: the output directory and the missing ones above it. Returns
 * 0, or -1 with errno set. */
static int make_dirs(const char *dir)
{
	char *p = xstrdup(dir);
	int rc = 0;
	for (char *s = p + 1; rc == 0; s++) {
		bool end = *s == '\0';
		if (!end && *s != '/')
			continue;
		*s = '\0';
		/* one that exists but is no directory fails on the next step, or
		 * when the first output is opened in it */
		if (mkdir(p, 0777) != 0 && errno != EEXIST)
			rc = -1;
		if (end)
			break;
		*s = '/';
	}
	free(p);
	return rc;
}

static int on_opt(void *ctx, int opt, const char *value)
{
	if (opt == O_OUTPUT_DIR)
		*(const char **)ctx = value;
	return 0;
}

int cmd_redact(int argc, char **argv)
{
	const char *dir = NULL;
	cli_args ca;
	int rc = cli_parse(&redact_cmd, argc, argv, on_opt, &dir, &ca);
	if (rc) {
		cli_args_free(&ca);
		return rc == 1 ? 0 : 2;
	}
	if (dir && make_dirs(dir) != 0) {
		cli_error("%s: %s", dir, strerror(errno));
		cli_args_free(&ca);
		return 2;
	}
	redactor rd;
	redact_init(&rd, getenv("NCCLOG_REDACT_KEY"));
	char **files = ca.operands;
	int nfiles = (int)ca.noperands, status = 0;
	/* the first pass: every host name and pid is known before the first line is written */
	strbuf err = { 0 };
	for (int i = 0; i < nfiles; i++)
		if (strcmp(files[i], "-") != 0)
			input_learn(files[i], &rd, &err);
	sb_free(&err);
	char **names = NULL;
	size_t nnames = 0, cap = 0;
	for (int i = 0; i < (nfiles ? nfiles : 1); i++) {
		int one = redact_one(&rd, nfiles ? files[i] : "-", dir, &names, &nnames, &cap);
		if (one)
			status = one;
	}
	if (!dir && fflush(stdout) != 0) {
		cli_error("standard output: cannot write the redacted copy");
		status = 2;
	}
	for (size_t i = 0; i < nnames; i++)
		free(names[i]);
	free(names);
	redact_free(&rd);
	cli_args_free(&ca);
	return status;
}

/* The viewer's parts that need no terminal: the search over raw lines
 * (smart case, every input in turn, both ways, wrapping, bounded steps,
 * lines longer than a read, a spool's limit) and the filter words. */
#include <stdlib.h>
#include <unistd.h>

#include "../../model/model.h"
#include "../../tui/filter.h"
#include "../../tui/lineidx.h"
#include "../../tui/search.h"
#include "check.h"

static char dir[] = "/tmp/ncclog-test-tui-XXXXXX";

/* Writes text to a file of the test directory; its index has a checkpoint
 * every `every` lines (0: only the first), as loading makes them. */
static void write_input(lineidx *x, const char *name, const char *text, uint64_t every)
{
	strbuf path = { 0 };
	sb_printf(&path, "%s/%s", dir, name);
	FILE *f = fopen(path.p, "w");
	fputs(text, f);
	fclose(f);
	lineidx_init(x, path.p);
	uint64_t line = 1, off = 0;
	for (const char *p = text; *p; p++, off++)
		if (*p == '\n') {
			line++;
			if (every && (line - 1) % every == 0 && p[1])
				lineidx_mark(x, line, off + 1);
		}
	x->lines = line - (text[0] && text[strlen(text) - 1] == '\n' ? 1 : 0);
	sb_free(&path);
}

/* Runs a scan to its end with the given budget; "file:line", or "none". */
static const char *find(search *s, lineidx *idx, size_t n, int file, uint64_t line, int dir_, size_t budget,
			int *steps, bool *wrapped)
{
	static char out[64];
	scan sc;
	search_begin(&sc, file, line, dir_);
	int f, rc;
	uint64_t l;
	*steps = 0;
	while ((rc = search_step(s, &sc, idx, n, budget, &f, &l)) == 0)
		(*steps)++;
	*wrapped = sc.wrapped;
	if (rc < 0)
		return "none";
	snprintf(out, sizeof out, "%d:%llu", f, (unsigned long long)l);
	return out;
}

static void test_match(checks *c)
{
	strbuf err = { 0 };
	search *s = search_new("docker", &err);
	size_t so, eo;
	CHECK(c, s && search_match(s, slice_from("NET/Socket : Using [0]DOCKER0:172"), 0, &so, &eo), "any case");
	CHECK(c, so == 22 && eo == 28, "where: %zu-%zu", so, eo);
	search_free(s);
	s = search_new("Docker", &err);
	CHECK(c, s && !search_match(s, slice_from("docker0"), 0, &so, &eo), "a capital asks for its case");
	CHECK(c, search_match(s, slice_from("Docker0"), 0, &so, &eo), "and finds it");
	search_free(s);
	s = search_new("\\S+=\\d", &err);
	CHECK(c, s && search_match(s, slice_from("X NCCL_IB_HCA=1"), 0, &so, &eo), "\\S is no capital");
	search_free(s);
	s = search_new("ab", &err);
	CHECK(c, search_match(s, slice_from("ab ab"), 1, &so, &eo) && so == 3, "from a byte on: %zu", so);
	CHECK(c, !search_match(s, slice_from("ab"), 3, &so, &eo), "from past the end");
	search_free(s);
	sb_clear(&err);
	CHECK(c, !search_new("(", &err), "a bad pattern");
	CHECK(c, strstr(err.p, "missing closing parenthesis at offset 1") != NULL, "is said so: %s", err.p);
	sb_clear(&err);
	/* exponential backtracking costs one line, not the screen */
	s = search_new("(a+)+$", &err);
	strbuf b = { 0 };
	for (int i = 0; i < 40; i++)
		sb_addc(&b, 'a');
	sb_addc(&b, 'b');
	CHECK(c, !search_match(s, (slice){ b.p, b.n }, 0, &so, &eo), "a runaway pattern gives up");
	search_free(s);
	sb_free(&b);
	sb_free(&err);
}

static void test_scan(checks *c)
{
	lineidx idx[4];
	write_input(&idx[0], "a.log", "one\nmatch a2\nthree\nmatch a4\n", 2);
	write_input(&idx[1], "b.log", "nothing\nhere\n", 0);
	lineidx_init_none(&idx[2]); /* lines not kept: passed over */
	idx[2].lines = 10;
	write_input(&idx[3], "d.log", "match d1\r\nx\nlast match d3", 1);
	strbuf err = { 0 };
	search *s = search_new("match", &err);
	int steps;
	bool wr;
	CHECK(c, strcmp(find(s, idx, 4, 0, 0, 1, 1 << 20, &steps, &wr), "0:2") == 0, "first from the top");
	CHECK(c, strcmp(find(s, idx, 4, 0, 2, 1, 1 << 20, &steps, &wr), "0:4") == 0, "next in the file");
	CHECK(c, strcmp(find(s, idx, 4, 0, 1, 1, 1 << 20, &steps, &wr), "0:2") == 0, "the very next line");
	CHECK(c, strcmp(find(s, idx, 4, 0, 3, -1, 1 << 20, &steps, &wr), "0:2") == 0, "the very line before");
	CHECK(c, strcmp(find(s, idx, 4, 0, 4, 1, 1 << 20, &steps, &wr), "3:1") == 0 && !wr,
	      "next over an input without matches and one not kept");
	CHECK(c, strcmp(find(s, idx, 4, 3, 1, 1, 1 << 20, &steps, &wr), "3:3") == 0, "a last line without newline");
	CHECK(c, strcmp(find(s, idx, 4, 3, 3, 1, 1 << 20, &steps, &wr), "0:2") == 0 && wr, "wraps to the top");
	CHECK(c, strcmp(find(s, idx, 4, 0, 2, -1, 1 << 20, &steps, &wr), "3:3") == 0 && wr, "backward wraps to the end");
	CHECK(c, strcmp(find(s, idx, 4, 3, 3, -1, 1 << 20, &steps, &wr), "3:1") == 0, "backward in the file");
	CHECK(c, strcmp(find(s, idx, 4, 3, 1, -1, 1 << 20, &steps, &wr), "0:4") == 0 && !wr,
	      "backward over the checkpoints of the file before");
	CHECK(c, strcmp(find(s, idx, 4, 0, 4, -1, 1 << 20, &steps, &wr), "0:2") == 0, "backward, a window before");
	search_free(s);
	s = search_new("d1$", &err);
	CHECK(c, strcmp(find(s, idx, 4, 0, 0, 1, 1 << 20, &steps, &wr), "3:1") == 0, "a CR before the newline is no text");
	search_free(s);
	/* the only match, searched from itself: found again, after a wrap */
	s = search_new("a4", &err);
	CHECK(c, strcmp(find(s, idx, 4, 0, 4, 1, 1 << 20, &steps, &wr), "0:4") == 0 && wr, "the only match, forward");
	CHECK(c, strcmp(find(s, idx, 4, 0, 4, -1, 1 << 20, &steps, &wr), "0:4") == 0 && wr, "the only match, backward");
	search_free(s);
	s = search_new("absent", &err);
	CHECK(c, strcmp(find(s, idx, 4, 1, 1, 1, 1 << 20, &steps, &wr), "none") == 0, "no match anywhere, forward");
	CHECK(c, strcmp(find(s, idx, 4, 1, 1, -1, 1 << 20, &steps, &wr), "none") == 0, "and backward");
	search_free(s);
	for (int i = 0; i < 4; i++)
		lineidx_free(&idx[i]);

	/* lines longer than a read: the head is searched, the numbering holds */
	strbuf big = { 0 };
	sb_adds(&big, "start\nlong head ");
	for (int i = 0; i < 600000; i++)
		sb_addc(&big, 'x');
	sb_adds(&big, " tail-only\nafter long\n");
	write_input(&idx[0], "long.log", big.p, 0);
	s = search_new("long head", &err);
	CHECK(c, strcmp(find(s, idx, 1, 0, 0, 1, 1 << 20, &steps, &wr), "0:2") == 0, "the head of a long line");
	search_free(s);
	s = search_new("tail-only", &err);
	CHECK(c, strcmp(find(s, idx, 1, 0, 0, 1, 1 << 20, &steps, &wr), "none") == 0,
	      "past the first %u bytes of a line is not searched (nor shown)", LINEIDX_MAX_READ);
	search_free(s);
	s = search_new("after", &err);
	CHECK(c, strcmp(find(s, idx, 1, 0, 0, 1, 1 << 20, &steps, &wr), "0:3") == 0, "the line after it is line 3");
	/* a small budget: the scan comes back between steps, then finds it */
	CHECK(c, strcmp(find(s, idx, 1, 0, 0, 1, 1, &steps, &wr), "0:3") == 0 && steps >= 2,
	      "bounded steps: %d", steps);
	CHECK(c, strcmp(find(s, idx, 1, 0, 4, -1, 1, &steps, &wr), "0:3") == 0 && steps >= 2,
	      "bounded steps backward: %d", steps);
	/* a spool that kept only its start */
	idx[0].limit = 20;
	CHECK(c, strcmp(find(s, idx, 1, 0, 0, 1, 1 << 20, &steps, &wr), "none") == 0, "past a spool's limit");
	search_free(s);
	lineidx_free(&idx[0]);
	sb_free(&big);
	sb_free(&err);
}

static void test_filter(checks *c)
{
	model m;
	model_init(&m, NULL);
	int in = model_add_input(&m, "job.log");
	int a = model_add_proc(&m, "gpu-node-0001", 10, in), b = model_add_proc(&m, "node-b", 11, in);
	filterset f;
	filter_init(&f);
	strbuf err = { 0 }, d = { 0 };
	CHECK(c, filter_parse(&f, "node-b r3-5,9 error", &err) == 0, "words: %s", err.p ? err.p : "");
	CHECK(c, f.min_sev == SEV_ERROR && f.nhosts == 1 && f.ranks.n == 4, "parsed: %d %zu %zu", f.min_sev, f.nhosts,
	      f.ranks.n);
	filter_describe(&f, &d);
	CHECK(c, strcmp(d.p, "node-b r3-5,9 error+") == 0, "described: %s", d.p);
	CHECK(c, filter_proc(&f, &m, b, 4) && !filter_proc(&f, &m, b, 6) && !filter_proc(&f, &m, a, 4),
	      "host and rank both");
	CHECK(c, filter_parse(&f, "host=gpu-node-00?1", &err) == 0 && filter_proc(&f, &m, a, -1) &&
		      !filter_proc(&f, &m, b, -1),
	      "a glob");
	CHECK(c, filter_parse(&f, "NODE", &err) == 0 && filter_proc(&f, &m, a, 1) && filter_proc(&f, &m, b, 1),
	      "a substring, any case");
	CHECK(c, filter_parse(&f, "rank=7 sev=warning", &err) == 0 && f.min_sev == SEV_WARNING && intset_has(&f.ranks, 7),
	      "key=value words");
	CHECK(c, filter_proc(&f, &m, a, 7) && !filter_proc(&f, &m, a, -1), "a rank filter leaves out unknown ranks");
	sb_clear(&err);
	CHECK(c, filter_parse(&f, "rank=x", &err) != 0 && strstr(err.p, "not a rank list"), "rank=x: %s", err.p);
	CHECK(c, intset_has(&f.ranks, 7), "a bad filter leaves the old one");
	sb_clear(&err);
	CHECK(c, filter_parse(&f, "0-99999999", &err) != 0 && strstr(err.p, "too wide"), "a huge range: %s", err.p);
	sb_clear(&err);
	CHECK(c, filter_parse(&f, "sev=fatal", &err) != 0 && strstr(err.p, "unknown severity"), "sev=fatal: %s", err.p);
	CHECK(c, filter_parse(&f, "", &err) == 0 && !filter_scoped(&f) && f.min_sev < 0, "empty clears");
	filter_free(&f);
	model_free(&m);
	sb_free(&err);
	sb_free(&d);
}

int main(void)
{
	checks cc = { 0 }, *c = &cc;
	if (!mkdtemp(dir))
		return 2;
	test_match(c);
	test_scan(c);
	test_filter(c);
	const char *const files[] = { "a.log", "b.log", "d.log", "long.log" };
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		strbuf p = { 0 };
		sb_printf(&p, "%s/%s", dir, files[i]);
		unlink(p.p);
		sb_free(&p);
	}
	rmdir(dir);
	return check_done(c, "tui");
}

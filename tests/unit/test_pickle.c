/* The data-only pickle decoder: every data opcode by hand, the limits, the
 * hostile pickles tests/gen_fr.py writes (each refused with its status and
 * offset), and the dumps it writes with Python's pickle and PyTorch's
 * opcodes, whole and cut at every length.
 * usage: test_pickle FRDATA_DIR */
#include <dirent.h>
#include <stdlib.h>

#include "../../parser/pickle.h"
#include "../../util/fileio.h"
#include "check.h"

#define P(lit) (const unsigned char *)(lit), sizeof(lit) - 1

static int decode(const unsigned char *b, size_t n, pickle_doc *doc, pickle_error *e)
{
	return pickle_decode(b, n, NULL, doc, e);
}

static bool str_is(const pk_value *v, const char *s)
{
	return pk_is_str(v, s);
}

static void data_opcodes(checks *c)
{
	pickle_doc doc;
	pickle_error e;
	/* protocol 2, as Python writes a dict: ints of every width, floats, bools,
	 * None, tuples, nested lists, the memo */
	static const unsigned char p2[] =
		"\x80\x02}q\x00(X\x01\x00\x00\x00" "aq\x01K\x07X\x01\x00\x00\x00" "bM\x00\x01X\x01\x00\x00\x00" "c"
		"J\xfe\xff\xff\xffX\x01\x00\x00\x00" "d\x8a\x08\x00\x00\x00\x00\x00\x00\x00\x80X\x01\x00\x00"
		"\x00" "e\x8a\x09\xff\xff\xff\xff\xff\xff\xff\xff\xffX\x01\x00\x00\x00" "fG\x3f\xf8\x00\x00\x00"
		"\x00\x00\x00X\x01\x00\x00\x00g\x88X\x01\x00\x00\x00h\x89X\x01\x00\x00\x00iNX\x01\x00\x00\x00"
		"j)X\x01\x00\x00\x00kK\x01\x85X\x01\x00\x00\x00lK\x01K\x02\x86X\x01\x00\x00\x00mK\x01K\x02K\x03"
		"\x87X\x01\x00\x00\x00n(K\x01K\x02K\x03K\x04tX\x01\x00\x00\x00o]q\x02(]q\x03K\x05" "a]eX\x01"
		"\x00\x00\x00ph\x03X\x01\x00\x00\x00" "ah\x01u.trailing";
	CHECK(c, decode(p2, sizeof p2 - 1, &doc, &e) == 0, "protocol 2: %s", e.msg);
	const pk_value *r = doc.root;
	CHECK(c, r && r->kind == PK_DICT && pk_len(r) == 17, "a dict of 17 pairs, got %zu", pk_len(r));
	CHECK(c, doc.protocol == 2 && doc.used == sizeof p2 - 1 - 8, "stops at STOP: used %zu", doc.used);
	CHECK(c, pk_get(r, "b")->u.i == 256 && pk_get(r, "c")->u.i == -2, "BININT2, BININT");
	CHECK(c, pk_get(r, "d")->u.i == INT64_MIN, "LONG1 of 8 bytes: %lld", (long long)pk_get(r, "d")->u.i);
	CHECK(c, pk_get(r, "e")->kind == PK_INT && pk_get(r, "e")->u.i == -1, "LONG1 of 9 sign bytes");
	CHECK(c, pk_get(r, "f")->kind == PK_FLOAT && pk_get(r, "f")->u.f == 1.5, "BINFLOAT is big-endian");
	CHECK(c, pk_get(r, "g")->u.b && !pk_get(r, "h")->u.b && pk_get(r, "i")->kind == PK_NONE, "bools, None");
	CHECK(c, pk_get(r, "j")->kind == PK_TUPLE && pk_len(pk_get(r, "j")) == 0, "EMPTY_TUPLE");
	CHECK(c, pk_len(pk_get(r, "k")) == 1 && pk_len(pk_get(r, "l")) == 2 && pk_len(pk_get(r, "m")) == 3, "TUPLE1-3");
	CHECK(c, pk_len(pk_get(r, "n")) == 4 && pk_at(pk_get(r, "n"), 3)->u.i == 4, "MARK TUPLE");
	const pk_value *o = pk_get(r, "o");
	CHECK(c, o->kind == PK_LIST && pk_len(o) == 2 && pk_len(pk_at(o, 0)) == 1, "APPEND, APPENDS");
	CHECK(c, pk_get(r, "p") == pk_at(o, 0), "BINGET gives the same value, not a copy");
	CHECK(c, pk_get(r, "a")->kind == PK_STR && str_is(pk_get(r, "a"), "a"), "the last of a repeated key wins");
	pickle_free(&doc);

	/* protocol 4 and 5: frames, short strings, MEMOIZE, bytes, sets */
	static const unsigned char p4[] =
		"\x80\x04\x95@\x00\x00\x00\x00\x00\x00\x00]\x94(\x8c\x02hi\x94\x8d\x03\x00\x00\x00\x00\x00\x00"
		"\x00" "abcC\x02xyB\x01\x00\x00\x00z\x8e\x01\x00\x00\x00\x00\x00\x00\x00w\x8f(K\x01K\x02\x90"
		"(K\x03\x91\x96\x00\x00\x00\x00\x00\x00\x00\x00h\x01" "e.";
	CHECK(c, decode(p4, sizeof p4 - 1, &doc, &e) == 0, "protocol 4: %s", e.msg);
	r = doc.root;
	CHECK(c, r && r->kind == PK_LIST && pk_len(r) == 9, "9 items, got %zu", pk_len(r));
	if (r && pk_len(r) == 9) {
		CHECK(c, str_is(pk_at(r, 0), "hi") && str_is(pk_at(r, 1), "abc"), "SHORT_BINUNICODE, BINUNICODE8");
		CHECK(c, pk_at(r, 2)->kind == PK_BYTES && pk_at(r, 2)->u.s.n == 2, "SHORT_BINBYTES");
		CHECK(c, pk_at(r, 3)->kind == PK_BYTES && pk_at(r, 4)->kind == PK_BYTES, "BINBYTES, BINBYTES8");
		CHECK(c, pk_at(r, 5)->kind == PK_SET && pk_len(pk_at(r, 5)) == 2, "EMPTY_SET, ADDITEMS");
		CHECK(c, pk_at(r, 6)->kind == PK_FROZENSET && pk_len(pk_at(r, 6)) == 1, "FROZENSET");
		CHECK(c, pk_at(r, 7)->kind == PK_BYTES && pk_at(r, 7)->u.s.n == 0, "BYTEARRAY8");
		CHECK(c, pk_at(r, 8) == pk_at(r, 0), "MEMOIZE numbers the memo in order");
	}
	pickle_free(&doc);

	/* protocols 0 and 1: text ints, floats and memo, DICT, LIST, byte strings */
	static const unsigned char p0[] = "(dp0\nS'x'\n";
	CHECK(c, decode(P(p0), &doc, &e) < 0 && e.status == PK_E_UNSUPPORTED && e.off == 5, "quoted STRING: %s",
	      e.msg);
	pickle_free(&doc);
	static const unsigned char p1[] =
		"(I01\x0aI-42\x0aL12345678901L\x0a" "F-2.5\x0ap7\x0a" "0g7\x0aU\x02hiT\x01\x00\x00\x00z(K\x01"
		"l(K\x01K\x02" "d2(N1l.";
	CHECK(c, decode(P(p1), &doc, &e) == 0, "protocol 1: %s", e.msg);
	r = doc.root;
	CHECK(c, r && r->kind == PK_LIST && pk_len(r) == 9, "9 items, got %zu", pk_len(r));
	if (r && pk_len(r) == 9) {
		CHECK(c, pk_at(r, 0)->kind == PK_BOOL && pk_at(r, 0)->u.b, "I01 is True");
		CHECK(c, pk_at(r, 1)->u.i == -42 && pk_at(r, 2)->u.i == 12345678901ll, "INT, LONG");
		CHECK(c, pk_at(r, 3)->kind == PK_FLOAT && pk_at(r, 3)->u.f == -2.5, "FLOAT, PUT, POP, GET");
		CHECK(c, str_is(pk_at(r, 4), "hi") && str_is(pk_at(r, 5), "z"), "SHORT_BINSTRING, BINSTRING are str");
		CHECK(c, pk_at(r, 6)->kind == PK_LIST && pk_len(pk_at(r, 6)) == 1, "LIST");
		CHECK(c, pk_at(r, 7)->kind == PK_DICT && pk_len(pk_at(r, 7)) == 1, "DICT");
		CHECK(c, pk_at(r, 8) == pk_at(r, 7), "DUP; POP_MARK drops what followed its MARK");
	}
	pickle_free(&doc);
}

/* A list placed in another 4 times, then filled: only the pass after STOP
 * can see that it unfolds to 1 + 4 * 11 values. */
static void filled_late(checks *c)
{
	static const unsigned char head[] = { 0x80, 2, ']', 'q', 0, ']', '(', 'h', 0, 'h', 0, 'h', 0,
					      'h',  0, 'e', 'h', 0,   '(' };
	unsigned char b[64];
	size_t k = sizeof head;
	memcpy(b, head, sizeof head);
	for (int i = 0; i < 10; i++) {
		b[k++] = 'K';
		b[k++] = 1;
	}
	b[k++] = 'e';
	b[k++] = '0';
	b[k++] = '.';
	pickle_limits l = pickle_limits_default();
	pickle_doc doc;
	pickle_error e;
	l.max_expanded = 44;
	CHECK(c, pickle_decode(b, k, &l, &doc, &e) < 0 && e.status == PK_E_EXPANSION, "filled late: %s", e.msg);
	pickle_free(&doc);
	l.max_expanded = 45;
	CHECK(c, pickle_decode(b, k, &l, &doc, &e) == 0 && pk_len(doc.root) == 4 && pk_len(pk_at(doc.root, 0)) == 10,
	      "filled late, at the limit: %s", e.msg);
	pickle_free(&doc);
}

static void limits(checks *c)
{
	pickle_doc doc;
	pickle_error e;
	pickle_limits l = pickle_limits_default();
	l.max_str = 4;
	CHECK(c, pickle_decode(P("\x80\x02X\x05\x00\x00\x00hello."), &l, &doc, &e) < 0 && e.status == PK_E_SIZE,
	      "max_str: %s", e.msg);
	pickle_free(&doc);
	l = pickle_limits_default();
	l.max_items = 3;
	CHECK(c, pickle_decode(P("\x80\x02](K\x01K\x02K\x03K\x04" "e."), &l, &doc, &e) < 0 && e.status == PK_E_SIZE,
	      "max_items: %s", e.msg);
	pickle_free(&doc);
	l = pickle_limits_default();
	l.max_values = 3;
	CHECK(c, pickle_decode(P("\x80\x02](K\x01K\x02K\x03e."), &l, &doc, &e) < 0 && e.status == PK_E_COUNT,
	      "max_values: %s", e.msg);
	pickle_free(&doc);
	l = pickle_limits_default();
	l.max_memory = 1024;
	static unsigned char many[4096];
	size_t n = 0;
	many[n++] = 0x80;
	many[n++] = 2;
	many[n++] = ']';
	many[n++] = '(';
	while (n < sizeof many - 8) {
		many[n++] = 'K';
		many[n++] = 1;
	}
	many[n++] = 'e';
	many[n++] = '.';
	CHECK(c, pickle_decode(many, n, &l, &doc, &e) < 0 && e.status == PK_E_MEMORY, "max_memory: %s", e.msg);
	pickle_free(&doc);
	l = pickle_limits_default();
	l.max_expanded = 10;
	/* [[1,2,3],[1,2,3],[1,2,3]] through the memo: 13 values unfolded */
	CHECK(c, pickle_decode(P("\x80\x02](]q\x00(K\x01K\x02K\x03" "eh\x00h\x00" "e."), &l, &doc, &e) < 0 &&
			 e.status == PK_E_EXPANSION,
	      "max_expanded: %s", e.msg);
	pickle_free(&doc);
	l.max_expanded = 13;
	CHECK(c, pickle_decode(P("\x80\x02](]q\x00(K\x01K\x02K\x03" "eh\x00h\x00" "e."), &l, &doc, &e) == 0,
	      "exactly at max_expanded: %s", e.msg);
	pickle_free(&doc);
	l = pickle_limits_default();
	l.max_depth = 3;
	CHECK(c, pickle_decode(P("\x80\x02]]]K\x01" "aaa."), &l, &doc, &e) == 0, "depth 3 at a limit of 3: %s", e.msg);
	pickle_free(&doc);
	CHECK(c, pickle_decode(P("\x80\x02]]]]K\x01" "aaaa."), &l, &doc, &e) < 0 && e.status == PK_E_DEPTH,
	      "depth 4: %s", e.msg);
	pickle_free(&doc);
	CHECK(c, pickle_decode(P("\x80\x02K\x01\x85\x85\x85."), &l, &doc, &e) == 0, "3 tuples deep: %s", e.msg);
	pickle_free(&doc);
	CHECK(c, pickle_decode(P("\x80\x02K\x01\x85\x85\x85\x85."), &l, &doc, &e) < 0 && e.status == PK_E_DEPTH,
	      "4 tuples deep: %s", e.msg);
	pickle_free(&doc);
	/* depth through a shared container counts once per path */
	CHECK(c, pickle_decode(P("\x80\x02]]q\x00]K\x01" "aaah\x00" "a."), &l, &doc, &e) == 0, "shared at depth 3: %s",
	      e.msg);
	pickle_free(&doc);
}

/* MANIFEST.tsv: file, status name, offset (-1: any). */
static void hostile(checks *c, const char *dir)
{
	static const char *const names[] = {
#define PK_NAME(name, text) #name,
		PICKLE_STATUS(PK_NAME)
#undef PK_NAME
	};
	char path[4096];
	snprintf(path, sizeof path, "%s/hostile/MANIFEST.tsv", dir);
	FILE *f = fopen(path, "r");
	CHECK(c, f != NULL, "%s", path);
	if (!f)
		return;
	char line[512];
	int cases = 0;
	while (fgets(line, sizeof line, f)) {
		char file[256], status[64];
		long long off;
		if (line[0] == '#' || sscanf(line, "%255s %63s %lld", file, status, &off) != 3)
			continue;
		snprintf(path, sizeof path, "%s/hostile/%s", dir, file);
		char *buf;
		size_t n;
		strbuf err = { 0 };
		if (file_slurp(path, &buf, &n, &err) < 0) {
			CHECK(c, 0, "%s", err.p);
			sb_free(&err);
			continue;
		}
		pickle_doc doc;
		pickle_error e;
		int rc = decode((const unsigned char *)buf, n, &doc, &e);
		CHECK(c, rc < 0, "%s is refused", file);
		CHECK(c, rc < 0 && !strcmp(names[e.status], status), "%s: %s, want %s (%s)", file, names[e.status],
		      status, e.msg);
		CHECK(c, off < 0 || e.off == (uint64_t)off, "%s: offset %llu, want %lld", file,
		      (unsigned long long)e.off, off);
		CHECK(c, e.msg[0] && strstr(e.msg, "offset"), "%s: the message says where: %s", file, e.msg);
		if (e.status == PK_E_FORBIDDEN)
			CHECK(c, e.op >= 0 && strstr(e.msg, pickle_opname(e.op)) && strstr(e.msg, "refuses"),
			      "%s: the message names the opcode: %s", file, e.msg);
		for (const char *p = e.msg; *p; p++)
			CHECK(c, (unsigned char)*p >= 0x20 && (unsigned char)*p < 0x7f, "%s: printable message", file);
		CHECK(c, doc.root == NULL && doc.values == 0, "%s: nothing is left after an error", file);
		pickle_free(&doc);
		free(buf);
		cases++;
	}
	fclose(f);
	CHECK(c, cases >= 30, "the manifest lists the hostile cases: %d", cases);
}

/* The dumps of every format decode; cut anywhere, they are refused. */
static void generated(checks *c, const char *dir)
{
	static const char *const sets[] = { "v2.3-torch", "v2.10-torch", "v2.7-pickle2", "v2.10-pickle4",
					    "v2.10-pickle5" };
	for (size_t s = 0; s < sizeof sets / sizeof *sets; s++) {
		char path[4096];
		snprintf(path, sizeof path, "%s/%s/nccl_trace_rank_1", dir, sets[s]);
		char *buf;
		size_t n;
		strbuf err = { 0 };
		if (file_slurp(path, &buf, &n, &err) < 0) {
			CHECK(c, 0, "%s", err.p);
			sb_free(&err);
			continue;
		}
		pickle_doc doc;
		pickle_error e;
		CHECK(c, decode((const unsigned char *)buf, n, &doc, &e) == 0, "%s: %s", sets[s], e.msg);
		const pk_value *ents = pk_get(doc.root, "entries");
		CHECK(c, ents && ents->kind == PK_LIST && pk_len(ents) > 10, "%s: entries", sets[s]);
		const pk_value *first = pk_at(ents, 0);
		CHECK(c, first && pk_get(first, "profiling_name") && pk_get(first, "frames"), "%s: an entry", sets[s]);
		CHECK(c, doc.used == n, "%s: all %zu bytes used, %zu", sets[s], n, doc.used);
		pickle_free(&doc);
		/* a decoder that reads past the end or accepts a cut pickle fails here */
		int refused = 0;
		for (size_t k = 0; k < n; k++) {
			unsigned char *cut = malloc(k ? k : 1);
			memcpy(cut, buf, k);
			if (decode(cut, k, &doc, &e) < 0)
				refused++;
			pickle_free(&doc);
			free(cut);
		}
		CHECK(c, (size_t)refused == n, "%s: every cut of %zu bytes refused (%d)", sets[s], n, refused);
		free(buf);
	}
}

static void names(checks *c)
{
	CHECK(c, !strcmp(pickle_opname(0x63), "GLOBAL") && !strcmp(pickle_opname(0x95), "FRAME"), "op names");
	CHECK(c, pickle_opname(0xff) == NULL && pickle_opname(-1) == NULL, "no name for unknown opcodes");
	CHECK(c, !strcmp(pickle_status_text(PK_E_RECURSIVE), "a container contains itself"), "status text");
	CHECK(c, !strcmp(pk_kind_name(PK_DICT), "dict"), "kind names");
}

int main(int argc, char **argv)
{
	checks cc = { 0 }, *c = &cc;
	if (argc != 2) {
		fprintf(stderr, "usage: test_pickle FRDATA_DIR\n");
		return 2;
	}
	data_opcodes(c);
	limits(c);
	filled_late(c);
	names(c);
	hostile(c, argv[1]);
	generated(c, argv[1]);
	return check_done(c, "pickle");
}

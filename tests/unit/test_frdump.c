/* Reading FR dumps: the sniffer, the rank in a file name, every FR version
 * in every format tests/gen_fr.py writes (the same job read from PyTorch's
 * pickle, Python's pickle 2/4/5 and the JSON form must give the same
 * entries), torchcomms, hand-made and malformed dumps, hostile pickles.
 * usage: test_frdump FRDATA_DIR */
#include <stdlib.h>

#include "../../parser/frdump.h"
#include "../../util/fileio.h"
#include "check.h"

static const char *dir;

static int load(const char *sub, const char *file, frdump *d, frdump_error *e)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s/%s", dir, sub, file);
	return frdump_load(path, d, e);
}

static frdump_kind sniff_file(const char *sub, const char *file, size_t n)
{
	char path[4096], *buf;
	size_t len;
	strbuf err = { 0 };
	snprintf(path, sizeof path, "%s/%s/%s", dir, sub, file);
	if (file_slurp(path, &buf, &len, &err) < 0) {
		sb_free(&err);
		return (frdump_kind)-1;
	}
	frdump_kind k = frdump_sniff((const unsigned char *)buf, len < n ? len : n);
	free(buf);
	return k;
}

static void sniffing(checks *c)
{
	static const char *const fmts[] = { "torch", "pickle2", "pickle4", "pickle5" };
	for (size_t i = 0; i < 4; i++) {
		char sub[64];
		snprintf(sub, sizeof sub, "v2.3-%s", fmts[i]);
		CHECK(c, sniff_file(sub, "nccl_trace_rank_0", 64) == FRDUMP_PICKLE, "%s: a pickle in 64 bytes", sub);
		snprintf(sub, sizeof sub, "v2.10-%s", fmts[i]);
		CHECK(c, sniff_file(sub, "nccl_trace_rank_0", 64) == FRDUMP_PICKLE, "%s: a pickle", sub);
	}
	/* JSON: 2.10 starts with comm_lib_version, 2.3 (sorted keys) with entries */
	CHECK(c, sniff_file("v2.10-json", "nccl_trace_rank_0", 64) == FRDUMP_JSON, "2.10 JSON");
	CHECK(c, sniff_file("v2.3-json", "nccl_trace_rank_0", 200) == FRDUMP_JSON, "2.3 JSON opens with entries");
	CHECK(c, sniff_file("torchcomms", "nccl_trace_rank_0", 64) == FRDUMP_JSON, "torchcomms JSON");
	CHECK(c, sniff_file("odd", "log.json", 4096) == FRDUMP_NONE, "a JSON log line with a version key");
	CHECK(c, sniff_file("odd", "nofr.pkl", 4096) == FRDUMP_NONE, "a pickled dict of other keys");
	CHECK(c, sniff_file("odd", "list.pkl", 4096) == FRDUMP_NONE, "a pickled list");
	CHECK(c, sniff_file("hostile", "global-reduce.pkl", 4096) == FRDUMP_NONE, "a pickle that calls");
#define S(lit) lit, sizeof(lit) - 1
	static const struct {
		const char *text;
		size_t n;
		frdump_kind want;
	} cases[] = {
		{ S("node-a:1:1 [0] NCCL INFO Bootstrap : Using eth0"), FRDUMP_NONE },
		{ S("{\"version\": \"2.4\", \"pg_config\": {}}"), FRDUMP_JSON },
		{ S("  \n{ \"pg_status\" : {"), FRDUMP_JSON },
		{ S("\xef\xbb\xbf{\"nccl_version\":\"2.21.5\""), FRDUMP_JSON },
		{ S("{\"entries\":[{\"collective_seq_id\":1"), FRDUMP_JSON },
		{ S("{\"entries\":[{\"user\":1"), FRDUMP_NONE },
		{ S("{\"entries\":[]}"), FRDUMP_JSON },
		{ S("{\"version\":\"2.4\",\"x\":1}"), FRDUMP_NONE },
		{ S("\x80\x02}q\x00(X\x07\x00\x00\x00version"), FRDUMP_PICKLE },
		{ S("\x80\x02}q\x00(X\x07\x00\x00\x00versio"), FRDUMP_NONE },
		{ S("\x80\x02}(X\x09\x00\x00\x00pg_config"), FRDUMP_PICKLE },
		{ S("\x80\x04\x95\x10\x00\x00\x00\x00\x00\x00\x00}\x94\x8c\x07" "entries"), FRDUMP_PICKLE },
		{ S("\x80\x02" "ctorch._utils\n"), FRDUMP_NONE },
		{ S("\x80"), FRDUMP_NONE },
		{ S(""), FRDUMP_NONE },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		CHECK(c, frdump_sniff((const unsigned char *)cases[i].text, cases[i].n) == cases[i].want,
		      "sniff case %zu", i);
#undef S
}

static void rank_names(checks *c)
{
	static const struct {
		const char *name;
		int64_t rank;
	} cases[] = {
		{ "/tmp/nccl_trace_rank_12", 12 }, { "nccl_trace_rank_0", 0 }, { "dir/rank_3.json", 3 },
		{ "trace_7.pkl.gz", 7 },	   { "rank007", 7 },	       { "nccl_trace_rank_", -1 },
		{ "/tmp/3/trace", -1 },		   { "x1234567890", -1 },      { "", -1 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		CHECK(c, frdump_rank_from_name(cases[i].name) == cases[i].rank, "%s: %lld", cases[i].name,
		      (long long)frdump_rank_from_name(cases[i].name));
	CHECK(c, frdump_rank_from_name(NULL) == -1, "no name");
}

static const fr_pg *pg_named(const frdump *d, const char *desc)
{
	for (size_t i = 0; i < d->npgs; i++)
		if (!strcmp(d->pgs[i].desc, desc))
			return &d->pgs[i];
	return NULL;
}

/* The job of the suite's v* sets: 4 ranks, tp 2, rank 2 never calls
 * default_pg collective 6; timing on; rings of 64 entries. */
static void versions(checks *c)
{
	static const char *const vers[] = { "2.3", "2.4", "2.5", "2.6", "2.7", "2.8", "2.9", "2.10" };
	static const char *const fmts[] = { "torch", "pickle2", "pickle4", "pickle5", "json" };
	for (size_t v = 0; v < 8; v++) {
		frdump ref = { 0 };
		bool have_ref = false;
		for (size_t f = 0; f < 5; f++) {
			char sub[64];
			snprintf(sub, sizeof sub, "v%s-%s", vers[v], fmts[f]);
			frdump d;
			frdump_error e;
			int rc = load(sub, "nccl_trace_rank_1", &d, &e);
			CHECK(c, rc == 0, "%s: %s", sub, e.msg);
			if (rc) {
				frdump_free(&d);
				continue;
			}
			bool json = f == 4;
			CHECK(c, d.kind == (json ? FRDUMP_JSON : FRDUMP_PICKLE), "%s: kind", sub);
			CHECK(c, !strcmp(d.version, vers[v]), "%s: version %s", sub, d.version);
			CHECK(c, d.ver_major == 2 && d.ver_minor == atoi(vers[v] + 2), "%s: %d.%d", sub, d.ver_major,
			      d.ver_minor);
			const char *lib = d.ver_minor >= 10 ? "2.27.3" : d.ver_minor >= 7 ? "2.21.5" : "";
			CHECK(c, !strcmp(d.comm_lib_version, lib), "%s: library version '%s'", sub, d.comm_lib_version);
			CHECK(c, d.rank == 1 && d.rank_from_name, "%s: rank from the name", sub);
			CHECK(c, d.bad_fields == 0, "%s: %zu bad fields: %s", sub, d.bad_fields, d.first_bad);
			CHECK(c, d.npgs == 3 && d.nstatus == 3, "%s: 3 groups, %zu and %zu", sub, d.npgs, d.nstatus);
			const fr_pg *dp = pg_named(&d, "dp"), *def = pg_named(&d, "default_pg");
			CHECK(c, def && def->ranks_ok && def->nranks == 4 && def->ranks[3] == 3, "%s: default_pg", sub);
			CHECK(c, dp && dp->nranks == 2 && dp->ranks[0] == 1 && dp->ranks[1] == 3, "%s: dp of rank 1", sub);
			CHECK(c, d.status[0].last_enqueued == 6 && d.status[0].last_completed == 5 &&
					 d.status[0].last_started == 6,
			      "%s: pg_status of default_pg %lld %lld %lld", sub, (long long)d.status[0].last_enqueued,
			      (long long)d.status[0].last_started, (long long)d.status[0].last_completed);
			CHECK(c, d.nentries > 20, "%s: %zu entries", sub, d.nentries);
			const fr_entry *last = &d.entries[d.nentries - 1];
			CHECK(c, last->state == FR_STARTED || last->state == FR_SCHEDULED, "%s: the last is pending", sub);
			const fr_entry *st = NULL;
			for (size_t i = 0; i < d.nentries; i++)
				if (!strcmp(d.entries[i].pg_desc, "default_pg") && d.entries[i].collective_seq_id == 6)
					st = &d.entries[i];
			CHECK(c, st && st->state == FR_STARTED && !st->retired && st->time_completed_ns == 0 &&
					 st->time_started_ns > st->time_created_ns && st->timeout_ms == 600000,
			      "%s: the stuck all_reduce", sub);
			if (st) {
				char buf[64];
				CHECK(c, !strcmp(fr_op_name(st->profiling_name), "all_reduce"), "%s: op", sub);
				CHECK(c, !strcmp(fr_sizes_text(&d, st, false, buf, sizeof buf), "[[1088, 1088]]"),
				      "%s: sizes %s", sub, buf);
				CHECK(c, fr_numel(&d, st, true) == 1088 * 1088, "%s: numel", sub);
				CHECK(c, st->n_in_dtypes == 1 && !strcmp(d.dtypes[st->in_dtypes], "Float"), "%s: dtype",
				      sub);
				CHECK(c, !st->is_p2p && st->pg_id == 0 && !strcmp(st->pg_name, "0"), "%s: group", sub);
				bool v210 = d.ver_minor >= 10;
				CHECK(c, !strcmp(st->thread_name, v210 ? "pt_main_thread" : ""), "%s: thread_name", sub);
				CHECK(c, json ? st->nframes == 0 : st->nframes == 5, "%s: frames %u", sub, st->nframes);
				if (st->nframes == 5) {
					const fr_frame *fr = &d.frames[d.frame_idx[st->frame0 + 2]];
					CHECK(c, !strcmp(fr->name, "train_step") && !strcmp(fr->file, "/workspace/train.py") &&
							 fr->line == 288,
					      "%s: the user frame %s %s:%lld", sub, fr->name, fr->file, (long long)fr->line);
				}
			}
			/* a completed entry carries its duration with timing on */
			CHECK(c, d.entries[0].state == FR_COMPLETED && d.entries[0].has_duration &&
					 d.entries[0].duration_ms > 0 && d.entries[0].retired,
			      "%s: a completed entry", sub);
			/* every format reads to the same entries */
			if (!have_ref) {
				ref = d;
				have_ref = true;
				continue;
			}
			bool same = ref.nentries == d.nentries;
			for (size_t i = 0; same && i < d.nentries; i++) {
				const fr_entry *a = &ref.entries[i], *b = &d.entries[i];
				char s1[96], s2[96];
				same = a->record_id == b->record_id && a->collective_seq_id == b->collective_seq_id &&
				       a->p2p_seq_id == b->p2p_seq_id && a->op_id == b->op_id && a->state == b->state &&
				       a->is_p2p == b->is_p2p && a->retired == b->retired &&
				       llabs(a->time_created_ns - b->time_created_ns) <= 512 &&
				       a->has_duration == b->has_duration && a->duration_ms == b->duration_ms &&
				       !strcmp(a->profiling_name, b->profiling_name) && !strcmp(a->pg_desc, b->pg_desc) &&
				       !strcmp(fr_sizes_text(&ref, a, true, s1, sizeof s1),
					       fr_sizes_text(&d, b, true, s2, sizeof s2));
				if (!same)
					fprintf(stderr, "%s: entry %zu differs from %s's\n", sub, i, fmts[0]);
			}
			CHECK(c, same, "%s reads as the torch pickle does", sub);
			frdump_free(&d);
		}
		if (have_ref)
			frdump_free(&ref);
	}
}

static void torchcomms(checks *c)
{
	frdump d;
	frdump_error e;
	CHECK(c, load("torchcomms", "nccl_trace_rank_2", &d, &e) == 0, "torchcomms: %s", e.msg);
	const fr_pg *g = pg_named(&d, "default_pg");
	CHECK(c, g && g->ranks_ok && g->nranks == 4, "ranks written as [0,1,2,3]");
	CHECK(c, d.nentries && d.entries[0].p2p_seq_id == 0 && !d.entries[0].is_p2p, "no p2p");
	CHECK(c, !strcmp(d.version, "2.10") && !strcmp(d.comm_lib_version, "2.27.3"), "2.10");
	frdump_free(&d);
}

static void odd_dumps(checks *c)
{
	frdump d;
	frdump_error e;
	/* fr_trace's test dumps: ids as strings, a dtype as one string; and
	 * fields of the wrong type, each counted and left at its default */
	CHECK(c, load("odd", "handmade_rank_9", &d, &e) == 0, "hand-made: %s", e.msg);
	CHECK(c, d.rank == 1 && !d.rank_from_name, "the dump's rank wins over the name's");
	CHECK(c, d.nentries == 3, "3 entries, one of them no dict: %zu", d.nentries);
	if (d.nentries == 3) {
		const fr_entry *a = &d.entries[0], *b = &d.entries[1], *x = &d.entries[2];
		CHECK(c, a->collective_seq_id == 3 && a->p2p_seq_id == 0, "ids in strings");
		CHECK(c, a->n_in_dtypes == 1 && !strcmp(d.dtypes[a->in_dtypes], "float32"), "one dtype string");
		CHECK(c, b->is_p2p && b->pg_id == -1 && b->n_in == 0 && b->state == FR_STATE_UNKNOWN,
		      "a send without is_p2p is p2p; the sizes and state of the wrong type are left out");
		CHECK(c, b->has_duration && b->duration_ms == 2 && b->nframes == 1, "an int duration; the good frame");
		CHECK(c, x->record_id == -1 && x->collective_seq_id == -1 && !strcmp(x->profiling_name, ""),
		      "an entry that is no dict is empty");
	}
	CHECK(c, d.bad_fields == 5 && strstr(d.first_bad, "entries[1].input_sizes"), "%zu bad: %s", d.bad_fields,
	      d.first_bad);
	CHECK(c, d.status[0].last_enqueued == 3, "pg_status in strings");
	frdump_free(&d);
	CHECK(c, load("odd", "repeated_rank_2", &d, &e) == 0 && d.nentries == 1, "repeated keys: %s", e.msg);
	if (d.nentries == 1) {
		const fr_entry *x = &d.entries[0];
		CHECK(c, x->n_in_dtypes == 0 && x->n_in == 0, "a bad repeat leaves dtypes and sizes empty");
		CHECK(c, x->nframes == 1 && !strcmp(d.frames[d.frame_idx[x->frame0]].name, "c"), "the last frames count");
		CHECK(c, d.bad_fields == 2, "two bad fields: %zu", d.bad_fields);
	}
	frdump_free(&d);
	CHECK(c, load("odd", "nccl_trace_rank_3.gz", &d, &e) == 0 && d.nentries == 1, "gzip: %s", e.msg);
	frdump_free(&d);
	CHECK(c, load("odd", "list.pkl", &d, &e) < 0 && strstr(e.msg, "not a Flight Recorder dump"), "a list: %s",
	      e.msg);
	CHECK(c, d.nentries == 0 && d.npgs == 0, "nothing is kept after an error");
	frdump_free(&d);
	CHECK(c, load("odd", "nofr.pkl", &d, &e) < 0 && strstr(e.msg, "pg_config"), "other keys: %s", e.msg);
	frdump_free(&d);
	CHECK(c, load("odd", "log.json", &d, &e) < 0, "a JSON log line is no dump: %s", e.msg);
	frdump_free(&d);
	CHECK(c, load("odd", "bad.json", &d, &e) < 0 && e.off > 60 && strstr(e.msg, "JSON"), "bad JSON at %llu: %s",
	      (unsigned long long)e.off, e.msg);
	frdump_free(&d);
	CHECK(c, load("odd", "many.json", &d, &e) < 0 && strstr(e.msg, "values"), "too many JSON values: %s", e.msg);
	frdump_free(&d);
	CHECK(c, load("odd", "missing-file", &d, &e) < 0 && strstr(e.msg, "No such file"), "a missing file: %s",
	      e.msg);
	frdump_free(&d);
}

static void hostile(checks *c)
{
	static const char *const files[] = { "global-reduce.pkl", "memo-bomb.pkl", "deep-lists.pkl",
					     "truncated-half.pkl", "huge-binunicode.pkl", "recursive.pkl" };
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		frdump d;
		frdump_error e;
		CHECK(c, load("hostile", files[i], &d, &e) < 0 && strstr(e.msg, "offset"), "%s: %s", files[i], e.msg);
		frdump_free(&d);
	}
	frdump d;
	frdump_error e;
	CHECK(c, load("hostile", "global-reduce.pkl", &d, &e) < 0 && e.off == 2 && strstr(e.msg, "GLOBAL") &&
			 strstr(e.msg, "os.system"),
	      "the refusal names what it wanted: %s", e.msg);
	frdump_free(&d);
}

static void helpers(checks *c)
{
	CHECK(c, !strcmp(fr_op_name("nccl:send 0->1"), "send 0->1") && !strcmp(fr_op_name("all_reduce"), "all_reduce"),
	      "op names");
	CHECK(c, !strcmp(fr_op_name("weird name:x"), "weird name:x") && !strcmp(fr_op_name(NULL), ""),
	      "no backend before a space");
	CHECK(c, !strcmp(fr_state_name(FR_STARTED), "started") && !strcmp(fr_state_name((fr_state)9), "unknown"),
	      "state names");
	frdump d;
	frdump_error e;
	if (load("v2.10-torch", "nccl_trace_rank_0", &d, &e) == 0 && d.nentries) {
		char buf[8];
		const fr_entry *x = &d.entries[d.nentries - 1];
		fr_sizes_text(&d, x, false, buf, sizeof buf);
		CHECK(c, strlen(buf) == 7 && !strcmp(buf + 4, "..."), "a cut size text: %s", buf);
	}
	frdump_free(&d);
}

int main(int argc, char **argv)
{
	checks cc = { 0 }, *c = &cc;
	if (argc != 2) {
		fprintf(stderr, "usage: test_frdump FRDATA_DIR\n");
		return 2;
	}
	dir = argv[1];
	sniffing(c);
	rank_names(c);
	versions(c);
	torchcomms(c);
	odd_dumps(c);
	hostile(c);
	helpers(c);
	return check_done(c, "frdump");
}

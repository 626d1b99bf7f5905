/* nccl-tests output of every era: size-table rows and headers, and the
 * JSON report of -J (JSON_FILE_VERSION 1 and 3). */
#include <math.h>

#include "../../parser/ncclt.h"
#include "check.h"

static bool near(double a, double b)
{
	return fabs(a - b) < 1e-6;
}

int main(void)
{
	checks c = { 0 };
	ncclt_row r;
	/* 2.13+: size count type redop root, then out-of-place and in-place */
	CHECK(&c, ncclt_row_parse(slice_from("   134217728      33554432     float     sum      -1   1302.6  103.04  193.19      0   1299.8  103.26  193.61      0"), &r), "2.19 row");
	CHECK(&c, r.size == 134217728 && r.count == 33554432 && !strcmp(r.type, "float") && !strcmp(r.redop, "sum") && r.root == -1, "row fields");
	CHECK(&c, r.out.set && near(r.out.busbw, 193.19) && near(r.out.wrong, 0) && near(r.in.busbw, 193.61), "row numbers");
	CHECK(&c, ncclt_row_parse(slice_from("        1024           256     float     sum      -1    31.52    0.03    0.06  2e+02    30.91    0.03    0.06      1"), &r), "wrong counts");
	CHECK(&c, near(r.out.wrong, 200) && near(r.in.wrong, 1), "%%g of #wrong");
	/* no validation: N/A */
	CHECK(&c, ncclt_row_parse(slice_from("  8  2  float  sum  -1  13.92  0.00  0.00  N/A  13.52  0.00  0.00  N/A"), &r), "N/A");
	CHECK(&c, r.out.wrong == -1 && r.in.wrong == -1, "N/A is -1");
	/* before 2.13: no root, the error column a max delta */
	CHECK(&c, ncclt_row_parse(slice_from("     1048576        262144   float     sum    226.1    4.64    8.12  5e-07    224.9    4.66    8.16  5e-07"), &r), "2.9 row");
	CHECK(&c, r.root == -1 && near(r.out.algbw, 4.64), "2.9 fields");
	/* the per-iteration form of -I 1: eight columns per direction */
	CHECK(&c, ncclt_row_parse(slice_from("  4096  1024  float  sum  -1  20.1  0.20  0.38  0  19.0  21.5  21.4  3.1  19.9  0.21  0.39  0  19.1  21.0  20.9  2.5"), &r), "per-iteration");
	CHECK(&c, near(r.in.busbw, 0.39) && near(r.out.wrong, 0), "per-iteration fields");
	/* alltoall: redop none */
	CHECK(&c, ncclt_row_parse(slice_from("  33554432  524288  float  none  -1  3521.2  9.53  8.93  0  3511.8  9.55  8.95  0"), &r), "alltoall");
	const char *bad[] = { "# Avg bus bandwidth    : 22.4", "12 13", "abc 1 float sum -1 1 2 3 0 1 2 3 0",
			      "2024 03 float sum -1 1 2 3", "   1   2   float  sum  -1  -3  1  1  0  1  1  1  0",
			      "Epoch 1 loss 0.25 acc 0.9 lr 0.001 step 100 of 200", "1 2 3 4 5 6 7 8 9 10 11 12 13" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		CHECK(&c, !ncclt_row_parse(slice_from(bad[i]), &r), "'%s' read as a row", bad[i]);
	CHECK(&c, ncclt_header_kind(slice_from("#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong")) == NCCLT_COL_WRONG, "2.13+ header");
	CHECK(&c, ncclt_header_kind(slice_from("#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error")) == NCCLT_COL_ERROR, "old header");
	CHECK(&c, ncclt_header_kind(slice_from("# Using devices")) == NCCLT_COL_NONE, "no header");

	static const char v3[] =
		"{\"version\":3,\"start_time\":\"2025-10-17 10:00:00\",\"args\":[\"./build/all_reduce_perf\",\"-b\",\"8\"],"
		"\"env\":[\"PATH=/usr/bin\"],\"nccl_version\":22703,\"config\":{\"nthreads\":1,\"ngpus\":1,"
		"\"devices\":[{\"rank\":0,\"group\":0,\"pid\":4001,\"hostname\":\"node-a\",\"device\":0,\"device_hex\":\"0000:07:00\",\"device_info\":\"NVIDIA H100\"},"
		"{\"rank\":1,\"group\":0,\"pid\":4002,\"hostname\":\"node-b\",\"device\":0,\"device_hex\":\"0000:07:00\",\"device_info\":\"NVIDIA H100\"}]},"
		"\"results\":[{\"size\":8,\"count\":2,\"type\":\"float\",\"redop\":\"sum\",\"root\":\"    -1\","
		"\"out_of_place\":{\"time\":13.9,\"alg_bw\":0.0,\"bus_bw\":0.0,\"nwrong\":0},"
		"\"in_place\":{\"time\":13.5,\"alg_bw\":0.0,\"bus_bw\":0.0,\"nwrong\":3},\"actual_iterations\":20,\"experiment_name\":\"x\"}],"
		"\"out_of_bounds\":{\"count\":1,\"okay\":\"false\"},\"average_bus_bandwidth\":{\"bandwidth\":12.5,\"okay\":\"unchecked\"},"
		"\"errors\":[]}";
	ncclt_run run;
	strbuf err = { 0 };
	CHECK(&c, ncclt_json_sniff((const unsigned char *)v3, sizeof v3 - 1), "sniff v3");
	CHECK(&c, ncclt_json_parse(v3, sizeof v3 - 1, &run, &err) == 0, "parse v3: %s", err.p ? err.p : "");
	CHECK(&c, !strcmp(run.program, "all_reduce_perf") && run.nccl_version == 22703 && run.version == 3, "v3 head");
	CHECK(&c, run.ndev == 2 && !strcmp(run.dev[1].host, "node-b") && run.dev[1].pid == 4002 && !strcmp(run.dev[1].bus, "0000:07:00"), "v3 devices");
	CHECK(&c, run.nrows == 1 && run.rows[0].root == -1 && near(run.rows[0].in.wrong, 3), "v3 rows");
	CHECK(&c, run.out_of_bounds == 1 && near(run.avg_busbw, 12.5) && !run.error, "v3 footer");
	ncclt_run_free(&run);
	static const char v1[] = "{\"version\":1,\"start_time\":\"x\",\"args\":[\"sendrecv_perf\"],\"results\":[],"
				 "\"out_of_bounds\":{\"count\":0,\"okay\":true},\"average_bus_bandwidith\":{\"bandwidith\":3.25,\"okay\":true},"
				 "\"errors\":[\"NCCL failure common.cu:1012 'remote process exited or there was a network error'\"]}";
	CHECK(&c, ncclt_json_parse(v1, sizeof v1 - 1, &run, &err) == 0, "parse v1");
	CHECK(&c, near(run.avg_busbw, 3.25) && run.out_of_bounds == 0 && run.error && strstr(run.error, "remote process"), "v1 spelling");
	ncclt_run_free(&run);
	const char *broken[] = { "{\"version\":3,\"start_time\":", "[1,2,3]", "{\"start_time\":1}", "nccl" };
	for (size_t i = 0; i < sizeof broken / sizeof broken[0]; i++) {
		sb_clear(&err);
		CHECK(&c, ncclt_json_parse(broken[i], strlen(broken[i]), &run, &err) != 0 && err.n > 0, "'%s' accepted", broken[i]);
		ncclt_run_free(&run);
	}
	CHECK(&c, !ncclt_json_sniff((const unsigned char *)"{\"version\": 2, \"pg_config\": {}}", 31), "an FR dump is no report");
	sb_free(&err);
	return check_done(&c, "ncclt");
}

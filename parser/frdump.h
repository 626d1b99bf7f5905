/* One PyTorch Flight Recorder (FR) dump, the file a rank writes on a
 * watchdog timeout (TORCH_NCCL_DUMP_ON_TIMEOUT=1, by default
 * /tmp/nccl_trace_rank_<rank>): the pickle of ProcessGroupNCCL's trace
 * buffer, or the JSON form of PyTorch's JSON dump API and of torchcomms.
 * Every field of FR versions 2.3 to 2.10 is read; a field of the wrong type
 * is counted and left at its default, so one odd entry costs nothing else.
 * All strings are copies owned by the dump, NUL-terminated (a NUL inside
 * one ends it). */
#ifndef NCCLOG_FRDUMP_H
#define NCCLOG_FRDUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pickle.h"

#define FRDUMP_MAX_FILE ((size_t)256 << 20) /* bytes of a pickled dump */
#define FRDUMP_MAX_JSON ((size_t)64 << 20)  /* bytes of a JSON dump */
#define FRDUMP_MAX_JSON_VALUES (2u << 20)    /* values of a JSON dump (cJSON holds them all) */
#define FRDUMP_MAX_ENTRIES (1u << 20)       /* entries read from one dump */
#define FRDUMP_MAX_FRAMES 256               /* stack frames kept per entry */
#define FRDUMP_MAX_RANKS (1u << 20)         /* members of one process group */

typedef enum frdump_kind { FRDUMP_NONE, FRDUMP_PICKLE, FRDUMP_JSON } frdump_kind;

typedef enum fr_state { FR_STATE_UNKNOWN, FR_SCHEDULED, FR_STARTED, FR_COMPLETED } fr_state;

typedef struct fr_frame {
	const char *name, *file;
	int64_t line;
} fr_frame;

/* A process group as pg_config describes it. */
typedef struct fr_pg {
	const char *name; /* the group name ("0", or a hash for split groups) */
	const char *desc; /* default_pg, tp, dp, ..., "undefined" when unset */
	int64_t *ranks;   /* global ranks of its members, as listed */
	size_t nranks;
	bool ranks_ok; /* the "ranks" string parsed */
} fr_pg;

/* pg_status: the progress of one process group on this rank; -1 = none. */
typedef struct fr_pg_status {
	const char *pg_id; /* key: ProcessGroupNCCL's uid on this rank */
	int64_t last_enqueued, last_started, last_completed;
} fr_pg_status;

typedef struct fr_entry {
	int64_t record_id;
	int64_t pg_id;
	const char *pg_name, *pg_desc; /* process_group (name, desc) */
	int64_t collective_seq_id, p2p_seq_id, op_id;
	const char *profiling_name; /* "nccl:all_reduce", "nccl:send 0->1" */
	int64_t time_created_ns;
	int64_t time_started_ns, time_completed_ns; /* discovered; 0 = not yet */
	double duration_ms;
	bool has_duration;
	fr_state state;
	bool is_p2p, retired;
	int64_t timeout_ms;
	/* sizes: tensor k of the inputs is dims[in + ...]: its rank, then its
	 * sizes; n_in tensors from offset in, n_out from offset out */
	uint32_t n_in, n_out;
	size_t in, out;
	/* dtypes: n_in_dtypes strings from dtypes[in_dtypes] */
	uint32_t n_in_dtypes, n_out_dtypes;
	size_t in_dtypes, out_dtypes;
	const char *thread_id, *thread_name; /* 2.10 */
	/* frames: innermost first, frames[frame_idx[frame0 + k]] */
	uint32_t nframes, frames_dropped;
	size_t frame0;
} fr_entry;

typedef struct frdump_pool frdump_pool;

typedef struct frdump {
	frdump_kind kind;
	const char *version; /* "2.10"; "" when absent */
	int ver_major, ver_minor;
	const char *comm_lib_version; /* nccl_version (2.7-2.9) or comm_lib_version (2.10) */
	int64_t rank;                 /* from the dump, else the file name; -1 when neither */
	bool rank_from_name;
	fr_pg *pgs;
	size_t npgs;
	fr_pg_status *status;
	size_t nstatus;
	fr_entry *entries; /* in record order, oldest first */
	size_t nentries;
	size_t entries_dropped; /* beyond FRDUMP_MAX_ENTRIES */
	int64_t *dims;
	size_t ndims;
	const char **dtypes;
	size_t ndtypes;
	fr_frame *frames; /* distinct frames */
	size_t nframes;
	uint32_t *frame_idx;
	size_t nframe_idx;
	size_t bad_fields; /* fields of the wrong type, left at their default */
	char first_bad[96];
	/* private */
	frdump_pool *pool;
} frdump;

typedef struct frdump_error {
	uint64_t off; /* byte offset in the file */
	char msg[256];
} frdump_error;

/* Tells a dump from its first n bytes (64 are enough for a pickle; JSON is
 * surer with a few KiB): a pickle protocol header and a dict whose first
 * key is an FR key, or a JSON object opening with FR keys. */
frdump_kind frdump_sniff(const unsigned char *buf, size_t n);
/* The rank a file name ends with ("nccl_trace_rank_12" and
 * "dir/rank_3.json" give 12 and 3), or -1. */
int64_t frdump_rank_from_name(const char *path);
/* Reads the dump in buf[0..n); name (may be NULL) gives the rank when the
 * dump has none. On error, -1 is returned, *err says what and at which
 * offset, and d is empty. On success, 0 is returned. Free d either way. */
int frdump_parse(const unsigned char *buf, size_t n, const char *name, frdump *d, frdump_error *err);
/* Reads path (plain, gzip or zstd; at most FRDUMP_MAX_FILE bytes once
 * decompressed) and parses it, as frdump_parse. */
int frdump_load(const char *path, frdump *d, frdump_error *err);
/* Frees what d holds; d is left empty. */
void frdump_free(frdump *d);

/* "scheduled", "started", "completed" or "unknown". */
const char *fr_state_name(fr_state s);
/* The op of a profiling name without its backend: "all_reduce" for
 * "nccl:all_reduce", "send 0->1" for "nccl:send 0->1". */
const char *fr_op_name(const char *profiling_name);
/* Writes an entry's input (out = false) or output sizes as "[[3, 4], [5]]"
 * into buf (cut with "..." when longer); returns buf. */
char *fr_sizes_text(const frdump *d, const fr_entry *e, bool out, char *buf, size_t cap);
/* The number of elements of all input (or output) tensors, saturating. */
int64_t fr_numel(const frdump *d, const fr_entry *e, bool out);

#endif

#include "xids.h"

#include <stddef.h>

static const xid_info table[] = {
#define X(n, mn, meaning, now, then) { n, mn, meaning, now, then },
	XIDS(X)
#undef X
};

const xid_info *xid_lookup(long xid)
{
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
		if (table[i].xid == xid)
			return &table[i];
	return NULL;
}

#define B(e, name, action) name,
static const char *const bucket_names[] = { XID_BUCKETS(B) };
#undef B
#define B(e, name, action) action,
static const char *const bucket_actions[] = { XID_BUCKETS(B) };
#undef B

const char *xid_bucket_name(enum xid_bucket b)
{
	return b < XB_COUNT ? bucket_names[b] : "";
}

const char *xid_bucket_action(enum xid_bucket b)
{
	return b < XB_COUNT ? bucket_actions[b] : "";
}

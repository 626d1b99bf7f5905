/* An ordered pool: items are read on several threads in any order and
 * handed, in order, to the thread that called pool_run, which merges them.
 * Reading runs at most `window` items ahead of the merge, so the per-item
 * results held at once stay few whatever the number of items. */
#ifndef NCCLOG_POOL_H
#define NCCLOG_POOL_H

#include <stdbool.h>
#include <stddef.h>

typedef struct pool_ops {
	/* State of one reading thread (a clone of the rules), made on it. */
	void *(*thread_begin)(void *ctx);
	/* Ends a reading thread's state; called under the pool's lock, so it
	 * may fold the state into something shared. */
	void (*thread_end)(void *ctx, void *state);
	/* Reads item i; on any reading thread. */
	void (*read)(void *ctx, size_t i, void *state);
	/* Takes item i once it is read, in item order, on pool_run's thread. */
	void (*merge)(void *ctx, size_t i);
	/* NULL: pool_run's thread reads too, whenever the item it merges next
	 * is not read yet. Otherwise it reads nothing and calls wait about ten
	 * times a second while it waits; wait returning false stops the pool
	 * (items taken are read to their end, the rest are not read). */
	bool (*wait)(void *ctx);
} pool_ops;

/* Reads and merges items 0..n-1 with `jobs` reading threads (pool_run's
 * own among them when ops->wait is NULL). Returns the number of items
 * merged: n, or fewer when wait stopped the pool; an item at or past that
 * number may or may not have been read. */
size_t pool_run(size_t n, int jobs, size_t window, const pool_ops *ops, void *ctx);

#endif

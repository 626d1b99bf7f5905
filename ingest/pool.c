#include "pool.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "../util/str.h"

#define WAIT_NS 100000000L /* how often ops->wait is called: ten times a second */

/* Readers take items in order and the merging thread merges them in order.
 * Each side wakes the other only when it waits for what was just done:
 * with thousands of small items, a wake-up of everyone at every item was a
 * context switch or two an item. */
typedef struct pool {
	const pool_ops *ops;
	void *ctx;
	bool *done;
	size_t n, next, merged, window;
	size_t wanted; /* the item the merging thread waits for, or SIZE_MAX */
	int idle;      /* readers waiting for the window to move */
	bool stop;
	pthread_mutex_t mu;
	pthread_cond_t merger, readers;
} pool;

/* The next item to read, or SIZE_MAX when the window is full, all are
 * taken or the pool stopped (called with the lock held). */
static size_t pool_take(pool *p)
{
	if (p->stop || p->next >= p->n || p->next >= p->merged + p->window)
		return SIZE_MAX;
	return p->next++;
}

/* Reads item i without the lock and marks it done (called and returning
 * with the lock held). */
static void pool_read(pool *p, size_t i, void *state)
{
	pthread_mutex_unlock(&p->mu);
	p->ops->read(p->ctx, i, state);
	pthread_mutex_lock(&p->mu);
	p->done[i] = true;
	if (p->wanted == i)
		pthread_cond_signal(&p->merger);
}

static void *reader(void *arg)
{
	pool *p = arg;
	void *state = p->ops->thread_begin(p->ctx);
	pthread_mutex_lock(&p->mu);
	for (;;) {
		size_t i;
		while ((i = pool_take(p)) == SIZE_MAX && p->next < p->n && !p->stop) {
			p->idle++;
			pthread_cond_wait(&p->readers, &p->mu);
			p->idle--;
		}
		if (i == SIZE_MAX)
			break;
		pool_read(p, i, state);
	}
	p->ops->thread_end(p->ctx, state);
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

static int64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Waits for item i, with the lock held, until it is read or the pool
 * stops; calls ops->wait (without the lock) at most every WAIT_NS. */
static void pool_await(pool *p, size_t i, void *state, int64_t *last)
{
	while (!p->done[i] && !p->stop) {
		if (!p->ops->wait) {
			size_t mine = pool_take(p);
			if (mine != SIZE_MAX) {
				pool_read(p, mine, state);
				continue;
			}
			p->wanted = i;
			pthread_cond_wait(&p->merger, &p->mu);
			p->wanted = SIZE_MAX;
			continue;
		}
		if (now_ns() - *last < WAIT_NS) {
			struct timespec dl;
			clock_gettime(CLOCK_REALTIME, &dl);
			dl.tv_nsec += WAIT_NS;
			if (dl.tv_nsec >= 1000000000L) {
				dl.tv_sec++;
				dl.tv_nsec -= 1000000000L;
			}
			p->wanted = i;
			pthread_cond_timedwait(&p->merger, &p->mu, &dl);
			p->wanted = SIZE_MAX;
			continue;
		}
		pthread_mutex_unlock(&p->mu);
		bool go_on = p->ops->wait(p->ctx);
		pthread_mutex_lock(&p->mu);
		*last = now_ns();
		if (!go_on) {
			p->stop = true;
			pthread_cond_broadcast(&p->readers);
		}
	}
}

size_t pool_run(size_t n, int jobs, size_t window, const pool_ops *ops, void *ctx)
{
	pool p = { .ops = ops, .ctx = ctx, .n = n, .window = window ? window : 1, .wanted = SIZE_MAX };
	p.done = xcalloc(n ? n : 1, sizeof *p.done);
	pthread_mutex_init(&p.mu, NULL);
	pthread_cond_init(&p.merger, NULL);
	pthread_cond_init(&p.readers, NULL);
	int nreaders = ops->wait ? (jobs > 0 ? jobs : 1) : jobs - 1;
	pthread_t *t = xcalloc(nreaders > 0 ? (size_t)nreaders : 1, sizeof *t);
	for (int k = 0; k < nreaders; k++)
		pthread_create(&t[k], NULL, reader, &p);
	void *own = ops->wait ? NULL : ops->thread_begin(ctx);
	int64_t last = now_ns();
	size_t i = 0;
	pthread_mutex_lock(&p.mu);
	for (; i < n; i++) {
		pool_await(&p, i, own, &last);
		if (p.stop)
			break;
		pthread_mutex_unlock(&p.mu);
		ops->merge(ctx, i);
		pthread_mutex_lock(&p.mu);
		p.merged = i + 1;
		if (p.idle)
			pthread_cond_broadcast(&p.readers);
	}
	pthread_mutex_unlock(&p.mu);
	for (int k = 0; k < nreaders; k++)
		pthread_join(t[k], NULL);
	if (!ops->wait)
		ops->thread_end(ctx, own);
	pthread_mutex_destroy(&p.mu);
	pthread_cond_destroy(&p.merger);
	pthread_cond_destroy(&p.readers);
	free(t);
	free(p.done);
	return i;
}

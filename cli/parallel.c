#include "parallel.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "input.h"

typedef struct slot {
	model m;
	strbuf err;
	int rc;
	bool done;
} slot;

typedef struct pool {
	char *const *paths;
	size_t n, next;
	const model *proto;   /* catalog and inputs to copy */
	ruleset *rs;
	slot *slots;          /* one per input, freed by the merger as it goes */
	size_t window;        /* inputs in flight at most: bounds memory */
	size_t merged;
	pthread_mutex_t mu;
	pthread_cond_t cv;
} pool;

/* Every per-file model lists all inputs, so file indices are global. */
static void model_like(model *m, const model *proto)
{
	model_init(m, proto->cat);
	for (size_t i = 0; i < proto->nin; i++)
		model_add_input(m, proto->in[i].name);
}

static void *worker(void *arg)
{
	pool *p = arg;
	ruleset rs;
	ruleset_clone(&rs, p->rs);
	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (p->next < p->n && p->next >= p->merged + p->window)
			pthread_cond_wait(&p->cv, &p->mu);
		if (p->next >= p->n)
			break;
		size_t i = p->next++;
		pthread_mutex_unlock(&p->mu);
		slot *s = &p->slots[i];
		model_like(&s->m, p->proto);
		s->rc = input_read_into(p->paths[i], (int)i, &s->m, &rs, NULL, &s->err);
		pthread_mutex_lock(&p->mu);
		s->done = true;
		pthread_cond_broadcast(&p->cv);
	}
	pthread_mutex_unlock(&p->mu);
	pthread_mutex_lock(&p->mu);
	if (rs.notes.n)
		sb_add(&p->rs->notes, rs.notes.p, rs.notes.n);
	pthread_mutex_unlock(&p->mu);
	ruleset_free(&rs);
	return NULL;
}

int parallel_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

size_t parallel_read(char *const *paths, size_t n, int jobs, model *m, ruleset *rs, redactor *rd,
		     parallel_error_fn err, void *ctx)
{
	size_t failed = 0, base = m->nin;
	strbuf name = { 0 };
	for (size_t i = 0; i < n; i++) {
		sb_clear(&name);
		input_name(paths[i], rd, &name);
		model_add_input(m, name.p);
	}
	sb_free(&name);
	if (jobs <= 1 || n <= 1 || rd || base) {
		strbuf e = { 0 };
		for (size_t i = 0; i < n; i++) {
			sb_clear(&e);
			if (input_read_into(paths[i], (int)(base + i), m, rs, rd, &e) != 0) {
				err(ctx, e.p);
				failed++;
			}
		}
		sb_free(&e);
		return failed;
	}
	pool p = { .paths = paths, .n = n, .proto = m, .rs = rs, .window = (size_t)jobs * 4 };
	p.slots = xcalloc(n, sizeof *p.slots);
	pthread_mutex_init(&p.mu, NULL);
	pthread_cond_init(&p.cv, NULL);
	pthread_t *t = xcalloc((size_t)jobs, sizeof *t);
	for (int k = 0; k < jobs; k++)
		pthread_create(&t[k], NULL, worker, &p);
	for (size_t i = 0; i < n; i++) {
		pthread_mutex_lock(&p.mu);
		while (!p.slots[i].done)
			pthread_cond_wait(&p.cv, &p.mu);
		pthread_mutex_unlock(&p.mu);
		slot *s = &p.slots[i];
		if (s->rc != 0) {
			err(ctx, s->err.p);
			failed++;
		}
		model_merge(m, &s->m);
		model_free(&s->m);
		sb_free(&s->err);
		pthread_mutex_lock(&p.mu);
		p.merged = i + 1;
		pthread_cond_broadcast(&p.cv);
		pthread_mutex_unlock(&p.mu);
	}
	for (int k = 0; k < jobs; k++)
		pthread_join(t[k], NULL);
	pthread_mutex_destroy(&p.mu);
	pthread_cond_destroy(&p.cv);
	free(t);
	free(p.slots);
	return failed;
}

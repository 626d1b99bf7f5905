/* Reading many inputs at once: a pool of threads parses files into models
 * of their own, which are merged in input order, so the result equals
 * reading the files one after another (-j 1). */
#ifndef NCCLOG_PARALLEL_H
#define NCCLOG_PARALLEL_H

#include "../model/model.h"
#include "../redact/redact.h"
#include "../rules/rules.h"

/* Called in input order for every input that could not be read. */
typedef void (*parallel_error_fn)(void *ctx, const char *message);

/* Registers paths[0..n) as inputs of m and reads them with `jobs` threads
 * (1: in this thread), at most `jobs` files open at a time. Redaction (rd
 * not NULL) reads in this thread. Returns the number of unreadable inputs. */
size_t parallel_read(char *const *paths, size_t n, int jobs, model *m, ruleset *rs, redactor *rd,
		     parallel_error_fn err, void *ctx);
/* A fresh model for one input or part, beside proto: it borrows proto's
 * catalog, input table and hash key (no table copied, no key drawn). */
void parallel_model_like(model *m, const model *proto);
/* A reading thread's own copy of rs, for matching without a lock. */
ruleset *parallel_rules_clone(ruleset *rs);
/* Picks the gate's engine for `bytes` of input, before any clone;
 * NCCLOG_GATE=own or vectorscan picks one whatever the size. */
void parallel_choose_gate(ruleset *rs, uint64_t bytes);
/* Folds a copy's counts back into rs and frees the copy; with only one
 * thread at a time doing so. */
void parallel_rules_fold(ruleset *rs, ruleset *copy);
/* The number of processors online, at least 1. */
int parallel_cpus(void);

#endif

/* What every command needs before it reads a log: the rules directory,
 * the finding catalog and the compiled rules. */
#ifndef NCCLOG_SETUP_H
#define NCCLOG_SETUP_H

#include "../rules/catalog.h"
#include "../rules/rules.h"

typedef struct setup {
	char *rules_dir;
	catalog cat;
	ruleset rs;
} setup;

/* Finds the shipped rules: $NCCLOG_RULES_DIR, then next to the executable
 * (installed layout, then the build tree), then the configured paths.
 * Returns a new string or NULL. */
char *setup_rules_dir(void);
/* Loads the catalog only (explain). On error, -1 is returned and *err says why. */
int setup_catalog(setup *s, strbuf *err);
/* The user's rule directory, $XDG_CONFIG_HOME/ncclog/rules.d (default
 * ~/.config), as a new string; NULL when it does not exist. */
char *setup_user_rules_dir(void);
/* Loads catalog, shipped rules, user rules and extra rule files/dirs, in
 * that order; builds the gate. */
int setup_load(setup *s, char **extra, size_t nextra, strbuf *err);
void setup_free(setup *s);

#endif

#include "setup.h"


#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../model/model.h"

#ifndef NCCLOG_RULES_INSTALL_DIR
#define NCCLOG_RULES_INSTALL_DIR "/usr/local/share/ncclog/rules"
#endif
#ifndef NCCLOG_RULES_SOURCE_DIR
#define NCCLOG_RULES_SOURCE_DIR "rules"
#endif

static bool has_catalog(const char *dir)
{
	char p[PATH_MAX + 256];
	struct stat st;
	snprintf(p, sizeof p, "%s/catalog.json", dir);
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

char *setup_rules_dir(void)
{
	const char *env = getenv("NCCLOG_RULES_DIR");
	if (env && *env)
		return xstrdup(env);
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			const char *rel[] = { "/../share/ncclog/rules", "/rules" };
			for (size_t i = 0; i < 2; i++) {
				char cand[PATH_MAX + 64];
				snprintf(cand, sizeof cand, "%s%s", exe, rel[i]);
				/* "/usr/bin/../share" reads badly in rule locations */
				char *real = has_catalog(cand) ? realpath(cand, NULL) : NULL;
				if (real)
					return real;
			}
		}
	}
	if (has_catalog(NCCLOG_RULES_INSTALL_DIR))
		return xstrdup(NCCLOG_RULES_INSTALL_DIR);
	if (has_catalog(NCCLOG_RULES_SOURCE_DIR))
		return xstrdup(NCCLOG_RULES_SOURCE_DIR);
	return NULL;
}

int setup_catalog(setup *s, strbuf *err)
{
	*s = (setup){ 0 };
	s->rules_dir = setup_rules_dir();
	if (!s->rules_dir) {
		sb_adds(err, "cannot find the rules directory (set NCCLOG_RULES_DIR)");
		return -1;
	}
	strbuf p = { 0 };
	sb_printf(&p, "%s/catalog.json", s->rules_dir);
	int rc = catalog_load(&s->cat, p.p, err);
	sb_free(&p);
	return rc;
}

char *setup_user_rules_dir(void)
{
	const char *xdg = getenv("XDG_CONFIG_HOME");
	const char *home = getenv("HOME");
	strbuf p = { 0 };
	/* the XDG spec: a relative XDG_CONFIG_HOME is invalid and ignored */
	if (xdg && xdg[0] == '/')
		sb_printf(&p, "%s/ncclog/rules.d", xdg);
	else if (home && *home)
		sb_printf(&p, "%s/.config/ncclog/rules.d", home);
	else
		return NULL;
	struct stat st;
	if (stat(p.p, &st) != 0 || !S_ISDIR(st.st_mode)) {
		sb_free(&p);
		return NULL;
	}
	return sb_take(&p);
}

int setup_load(setup *s, char **extra, size_t nextra, strbuf *err)
{
	if (setup_catalog(s, err) != 0)
		return -1;
	ruleset_init(&s->rs, &s->cat, model_tag_names);
	if (ruleset_load(&s->rs, s->rules_dir, err) != 0)
		return -1;
	/* the site's own rules come after the shipped ones, before --rules */
	char *user = setup_user_rules_dir();
	int rc = user ? ruleset_load(&s->rs, user, err) : 0;
	free(user);
	if (rc != 0)
		return -1;
	for (size_t i = 0; i < nextra; i++)
		if (ruleset_load(&s->rs, extra[i], err) != 0)
			return -1;
	ruleset_finish(&s->rs);
	/* the line memo changes no report: with it off, a report that looks
	 * wrong can show that it does */
	const char *lm = getenv("NCCLOG_LINEMEMO");
	if (lm && strcmp(lm, "off") == 0)
		ruleset_forget_lines(&s->rs);
	return 0;
}

void setup_free(setup *s)
{
	ruleset_free(&s->rs);
	catalog_free(&s->cat);
	free(s->rules_dir);
	*s = (setup){ 0 };
}

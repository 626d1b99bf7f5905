/* Paths that name people and sites: a home directory (/home/NAME,
 * /Users/NAME, ~NAME) gives its user away, a shared file system
 * (/scratch, /lustre, /gpfs, /fsx, ...) its site, project and user
 * directories. Those components get pseudonyms; generic ones (users,
 * projects, scratch) and the software tree below (miniconda3, lib,
 * site-packages) stay, so tracebacks still read. */
#include <string.h>
#include <strings.h>

#include "scan.h"

/* Roots whose first personal component is a user name. */
static const char *const home_roots[] = { "home", "homes", "Users", "u", NULL };
/* Roots of shared and scratch file systems. */
static const char *const site_roots[] = {
	"scratch", "pscratch", "gscratch", "netscratch", "lustre", "gpfs", "fsx", "global", "work", "p", "nfs", "beegfs",
	"weka", "vast", "shared", "projects", "project", "storage", "data", "mnt", "ptmp", "dss", "hpc", "lus", "cephfs",
	"proj", "groups", "group", NULL,
};
/* Between a home root and the user: groups ("/home/users/alice",
 * "/home1/01234/alice", "/global/homes/a/alice"). */
static const char *const home_groups[] = { "users", "homes", "home", "people", "staff", "students", NULL };
/* Components that name no one. */
static const char *const generic[] = {
	"users", "user", "home", "homes", "scratch", "projects", "project", "proj", "shared", "share", "data", "datasets",
	"dataset", "work", "group", "groups", "common", "public", "apps", "software", "sw", "tmp", "temp", "logs", "log",
	"checkpoints", "checkpoint", "ckpt", "ckpts", "outputs", "output", "runs", "run", "models", "model", "code",
	"repos", "repo", "git", "workspace", "workspaces", "jobs", "job", "experiments", "results", "cache", "nobackup",
	"archive", "backup", "world-shared", NULL,
};
/* Where a software tree starts: what follows is no one's name. */
static const char *const markers[] = {
	"lib", "lib64", "lib32", "bin", "sbin", "include", "etc", "site-packages", "dist-packages", "envs", "pkgs",
	"conda", "miniconda", "miniconda3", "anaconda", "anaconda3", "miniforge", "miniforge3", "mambaforge",
	"micromamba", ".conda", ".local", ".cache", ".venv", "venv", ".pyenv", "node_modules", ".triton", ".nv", ".config",
	NULL,
};

static bool in(slice w, const char *const *list)
{
	return scan_word_in(w, list);
}

/* "scratch1", "home2", "lustre": a root with a number after it. */
static bool root_in(slice w, const char *const *list)
{
	while (w.n > 1 && scan_digit(w.p[w.n - 1]))
		w.n--;
	return in(w, list);
}

static bool ends_path(char c)
{
	return c == '/' || c == ' ' || c == '\t' || strchr(":'\"`\\),;]}><|=", c) != NULL;
}

static size_t comp_end(slice s, size_t i)
{
	while (i < s.n && !ends_path(s.p[i]) && s.p[i] != '\0')
		i++;
	return i;
}

static void put(scanner *sc, size_t at, size_t end, enum pseudo_kind kind)
{
	scan_put(sc, at, end, pseudo_name(sc->r->ps, kind, (slice){ sc->s.p + at, end - at }, true));
}

/* A component that is a user's name: learned from a home directory. */
static bool known_user(const scanner *sc, size_t at, size_t end)
{
	return pseudo_find(sc->r->ps, PSEUDO_USER, (slice){ sc->s.p + at, end - at }) != NULL;
}

/* s[c..e) is one letter and the next component starts with it. */
static bool initial_dir(slice s, size_t c, size_t e)
{
	if (e != c + 1 || !scan_alpha(s.p[c]) || e + 1 >= s.n || s.p[e] != '/')
		return false;
	size_t ne = comp_end(s, e + 1);
	return ne > e + 2 && (s.p[e + 1] | 32) == (s.p[c] | 32);
}

size_t paths_at(scanner *sc, size_t i)
{
	slice s = sc->s;
	char prev = i ? s.p[i - 1] : ' ';
	if (scan_word(prev) || prev == '.' || prev == '~')
		return 0;
	if (s.p[i] == '~') {
		/* ~NAME: a user's home */
		size_t e = i + 1;
		while (e < s.n && scan_word(s.p[e]))
			e++;
		if (e == i + 1 || (e < s.n && !ends_path(s.p[e])) || !scan_alpha(s.p[i + 1]))
			return 0;
		put(sc, i + 1, e, PSEUDO_USER);
		return e;
	}
	/* the root may sit below a component or two: /local/home, /export/home */
	size_t r = i + 1, re = 0;
	bool home = false, site = false;
	for (int depth = 0; depth < 3 && !home && !site; depth++) {
		re = comp_end(s, r);
		if (re == r || re >= s.n || s.p[re] != '/')
			return 0;
		slice root = { s.p + r, re - r };
		home = root_in(root, home_roots);
		site = !home && depth == 0 && root_in(root, site_roots);
		r = re + 1;
	}
	if (!home && !site)
		return 0;
	size_t c = re + 1, done = re;
	bool home_user = false;
	while (c < s.n) {
		size_t e = comp_end(s, c);
		if (e == c)
			break;
		slice w = { s.p + c, e - c };
		bool last = e >= s.n || s.p[e] != '/';
		if (in(w, markers) || (w.n > 6 && strncasecmp(w.p, "python", 6) == 0) || home_user)
			break;
		if (last && memchr(w.p, '.', w.n) && c > re + 1)
			break; /* a file below the personal directories: its name stays */
		if (initial_dir(s, c, e)) {
			/* "/home/mila/a/alice", "/global/homes/a/alice": a directory
			 * per initial, then the user, whose pseudonym starts with u */
			scan_put(sc, c, e, "u");
			size_t ue = comp_end(s, e + 1);
			put(sc, e + 1, ue, PSEUDO_USER);
			return ue;
		}
		if (home) {
			if (!in(w, home_groups) && !scan_digit(w.p[0])) {
				put(sc, c, e, PSEUDO_USER);
				home_user = true;
				done = e;
				c = e + 1;
				if (last || !initial_dir(s, c, comp_end(s, c)))
					return e;
				continue;
			}
			if (scan_digit(w.p[0]))
				put(sc, c, e, PSEUDO_DIR); /* a group's number */
		} else if (known_user(sc, c, e)) {
			put(sc, c, e, PSEUDO_USER);
			return e;
		} else if (!in(w, generic)) {
			put(sc, c, e, PSEUDO_DIR);
		}
		done = e;
		if (last)
			break;
		c = e + 1;
	}
	return done > re ? done : 0;
}

/*
 * sandbox-cgroup.c: memory and pids limits of a job through a cgroup.
 *
 * cgroup v2 when memory and pids are available to the runner's own cgroup
 * (delegated by systemd, or as root); otherwise the v1 memory and pids
 * hierarchies (as on hybrid machines). The job's cgroup is created under
 * the runner's own, holds the limits, tells us when the OOM killer struck
 * and how high memory went, kills every task when asked, and is removed.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "airlox.h"
#include "sandbox-priv.h"

static int
cg_write(const char *dir, const char *file, const char *val)
{
	char	path[PATH_MAX + 64];
	int	fd, r = 0;
	size_t	len = strlen(val);

	snprintf(path, sizeof path, "%s/%s", dir, file);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) == -1)
		return -errno;
	if (write(fd, val, len) != (ssize_t)len)
		r = -errno;
	close(fd);
	return r;
}

static int
cg_read(const char *dir, const char *file, char *buf, size_t len)
{
	char	path[PATH_MAX + 64];
	int	fd;
	ssize_t	n;

	snprintf(path, sizeof path, "%s/%s", dir, file);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

/* "key N" in a flat keyed file; -1 when absent. */
static int64_t
cg_key(const char *dir, const char *file, const char *key)
{
	char		 buf[4096], *p;
	size_t		 kl = strlen(key);
	long long	 v;

	if (cg_read(dir, file, buf, sizeof buf) != 0)
		return -1;
	for (p = buf; p != NULL && *p != '\0'; p = strchr(p, '\n')) {
		if (*p == '\n')
			p++;
		if (strncmp(p, key, kl) == 0 && p[kl] == ' ' &&
		    sscanf(p + kl + 1, "%lld", &v) == 1)
			return v;
	}
	return -1;
}

/*
 * The mount point of a hierarchy: fstype "cgroup2", or "cgroup" with
 * `ctrl` among its super options. The mount's root is written to root.
 */
static int
cg_mount(const char *ctrl, char *mnt, size_t mlen, char *root, size_t rlen)
{
	FILE	*f;
	char	 line[4096], r[PATH_MAX], m[PATH_MAX], *dash, fs[64], so[1024];
	char	*tok, *save;
	int	 found = 0;

	if ((f = fopen("/proc/self/mountinfo", "re")) == NULL)
		return -errno;
	while (!found && fgets(line, sizeof line, f) != NULL) {
		if (sscanf(line, "%*s %*s %*s %4095s %4095s", r, m) != 2 ||
		    (dash = strstr(line, " - ")) == NULL ||
		    sscanf(dash + 3, "%63s %*s %1023s", fs, so) != 2)
			continue;
		if (ctrl == NULL) {
			found = strcmp(fs, "cgroup2") == 0;
		} else if (strcmp(fs, "cgroup") == 0) {
			for (tok = strtok_r(so, ",", &save); tok != NULL;
			    tok = strtok_r(NULL, ",", &save))
				if (strcmp(tok, ctrl) == 0)
					found = 1;
		}
		if (found) {
			snprintf(mnt, mlen, "%s", m);
			snprintf(root, rlen, "%s", r);
		}
	}
	fclose(f);
	return found ? 0 : ALX_ERR_NOT_FOUND;
}

/* Our own cgroup in a hierarchy, from /proc/self/cgroup. */
static int
cg_self(const char *ctrl, char *path, size_t len)
{
	FILE	*f;
	char	 line[4096], *c, *p, *tok, *save;
	int	 found = 0;

	if ((f = fopen("/proc/self/cgroup", "re")) == NULL)
		return -errno;
	while (!found && fgets(line, sizeof line, f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if ((c = strchr(line, ':')) == NULL ||
		    (p = strchr(c + 1, ':')) == NULL)
			continue;
		*p++ = '\0';
		c++;
		if (ctrl == NULL)
			found = strcmp(line, "0") == 0 && *c == '\0';
		else
			for (tok = strtok_r(c, ",", &save); tok != NULL;
			    tok = strtok_r(NULL, ",", &save))
				if (strcmp(tok, ctrl) == 0)
					found = 1;
		if (found)
			snprintf(path, len, "%s", p);
	}
	fclose(f);
	return found ? 0 : ALX_ERR_NOT_FOUND;
}

/* The directory of our cgroup in a hierarchy (ctrl NULL: v2). */
static int
cg_base(const char *ctrl, char *dir, size_t len)
{
	char	mnt[PATH_MAX], root[PATH_MAX], self[PATH_MAX];
	size_t	rl;
	int	r;

	if ((r = cg_mount(ctrl, mnt, sizeof mnt, root, sizeof root)) != 0 ||
	    (r = cg_self(ctrl, self, sizeof self)) != 0)
		return r;
	rl = strlen(root);
	if (strcmp(root, "/") != 0 && strncmp(self, root, rl) == 0)
		memmove(self, self + rl, strlen(self + rl) + 1);
	if (strcmp(self, "/") == 0)
		self[0] = '\0';
	if ((size_t)snprintf(dir, len, "%s%s", mnt, self) >= len)
		return ALX_ERR_TOO_LARGE;
	return 0;
}

static int
cg_has_word(const char *list, const char *w)
{
	const char	*p = list;
	size_t		 wl = strlen(w);

	while ((p = strstr(p, w)) != NULL) {
		if ((p == list || p[-1] == ' ') &&
		    (p[wl] == ' ' || p[wl] == '\n' || p[wl] == '\0'))
			return 1;
		p += wl;
	}
	return 0;
}

/* v2: memory and pids usable for children of our cgroup. */
static int
cg_v2_ready(char *base, size_t len)
{
	char	buf[512], leaf[PATH_MAX + 32], pid[32];

	if (cg_base(NULL, base, len) != 0 ||
	    cg_read(base, "cgroup.controllers", buf, sizeof buf) != 0 ||
	    !cg_has_word(buf, "memory") || !cg_has_word(buf, "pids"))
		return 0;
	if (cg_read(base, "cgroup.subtree_control", buf, sizeof buf) == 0 &&
	    cg_has_word(buf, "memory") && cg_has_word(buf, "pids"))
		return 1;
	if (cg_write(base, "cgroup.subtree_control", "+memory +pids") == 0)
		return 1;
	/* No internal processes: move the runner into a leaf first. */
	snprintf(leaf, sizeof leaf, "%s/airlox-runner", base);
	snprintf(pid, sizeof pid, "%ld", (long)getpid());
	if ((mkdir(leaf, 0755) == -1 && errno != EEXIST) ||
	    cg_write(leaf, "cgroup.procs", pid) != 0)
		return 0;
	return cg_write(base, "cgroup.subtree_control", "+memory +pids") == 0;
}

static int
cg_mkjob(char *dir, size_t len, const char *base, const char *name)
{
	if ((size_t)snprintf(dir, len, "%s/%s", base, name) >= len)
		return ALX_ERR_TOO_LARGE;
	if (mkdir(dir, 0755) == -1) {
		dir[0] = '\0';
		return -errno;
	}
	return 0;
}

static int
cg_create_v2(struct sandbox_cgroup *cg, const char *name,
    const struct sandbox_limits *l)
{
	char	base[PATH_MAX], v[32];

	if (!cg_v2_ready(base, sizeof base) ||
	    cg_mkjob(cg->v2, sizeof cg->v2, base, name) != 0)
		return ALX_ERR_NOT_FOUND;
	cg->version = 2;
	snprintf(v, sizeof v, "%llu", (unsigned long long)l->mem_bytes);
	cg->mem = cg_write(cg->v2, "memory.max", v) == 0;
	(void)cg_write(cg->v2, "memory.swap.max", "0");
	(void)cg_write(cg->v2, "memory.oom.group", "1");
	snprintf(v, sizeof v, "%u", l->pids);
	cg->pids = cg_write(cg->v2, "pids.max", v) == 0;
	return 0;
}

static void
cg_create_v1(struct sandbox_cgroup *cg, const char *name,
    const struct sandbox_limits *l)
{
	char	base[PATH_MAX] = "", v[32];
	int	r;

	if (cg_base("memory", base, sizeof base) == 0 &&
	    (r = cg_mkjob(cg->v1mem, sizeof cg->v1mem, base, name)) == 0) {
		snprintf(v, sizeof v, "%llu", (unsigned long long)l->mem_bytes);
		cg->mem = cg_write(cg->v1mem, "memory.limit_in_bytes", v) == 0;
		/* Swap too, where accounted (after the memory limit). */
		(void)cg_write(cg->v1mem, "memory.memsw.limit_in_bytes", v);
		(void)cg_write(cg->v1mem, "memory.swappiness", "0");
	} else if (cg->why[0] == '\0')
		snprintf(cg->why, sizeof cg->why, "memory cgroup: %s",
		    base[0] == '\0' ? "no hierarchy" : strerror(errno));
	base[0] = '\0';
	if (cg_base("pids", base, sizeof base) == 0 &&
	    cg_mkjob(cg->v1pids, sizeof cg->v1pids, base, name) == 0) {
		snprintf(v, sizeof v, "%u", l->pids);
		cg->pids = cg_write(cg->v1pids, "pids.max", v) == 0;
	} else
		snprintf(cg->why_pids, sizeof cg->why_pids, "pids cgroup: %s",
		    base[0] == '\0' ? "no hierarchy" : strerror(errno));
	if (cg->v1mem[0] != '\0' || cg->v1pids[0] != '\0')
		cg->version = 1;
}

int
sandbox_cgroup_create(struct sandbox_cgroup *cg, const char *name,
    const struct sandbox_limits *l)
{
	memset(cg, 0, sizeof *cg);
	if (cg_create_v2(cg, name, l) == 0)
		return 0;
	cg_create_v1(cg, name, l);
	if (cg->version == 0 && cg->why[0] == '\0')
		snprintf(cg->why, sizeof cg->why, "no usable cgroup");
	if (cg->version == 0 && cg->why_pids[0] == '\0')
		snprintf(cg->why_pids, sizeof cg->why_pids, "no usable cgroup");
	return 0;
}

int
sandbox_cgroup_attach(struct sandbox_cgroup *cg, pid_t pid)
{
	char	v[32];
	int	r = 0;

	snprintf(v, sizeof v, "%ld", (long)pid);
	if (cg->version == 2)
		return cg_write(cg->v2, "cgroup.procs", v);
	if (cg->v1mem[0] != '\0')
		r = cg_write(cg->v1mem, "cgroup.procs", v);
	if (r == 0 && cg->v1pids[0] != '\0')
		r = cg_write(cg->v1pids, "cgroup.procs", v);
	return r;
}

/* 1 when the OOM killer killed a task of the job. */
int
sandbox_cgroup_oom(struct sandbox_cgroup *cg)
{
	if (cg->version == 2)
		return cg_key(cg->v2, "memory.events", "oom_kill") > 0;
	if (cg->v1mem[0] != '\0')
		return cg_key(cg->v1mem, "memory.oom_control", "oom_kill") > 0 ||
		    cg_key(cg->v1mem, "memory.oom_control", "under_oom") > 0;
	return 0;
}

int
sandbox_cgroup_peak(struct sandbox_cgroup *cg, uint64_t *peak)
{
	char			 buf[64];
	unsigned long long	 v;
	int			 r = ALX_ERR_NOT_FOUND;

	if (cg->version == 2)
		r = cg_read(cg->v2, "memory.peak", buf, sizeof buf);
	else if (cg->v1mem[0] != '\0')
		r = cg_read(cg->v1mem, "memory.max_usage_in_bytes", buf,
		    sizeof buf);
	if (r != 0 || sscanf(buf, "%llu", &v) != 1)
		return ALX_ERR_NOT_FOUND;
	*peak = v;
	return 0;
}

/* SIGKILL every task in the job's cgroup, a few rounds (forks race). */
void
sandbox_cgroup_killall(struct sandbox_cgroup *cg)
{
	const char	*dir;
	char		 buf[8192], *p, *end;
	long		 pid;
	int		 round, any;

	if (cg->version == 2 && cg_write(cg->v2, "cgroup.kill", "1") == 0)
		return;
	dir = cg->version == 2 ? cg->v2 : cg->v1pids[0] != '\0' ?
	    cg->v1pids : cg->v1mem;
	if (cg->version == 0 || dir[0] == '\0')
		return;
	for (round = 0; round < 50; round++) {
		if (cg_read(dir, "cgroup.procs", buf, sizeof buf) != 0)
			return;
		any = 0;
		for (p = buf; *p != '\0'; p = end) {
			pid = strtol(p, &end, 10);
			if (end == p)
				break;
			if (pid > 1) {
				kill((pid_t)pid, SIGKILL);
				any = 1;
			}
		}
		if (!any)
			return;
	}
}

static void
cg_rmdir(char *dir)
{
	struct timespec	ts = { 0, 10 * 1000 * 1000 };
	int		i;

	if (dir[0] == '\0')
		return;
	for (i = 0; i < 100; i++) {
		if (rmdir(dir) == 0 || errno == ENOENT)
			break;
		nanosleep(&ts, NULL);
	}
	dir[0] = '\0';
}

void
sandbox_cgroup_destroy(struct sandbox_cgroup *cg)
{
	sandbox_cgroup_killall(cg);
	cg_rmdir(cg->v2);
	cg_rmdir(cg->v1mem);
	cg_rmdir(cg->v1pids);
}

void
sandbox_cgroup_describe(struct sandbox_cgroup *cg,
    const struct sandbox_limits *l, char *buf, size_t len)
{
	const char	*how = cg->version == 2 ? "cgroup v2" : "cgroup v1";

	if (cg->mem)
		sandbox_enf_add(buf, len, "memory: %s, %llu MiB, swap included, "
		    "OOM ends the job", how,
		    (unsigned long long)(l->mem_bytes >> 20));
	else
		sandbox_enf_add(buf, len, "memory: NOT enforced as a whole "
		    "(%s); RLIMIT_AS %llu MiB per process",
		    cg->why[0] != '\0' ? cg->why : "no memory controller",
		    (unsigned long long)(l->mem_bytes >> 20));
	if (cg->pids)
		sandbox_enf_add(buf, len, "pids: %s, %u tasks", how, l->pids);
	else
		sandbox_enf_add(buf, len, "pids: NOT enforced by a cgroup (%s)",
		    cg->why_pids[0] != '\0' ? cg->why_pids :
		    "no pids controller");
}

/* Try a throw-away cgroup to learn what this machine enforces. */
int
sandbox_cgroup_probe(const struct sandbox_limits *l, char *buf, size_t len)
{
	struct sandbox_cgroup	cg;
	char			name[64];

	snprintf(name, sizeof name, "airlox-probe-%ld", (long)getpid());
	sandbox_cgroup_create(&cg, name, l);
	sandbox_cgroup_describe(&cg, l, buf, len);
	sandbox_cgroup_destroy(&cg);
	return cg.mem && cg.pids ? 0 : 1;
}

/*
 * The oom and finish steps of the backends whose job runs in a cgroup of
 * ours (local and process): OOM as the cgroup saw it; at the end, that
 * verdict, the peak memory, and the cgroup removed.
 */
int
sandbox_cgroup_job_oom(struct sandbox_job *job)
{
	return sandbox_cgroup_oom(&job->cg);
}

void
sandbox_cgroup_job_finish(struct sandbox_job *job, struct sandbox_result *res)
{
	if (sandbox_cgroup_oom(&job->cg) && job->reason == -1)
		job->reason = ALX_JOB_KILLED_OOM;
	if (job->reason == ALX_JOB_KILLED_OOM)
		res->status = ALX_JOB_KILLED_OOM;
	if (sandbox_cgroup_peak(&job->cg, &res->peak_mem) == 0)
		res->peak_mem_known = 1;
	sandbox_cgroup_destroy(&job->cg);
}

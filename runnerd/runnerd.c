/*
 * runnerd.c: airlox-runnerd, a long-lived service that runs the jobs of
 * one execute session on the machine of the session's owner.
 *
 * main() is a checklist: options, log, state dir, invite, work root guard,
 * sandbox check, join the session, announce, notify, loop, drain.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef HAVE_SYSTEMD
#include <systemd/sd-daemon.h>
#endif

#include "log.h"
#include "runopt.h"
#include "runnerd.h"
#include "sandbox.h"
#include "runner-loop.h"
#include "runner-egress.h"

static void
runner_signal(int sig)
{
	(void)sig;
	runner_stop = 1;
}

static void
runner_signals(void)
{
	struct sigaction	sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = runner_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
}

static void
runner_notify(const char *what)
{
#ifdef HAVE_SYSTEMD
	sd_notify(0, what);
#else
	(void)what;
#endif
}

/* Read a file of at most max bytes, without a trailing newline. */
static char *
runner_read_small(const char *path, size_t max)
{
	char	*buf;
	ssize_t	 n;
	int	 fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) == -1)
		return NULL;
	if ((buf = malloc(max + 1)) == NULL) {
		close(fd);
		return NULL;
	}
	n = read(fd, buf, max);
	close(fd);
	if (n <= 0) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	return buf;
}

static int
runner_write_secret(const char *path, const char *text)
{
	int	fd;
	size_t	len = strlen(text);

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
	    0600);
	if (fd == -1)
		return ALX_ERR_IO;
	if (write(fd, text, len) != (ssize_t)len || write(fd, "\n", 1) != 1 ||
	    fsync(fd) != 0) {
		close(fd);
		return ALX_ERR_IO;
	}
	return close(fd) == 0 ? ALX_OK : ALX_ERR_IO;
}

/* The session's state is gone with it: one line says what was dropped. */
static void
runner_state_ended(struct runner *rn, const char *sidtxt)
{
	char	path[PATH_MAX];
	int	nkept = 0;

	if (runner_state_drop(rn->statedir, &nkept) != ALX_OK)
		log_warnx("state dir %s: cannot remove the state of session %s",
		    rn->statedir, sidtxt);
	else
		log_info("state dir %s: the state of session %s removed, its "
		    "%d kept result(s) dropped", rn->statedir, sidtxt, nkept);
	/* Started again without an invite, the runner says so and stops. */
	runner_pathf(path, sizeof(path), "%s/ended", rn->statedir);
	(void)runner_write_secret(path, sidtxt);
}

/*
 * The relay client (session/) prints nothing: what it explains of a
 * failure goes into the log with the runner's own words, its notices as
 * warnings.
 */
static const char *
runner_cause(int err)
{
	static char		 buf[2 * ALXS_CAUSE_MAX];
	const struct alxs_error	*e = alxs_error();
	const char		*net = alxs_http_net_cause(err);

	if (err == 0 || e->err != err || e->cause[0] == '\0')
		snprintf(buf, sizeof(buf), "%s%s", net ? ": " : "",
		    net ? net : "");
	else
		snprintf(buf, sizeof(buf), ": %s%s%s%s", e->cause,
		    net ? " (" : "", net ? net : "", net ? ")" : "");
	return buf;
}

static void
runner_notice(const char *msg, void *arg)
{
	(void)arg;
	log_warnx("runner: %s", msg);
}

static void
runner_debug(const char *msg, void *arg)
{
	(void)arg;
	log_debug("%s", msg);
}

/*
 * Is the session of invite over? 1: the relay says gone (404, 410); 0: it
 * is there; -1: no answer (*why says why).
 */
static int
runner_session_gone(struct runner *rn, const struct alx_invite *inv,
    char *why, size_t wlen)
{
	struct alxs_http	 hc;
	struct alxs_resp	 resp;
	char			 base[600], path[128], sid[ALX_FP_STRLEN + 1];
	char			*cause = NULL;
	int			 r;

	snprintf(why, wlen, "no answer");
	if (alx_invite_base_url(inv, base, sizeof(base)) != 0 ||
	    alxs_http_open(&hc, base, &rn->conf, &cause) != 0) {
		snprintf(why, wlen, "%s", cause != NULL ? cause : "bad relay");
		free(cause);
		return -1;
	}
	alx_b64_encode(sid, inv->sid, ALX_SID_LEN);
	snprintf(path, sizeof(path), "/v1/sessions/%s/manifest", sid);
	r = alxs_http_request(&hc, "GET", path, NULL, 0, NULL, 0, 1 << 20,
	    &resp);
	if (r != 0)
		snprintf(why, wlen, "%s", alx_errname(r));
	alxs_http_resp_free(&resp);
	alxs_http_close(&hc);
	if (r == ALX_ERR_NOT_FOUND || r == ALX_ERR_SESSION_EXPIRED)
		return 1;
	return r == 0 ? 0 : -1;
}

/*
 * A state dir belongs to one session: a new invite of another session
 * takes it only when that session is over (its state is then dropped);
 * while it lives, this runner is refused, naming the option.
 */
static void
runner_state_claim(struct runner *rn, const char *path, const char *inv)
{
	struct alx_invite	 old, now;
	char			*kept, why[300], osid[ALX_FP_STRLEN + 1];
	int			 gone;

	if ((kept = runner_read_small(path, 1024)) == NULL)
		return;
	if (alx_invite_parse(&old, kept) != 0 ||
	    alx_invite_parse(&now, inv) != 0 ||
	    memcmp(old.sid, now.sid, ALX_SID_LEN) == 0) {
		alx_wipe_str(kept);
		alx_invite_wipe(&old);
		alx_invite_wipe(&now);
		return;
	}
	alx_wipe_str(kept);
	alx_b64_encode(osid, old.sid, ALX_SID_LEN);
	gone = runner_session_gone(rn, &old, why, sizeof(why));
	alx_invite_wipe(&old);
	alx_invite_wipe(&now);
	if (gone == 1) {
		runner_state_ended(rn, osid);
		return;
	}
	fatalx("state dir %s belongs to session %s, %s%s%s: a state dir serves "
	    "one session; give this runner its own --state-dir (or another "
	    "--name, whose default state dir is its own)", rn->statedir, osid,
	    gone == 0 ? "which is still live" : "and whether it ended cannot "
	    "be told now (", gone == 0 ? "" : why, gone == 0 ? "" : ")");
}

/*
 * A runner joins with its session's runner invite only: another role's is
 * refused before it joins the session or is kept in the state dir. (An
 * invite that does not parse is left to the join, which names the fault.)
 */
static void
runner_invite_role(const char *inv)
{
	struct alx_invite	ti;
	int			role = ALX_ROLE_RUNNER;

	if (alx_invite_parse(&ti, inv) == 0)
		role = ti.role;
	alx_invite_wipe(&ti);
	if (role != ALX_ROLE_RUNNER)
		fatalx("the invite is the session's %s invite: a runner joins "
		    "with its runner invite (session create --mode execute "
		    "prints one; machine add hands it over by code)",
		    alx_role_name(role));
}

/* The invite: given now, or kept in the state dir from before. */
static char *
runner_invite(struct runner_cfg *cfg, struct runner *rn)
{
	char	 path[PATH_MAX], *inv = NULL;
	int	 gone, r;

	runner_pathf(path, sizeof(path), "%s/invite", rn->statedir);
	if (cfg->invite != NULL)
		inv = strdup(cfg->invite);
	else if (cfg->invite_file != NULL &&
	    (inv = runner_read_small(cfg->invite_file, 1024)) == NULL)
		fatalx("cannot read the invite from %s", cfg->invite_file);
	else if (cfg->code != NULL) {
		rn->conf.relay = cfg->relay;
		if ((r = alxs_code_receive(&rn->conf, cfg->code,
		    ALXS_CODE_ANSWER_S,
		    &inv, &gone)) != 0 || inv == NULL)
			fatalx("the transfer code did not give an invite%s%s",
			    gone ? ": its creator did not answer (airlox "
			    "session code is no longer running there)" : "",
			    runner_cause(r));
	}
	if (inv != NULL) {
		runner_invite_role(inv);
		runner_state_claim(rn, path, inv);
		if (runner_write_secret(path, inv) != ALX_OK)
			fatalx("cannot keep the invite in %s", path);
		return inv;
	}
	if ((inv = runner_read_small(path, 1024)) == NULL) {
		runner_pathf(path, sizeof(path), "%s/ended", rn->statedir);
		if ((inv = runner_read_small(path, 128)) != NULL) {
			log_warnx("runner: session %s of this state dir ended: "
			    "nothing to run; stopping (join another with "
			    "--code or an invite)", inv);
			free(inv);
			exit(0);
		}
		fatalx("no invite: give --invite-file, --code or AIRLOX_INVITE");
	}
	return inv;
}

/* The static job init: beside this program (a build tree) or installed. */
static const char *
runner_shim(void)
{
	static char	path[PATH_MAX];
	char		self[PATH_MAX];
	ssize_t		n;

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		runner_pathf(path, sizeof(path), "%s/airlox-shim", dirname(self));
		if (access(path, X_OK) == 0)
			return path;
	}
	return NULL;	/* the installed one (SANDBOX_SHIM_PATH) */
}

static int
runner_labels(struct runner *rn, const char *labels)
{
	char	*buf, *tok, *save = NULL, *p;

	if (labels == NULL)
		return ALX_OK;
	if ((buf = strdup(labels)) == NULL)
		return ALX_ERR_NOMEM;
	for (p = buf; (tok = strtok_r(p, ",", &save)) != NULL; p = NULL) {
		if (!alx_name_valid(tok) || rn->me.nlabels >= ALX_MAX_LABELS) {
			free(buf);
			return ALX_ERR_BAD_NAME;
		}
		rn->me.labels = reallocarray(rn->me.labels, rn->me.nlabels + 1,
		    sizeof(char *));
		if (rn->me.labels == NULL ||
		    (rn->me.labels[rn->me.nlabels++] = strdup(tok)) == NULL)
			fatalx("out of memory");
	}
	free(buf);
	return ALX_OK;
}

/*
 * The variables jobs get from the runner's environment: a short default
 * list and the operator's additions; a credential name among those is
 * never passed (the sandbox drops it), and said here.
 */
static void
runner_env_list(struct runner *rn, const char *extra)
{
	static const char *const base[] = { "LANG", "LC_ALL", "LC_CTYPE",
	    "TZ" };
	char	**names = NULL, warn[512];
	size_t	 n = 0, i, nn = 0;

	/* The list was checked with the options (runner_conf_env_list). */
	if (extra != NULL && runner_conf_env_list(extra, &names, &nn,
	    NULL) != ALX_OK)
		fatalx("env-allow: not a list of variable names");
	rn->env_allow = calloc(4 + nn + 1, sizeof(char *));
	if (rn->env_allow == NULL)
		fatalx("out of memory");
	for (i = 0; i < sizeof(base) / sizeof(base[0]); i++)
		rn->env_allow[n++] = base[i];
	for (i = 0; i < nn; i++)
		rn->env_allow[n++] = names[i];
	free(names);		/* the strings now belong to rn->env_allow */
	rn->env_allow[n] = NULL;
	if (sandbox_env_allow_denied(rn->env_allow, warn, sizeof(warn)) > 0)
		log_warnx("env-allow: %s are credentials and are never passed "
		    "to jobs", warn);
}

/*
 * What the sandbox enforces here; refuse weaker unless allowed. The values
 * here are the defaults: the limits that apply are the session's, logged
 * once joined (runner_log_limits()).
 */
static void
runner_check_sandbox(struct runner *rn, const struct runner_cfg *cfg)
{
	struct sandbox_limits	lim;
	char			text[1024];
	int			missing;

	sandbox_limits_default(&lim);
	missing = sandbox_enforced(rn->be, &lim, text, sizeof(text));
	if (missing > 0)
		log_warnx("sandbox %s, what it enforces (the values are the "
		    "defaults; a session's own are logged once joined): %s",
		    rn->be->name, text);
	else
		log_debug("sandbox %s, default limits: %s", rn->be->name,
		    text);
	if (rn->be->warning != NULL)
		log_warnx("sandbox %s: %s", rn->be->name, rn->be->warning);
	if (missing > 0 && !cfg->allow_weaker)
		fatalx("sandbox %s: %d limit(s) cannot be enforced on this "
		    "machine (see above); run as a system service for full "
		    "limits, or start with --allow-weaker-sandbox", rn->be->name,
		    missing);
}

static void
runner_setup_dirs(struct runner *rn, const struct runner_cfg *cfg)
{
	char	*cause = NULL, sub[PATH_MAX];

	static int	lockfd = -1;	/* held while the runner runs */

	if (cfg->name != NULL && !alx_name_valid(cfg->name))
		fatalx("--name NAME is required ([a-z0-9][a-z0-9._-]*)");
	/* One state dir per machine (runner name) unless one is given. */
	if (cfg->state_dir != NULL)
		runner_pathf(rn->statedir, sizeof(rn->statedir), "%s",
		    cfg->state_dir);
	else if (runner_state_default(rn->statedir, sizeof(rn->statedir),
	    cfg->verify ? NULL : cfg->name) != ALX_OK)
		fatalx("cannot find a state dir: give --state-dir");
	if (runner_state_open(rn->statedir, &cause) != ALX_OK)
		fatalx("%s", cause ? cause : "state dir refused");
	if (!cfg->verify && runner_state_lock(rn->statedir, &lockfd, &cause) !=
	    ALX_OK)
		fatalx("%s", cause ? cause : "the state dir is in use");
	runner_pathf(sub, sizeof(sub), "%s/running", rn->statedir);
	mkdir(sub, 0700);
	runner_pathf(sub, sizeof(sub), "%s/pending", rn->statedir);
	mkdir(sub, 0700);
	if (cfg->work_root != NULL)
		runner_pathf(rn->workroot, sizeof(rn->workroot), "%s",
		    cfg->work_root);
	else
		runner_pathf(rn->workroot, sizeof(rn->workroot), "%s-work",
		    rn->statedir);
	if (mkdir(rn->workroot, 0711) == -1 && errno != EEXIST)
		fatal("work root %s", rn->workroot);
	if (runner_work_root_check(rn->workroot, rn->statedir, &cause) !=
	    ALX_OK) {
		if (!cfg->force)
			fatalx("%s", cause);
		log_warnx("--force: %s; going on ANYWAY", cause);
	}
	free(cause);
	/* Said at start: as root it is not where a user would look. */
	log_info("state in %s (keys, invite, audit log), workspaces in %s",
	    rn->statedir, rn->workroot);
}

static void
runner_backend_say(void *arg, const char *line)
{
	const struct sandbox_backend	*be = arg;

	log_info("%s: %s", be->name, line);
}

/*
 * Once joined, what the backend does for this session (docker: label jobs
 * with this runner's key, remove containers a previous run left, and find
 * python3 in the image when the session allows Python jobs).
 */
static void
runner_backend_join(struct runner *rn)
{
	struct alx_private	 priv;
	char			*cause = NULL;
	int			 python = 1;

	if (rn->be->join == NULL)
		return;
	memset(&priv, 0, sizeof(priv));
	if (alx_view_private(&rn->cs.view, &priv) == ALX_OK &&
	    priv.has_limits && priv.limits.kinds != 0)
		python = (priv.limits.kinds & ALX_JOBKIND_PYTHON) != 0;
	alx_private_free(&priv);
	if (rn->be->join(rn->cs.view.me_fps, python, runner_backend_say,
	    (void *)rn->be, &cause) != 0)
		fatalx("%s: %s", rn->be->name, cause ? cause : "cannot join");
	free(cause);
}

/*
 * The session's Python, once its limits are known: a runtime
 * this machine lacks, or a --python that does not fit the pins, refuses
 * the session here; a venv pip could not make refuses its python jobs.
 */
static void
runner_python_join(struct runner *rn, struct runner_cfg *cfg)
{
	struct alx_private	 priv;
	char			*cause = NULL, *fl;
	int			 r, named = 0;

	if (cfg->python != NULL && cfg->python[0] != '/')
		fatalx("--python %s: give an absolute path", cfg->python);
	if (cfg->find_links != NULL) {
		if ((fl = realpath(cfg->find_links, NULL)) == NULL)
			fatal("--find-links %s", cfg->find_links);
		free(cfg->find_links);
		cfg->find_links = fl;
	}
	runner_pathf(rn->cachedir, sizeof(rn->cachedir), "%s/cache",
	    rn->statedir);
	rn->pyopts.python = cfg->python;
	rn->pyopts.index_url = cfg->package_index;
	rn->pyopts.find_links = cfg->find_links;
	rn->pyopts.cache_dir = rn->cachedir;
	rn->pyopts.mount = rn->be->py == SANDBOX_PY_BIND;
	rn->pyopts.timeout_s = 900;
	if ((r = runner_python_sync(rn, &cause)) == ALX_OK) {
		/* process, as root: jobs run as another uid, outside 0700. */
		if (rn->py.active && rn->py.host_dir[0] != '\0' &&
		    !rn->pyopts.mount && geteuid() == 0)
			log_warnx("python: --sandbox process as root: jobs run "
			    "as another uid, which cannot enter the state dir's "
			    "venv; use --sandbox local or --python");
		return;
	}
	memset(&priv, 0, sizeof(priv));
	if (alx_view_private(&rn->cs.view, &priv) == ALX_OK && priv.has_limits)
		named = priv.limits.runtime != NULL ||
		    priv.limits.npackages > 0;
	alx_private_free(&priv);
	/* What the session names and this machine cannot give: no join. */
	if ((r == ALX_ERR_NOT_FOUND && (named || cfg->python != NULL)) ||
	    r == ALX_ERR_NOT_ALLOWED)
		fatalx("%s", cause ? cause : alx_errname(r));
	log_warnx("python: %s; the session's python jobs are refused",
	    cause ? cause : alx_errname(r));
	free(cause);
}

/*
 * A session whose jobs get the host's network (mode full) needs a runner
 * started with --network; without it no job could run: refuse to join.
 */
static void
runner_network_join(struct runner *rn)
{
	struct alx_private	priv;
	int			full = 0;

	memset(&priv, 0, sizeof(priv));
	if (alx_view_private(&rn->cs.view, &priv) == ALX_OK &&
	    priv.has_limits)
		full = priv.limits.net_mode == ALX_NET_FULL;
	alx_private_free(&priv);
	if (full && !rn->network)
		fatalx("session %s gives its jobs the host's network (network "
		    "full), and this runner was started without --network: "
		    "start it with --network (NETWORK=yes in runner.conf) to "
		    "serve it", rn->cs.sidstr);
}

/* "airlox-runnerd verify": the boundary probes, in a job's sandbox. */
static int
runner_verify_cmd(struct runner *rn, const struct runner_cfg *cfg)
{
	char	*report = NULL;
	int	 fails;

	fails = runner_verify(rn->be, rn->statedir, rn->workroot,
	    cfg->verify_allow != NULL ? ALX_NET_ALLOW : ALX_NET_NONE,
	    cfg->verify_allow, cfg->verify_nallow, stdout, &report);
	free(report);
	if (fails < 0) {
		log_warnx("verify: the sandbox did not start (%s)",
		    alx_errname(fails));
		return 1;
	}
	return fails > 0 ? 1 : 0;
}

int
main(int argc, char **argv)
{
	struct runner_cfg	 cfg;
	struct runner		 rn;
	char			*cause = NULL, *invite;
	char			 sidtxt[ALX_FP_STRLEN + 1], names[64];
	size_t			 i;
	int			 r, verify = 0;

	log_init("airlox-runnerd", LOG_LEVEL_INFO);
	if (argc > 1 && strcmp(argv[1], "verify") == 0) {
		argv[1] = argv[0];
		argc--;
		argv++;
		verify = 1;
	}
	if (runner_cfg_parse(&cfg, argc, argv, &cause) != ALX_OK) {
		fprintf(stderr, "airlox-runnerd: %s\n", cause ? cause :
		    "bad options");
		runner_usage(stderr);
		free(cause);
		runner_cfg_free(&cfg);
		return 2;
	}
	cfg.verify = verify;
	if (cfg.help || cfg.version) {
		if (cfg.help)
			runner_usage(stdout);
		else
			printf("airlox-runnerd %s\n", ALX_VERSION_STRING);
		runner_cfg_free(&cfg);
		return 0;
	}
	log_setlevel(cfg.log_level);
	if (alx_crypto_init() != ALX_OK)
		fatalx("libsodium failed to initialise");
	memset(&rn, 0, sizeof(rn));
	rn.grace_s = cfg.grace_s;
	if ((rn.be = sandbox_find(cfg.sandbox)) == NULL) {
		runopt_sandbox_names(", ", names, sizeof(names));
		fatalx("--sandbox %s: not a sandbox this runner has (%s)",
		    cfg.sandbox, names);
	}
	rn.shim = runner_shim();
	if (rn.be->setup != NULL &&
	    rn.be->setup(cfg.image, &cause) != ALX_OK)
		fatalx("%s", cause ? cause : "the sandbox cannot start here");
	runner_check_sandbox(&rn, &cfg);
	runner_setup_dirs(&rn, &cfg);
	if (cfg.verify) {
		r = runner_verify_cmd(&rn, &cfg);
		runner_cfg_free(&cfg);
		return r;
	}
	/* The proxy starts before any key or invite is loaded. */
	if (runner_egress_start(&rn.egress, NULL, rn.statedir, &cause) != 0)
		fatalx("%s", cause ? cause : "the egress proxy did not start");
	rn.network = cfg.network;
	runner_env_list(&rn, cfg.env_allow);
	if (cfg.name == NULL || !alx_name_valid(cfg.name))
		fatalx("--name NAME is required ([a-z0-9][a-z0-9._-]*)");
	if (runner_labels(&rn, cfg.labels) != ALX_OK)
		fatalx("--labels: each label is [a-z0-9][a-z0-9._-]*");
	if (runner_audit_open(&rn.audit, rn.statedir) != ALX_OK)
		fatalx("cannot open the audit log in %s", rn.statedir);
	if (runner_seen_open(&rn.seen, rn.statedir) != ALX_OK)
		fatalx("cannot read the replay list in %s", rn.statedir);

	/* The participant key lives in the state dir, not in a cache. */
	runner_pathf(rn.storedir, sizeof(rn.storedir), "%s/airlox",
	    rn.statedir);
	rn.conf.store_dir = rn.storedir;
	rn.conf.ca_file = cfg.ca_file;
	rn.conf.insecure_host = cfg.insecure_host;
	rn.conf.name = cfg.name;
	rn.conf.description = cfg.description;
	rn.conf.kind = ALX_PKIND_RUNNER;
	rn.conf.notice = runner_notice;
	rn.conf.debug = runner_debug;
	invite = runner_invite(&cfg, &rn);
	rn.conf.invite = invite;
	r = alxs_open(&rn.cs, &rn.conf, ALXS_JOIN);
	/* Gone as the relay says, not as data that failed to verify says. */
	if ((r == ALX_ERR_NOT_FOUND || r == ALX_ERR_SESSION_EXPIRED ||
	    r == ALX_ERR_EXPIRED) && alxs_error()->class != ALXS_UNVERIFIED) {
		/* Over for good: exit 0, so nothing starts it again. */
		log_warnx("runner: the invite's session ended (it expired, was "
		    "closed by its owner, or the relay no longer has it)%s: "
		    "nothing to run; stopping", runner_cause(r));
		{
			struct alx_invite	ti;

			snprintf(sidtxt, sizeof(sidtxt), "?");
			if (alx_invite_parse(&ti, invite) == 0)
				alx_b64_encode(sidtxt, ti.sid, ALX_SID_LEN);
			alx_invite_wipe(&ti);
			runner_state_ended(&rn, sidtxt);
		}
		rn.ended = 0;		/* its state is removed already */
		goto done;
	}
	if (r != 0)
		fatalx("cannot join the session (%s)%s", alx_errname(r),
		    runner_cause(r));
	if (rn.cs.inv.role != ALX_ROLE_RUNNER)
		fatalx("the invite is the session's %s invite, not its "
		    "runner invite", alx_role_name(rn.cs.inv.role));
	rn.me.name = cfg.name;
	memcpy(rn.me.fp, rn.cs.view.me_fp, ALX_FP_LEN);
	rn.me.kinds = ALX_JOBKIND_SHELL | ALX_JOBKIND_PYTHON;
	runner_backend_join(&rn);
	runner_network_join(&rn);
	runner_python_join(&rn, &cfg);
	rn.nslots = cfg.concurrency;
	if ((rn.slots = calloc((size_t)rn.nslots, sizeof(*rn.slots))) == NULL)
		fatalx("out of memory");
	if ((r = runner_announce(&rn)) != 0)
		log_warnx("runner: announcement refused: %s", alx_errname(r));
	(void)runner_post_verify(&rn);
	log_info("runner %s: joined session %s with key %s, %d slot(s), "
	    "sandbox %s", cfg.name, rn.cs.sidstr, rn.cs.view.me_fps,
	    rn.nslots, rn.be->name);
	runner_log_limits(&rn);
	runner_signals();
	runner_notify("READY=1\nSTATUS=waiting for jobs");
	runner_run(&rn);
	runner_notify("STOPPING=1");
	snprintf(sidtxt, sizeof(sidtxt), "%s", rn.cs.sidstr);

done:
	alxs_sess_close(&rn.cs);
	if (rn.ended)
		runner_state_ended(&rn, sidtxt);
	runner_egress_stop(rn.egress);
	runner_audit_close(&rn.audit);
	runner_seen_free(rn.seen);
	runner_defer_free(&rn);
	runner_pyenv_free(&rn.py);
	free(rn.slots);
	while (rn.me.nlabels > 0)
		free(rn.me.labels[--rn.me.nlabels]);
	/* The first four names are the static defaults. */
	for (i = 4; rn.env_allow != NULL && rn.env_allow[i] != NULL; i++)
		free((char *)rn.env_allow[i]);
	free(rn.env_allow);
	free(rn.me.labels);
	alx_wipe_str(invite);
	runner_cfg_free(&cfg);
	free(cause);
	return 0;
}

/*
 * runner-docker.h: a small Docker Engine API client for the
 * `docker` sandbox (sandbox-docker.c) and the runner's start-up checks.
 *
 * HTTP over the daemon's Unix socket with libcurl: DOCKER_HOST=unix://PATH
 * or /var/run/docker.sock; the API version is pinned in every URL
 * (RUNNER_DOCKER_API). Request bodies are built with alx_jw, answers are
 * parsed with alx_json and bounded (RUNNER_DOCKER_RESP_MAX).
 *
 * Functions return 0 or a negative ALX_ERR_* code; nothing here prints.
 * Where a message helps, *cause gets malloc'd text for the caller.
 */
#ifndef ALX_RUNNER_DOCKER_H
#define ALX_RUNNER_DOCKER_H

#include <stddef.h>
#include <stdint.h>

#define RUNNER_DOCKER_API	"/v1.41"
#define RUNNER_DOCKER_SOCK	"/var/run/docker.sock"
#define RUNNER_DOCKER_RESP_MAX	(1024 * 1024)	/* bytes of one answer */
#define RUNNER_DOCKER_ID_MAX	64		/* a container's id */
#define RUNNER_DOCKER_LABEL_RUNNER	"org.airlox.runner"
#define RUNNER_DOCKER_LABEL_JOB		"org.airlox.job"
/* Where the shim and the job's control folder appear in a container. */
#define RUNNER_DOCKER_SHIM	"/.airlox-shim"
#define RUNNER_DOCKER_CTL	"/.airlox-ctl"

struct runner_docker;

/* One answer: HTTP status and body (NUL-terminated, malloc'd). */
struct runner_docker_resp {
	long	 status;
	char	*body;
	size_t	 len;
};

/* The socket from DOCKER_HOST (unix:// only) or the default. */
int	runner_docker_open(struct runner_docker **, char **cause);
void	runner_docker_close(struct runner_docker *);
const char *runner_docker_socket(const struct runner_docker *);

/* One request: path under the pinned version ("/containers/json"). */
int	runner_docker_call(struct runner_docker *, const char *method,
	    const char *path, const char *json_body, long timeout_ms,
	    struct runner_docker_resp *);
void	runner_docker_resp_free(struct runner_docker_resp *);
/* The daemon's "message" of an error answer, or the status (malloc'd). */
char	*runner_docker_errtext(const struct runner_docker_resp *);

int	runner_docker_ping(struct runner_docker *, char **cause);
/* 0 and *exists 1/0. */
int	runner_docker_image_exists(struct runner_docker *, const char *image,
	    int *exists);
/* POST /containers/create: *id (RUNNER_DOCKER_ID_MAX + 1 bytes). */
int	runner_docker_create(struct runner_docker *, const char *body,
	    char *id, char **cause);
int	runner_docker_start(struct runner_docker *, const char *id,
	    char **cause);
int	runner_docker_kill(struct runner_docker *, const char *id, int sig);
/* Blocks until the container stops: its exit code. */
int	runner_docker_wait(struct runner_docker *, const char *id,
	    long timeout_ms, int *code);
struct runner_docker_state {
	int	 running;
	int	 oom_killed;
	int	 exit_code;
	long	 pid;		/* on the host, 0 when not running */
};
int	runner_docker_inspect(struct runner_docker *, const char *id,
	    struct runner_docker_state *);
/*
 * runner-docker-answer.c: the daemon's answers, read (pure functions).
 * Ids are 1..RUNNER_DOCKER_ID_MAX lower-case hex digits, else refused
 * (create: ALX_ERR_INVALID) or left out (list).
 */
int	runner_docker_id_valid(const char *);
int	runner_docker_parse_id(const char *body, size_t len, char *id);
int	runner_docker_parse_wait(const char *body, size_t len, int *code);
int	runner_docker_parse_state(const char *body, size_t len,
	    struct runner_docker_state *);
int	runner_docker_parse_list(const char *body, size_t len, char ***ids,
	    size_t *n);
/* 1 when a failed start's answer says the command does not exist. */
int	runner_docker_missing_cmd(const char *body);
/* The 8-byte frame headers of attach and logs: stream (1 out, 2 err). */
struct runner_docker_frames {
	uint8_t	 hdr[8];
	size_t	 hlen;
	size_t	 left;		/* payload bytes left in this frame */
	int	 stream;
};
void	runner_docker_demux(struct runner_docker_frames *, const char *p,
	    size_t len, void (*out)(void *arg, int stream, const char *p,
	    size_t n), void *arg);
/* Strip the frame headers of buf in place, keeping at most max bytes. */
size_t	runner_docker_unframe(char *buf, size_t len, size_t max);

/* DELETE ?force=1&v=1; a container already gone is not an error. */
int	runner_docker_remove(struct runner_docker *, const char *id);
/* Ids of every container (running or not) with label key=value. */
int	runner_docker_list(struct runner_docker *, const char *key,
	    const char *value, char ***ids, size_t *n);
void	runner_docker_ids_free(char **, size_t);
/*
 * POST /containers/{id}/attach?stream=1&stdout=1&stderr=1 and demultiplex
 * the stream into outfd and errfd until it ends. ready() is called once,
 * when the daemon has answered (the container may be started then).
 */
int	runner_docker_attach(struct runner_docker *, const char *id,
	    int outfd, int errfd, void (*ready)(void *), void *arg);
/* How runner_docker_run makes its container (zero: the defaults). */
struct runner_docker_runopts {
	const char	*label;		/* org.airlox.runner */
	const char	*user;		/* NULL: 65534:65534 (nobody) */
	int		 rw;		/* 0: read-only root */
	int		 net_host;	/* 0: network none; 1: the host's */
	const char	*bind_src;	/* a host folder mounted read-only */
	const char	*bind_dst;
	const char	*commit;	/* "repo:tag": commit it when it exits 0 */
	int		 stderr_too;	/* out holds stderr as well */
	long		 timeout_ms;	/* 0: 2 minutes */
};
/*
 * Run one command in a fresh container of image (capabilities dropped,
 * no-new-privileges, 1 GiB, removed after): its exit code and up to max
 * bytes of its output (malloc'd, NUL-terminated). A command the image
 * lacks gives ALX_ERR_NOT_FOUND.
 */
int	runner_docker_run(struct runner_docker *, const char *image,
	    const char *const *cmd, const struct runner_docker_runopts *,
	    size_t max, int *code, char **out, char **cause);

/*
 * The docker sandbox's seccomp profile (Docker's JSON format), made from
 * the table in sandbox-docker.c: malloc'd.
 */
int	sandbox_docker_seccomp_json(char **json);
/*
 * The docker sandbox's settings: the image jobs run in and this runner's
 * label value (org.airlox.runner); the runner sets them at start.
 */
int	sandbox_docker_setup(const char *image, const char *runner_label);
/* The label value set above ("" before). */
const char *sandbox_docker_label(void);
/* The image set above ("" before), and the --image it was made from. */
const char *runner_docker_image(void);
const char *runner_docker_base(void);

/*
 * The runner's start: the daemon answers and the image exists (*cause
 * says plainly what is missing); sets the image for the sandbox.
 */
int	runner_docker_check(const char *image, char **cause);
/*
 * The image's python3 version ("3.11.2"); ALX_ERR_NOT_FOUND with "the
 * image has no python3: add it ..." in *cause.
 */
int	runner_docker_python(const char *image, char *version, size_t vlen,
	    char **cause);
/* After joining: label jobs with label; remove what a previous run left. */
int	runner_docker_adopt(const char *label, size_t *removed, char **cause);
/*
 * The backend's join: runner_docker_adopt(), then, when the session
 * allows Python jobs, the image's python3 (runner_docker_python()); what
 * was done is told to say(arg, line).
 */
int	runner_docker_join(const char *label, int python,
	    void (*say)(void *, const char *), void *arg, char **cause);
/* runner-dockerpy.c */
struct runner_pyenv;
struct runner_pyopts;
struct alx_job_limits;
/*
 * --sandbox docker: the Python runtime for a session's limits: the image's
 * python3 as it is, or for a package allowlist a job image built once
 * (the image plus the pins in a venv at SANDBOX_PY_DIR, from --find-links
 * or --package-index), tagged airlox-job:<hash>, reused while it exists;
 * jobs then run in it. Fills pe (source "docker:IMAGE", the version, each
 * package's); ALX_ERR_NOT_FOUND (no python3, another runtime) and
 * ALX_ERR_NOT_ALLOWED (a pin not met) with *cause saying so.
 */
int	runner_docker_pyenv(struct runner_pyenv *,
	    const struct alx_job_limits *, const struct runner_pyopts *,
	    char **cause);

/* Remove every container labelled as this runner's: how many. */
int	sandbox_docker_cleanup(struct runner_docker *, size_t *removed);
/* verify: the mount points and /dev names a docker job sees. */
int	sandbox_docker_mounts(int net_host, char *buf, size_t len);
int	sandbox_docker_devs(char *buf, size_t len);

#endif /* ALX_RUNNER_DOCKER_H */

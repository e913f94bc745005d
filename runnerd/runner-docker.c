/*
 * runner-docker.c: the Docker Engine API over its Unix socket, with
 * libcurl. Only what the docker sandbox needs: ping, image inspect,
 * container create/start/attach/wait/kill/inspect/delete/list. Every
 * answer is bounded; every body is built with alx_jw and read with
 * alx_json.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>

#include "airlox.h"
#include "runner-docker.h"
#include "runner-python.h"

struct runner_docker {
	CURL	*curl;
	char	 sock[108];
};

struct docker_sink {
	char	*buf;
	size_t	 len;
	size_t	 max;
	int	 over;
};

/* Where the attach stream's frames go. */
struct docker_demux {
	struct runner_docker_frames f;
	int	 outfd, errfd;
	int	 failed;
	int	 readied;
	void	(*ready)(void *);
	void	*arg;
};

int
runner_docker_open(struct runner_docker **dp, char **cause)
{
	struct runner_docker	*d;
	const char		*h = getenv("DOCKER_HOST"), *path;

	*dp = NULL;
	if (cause != NULL)
		*cause = NULL;
	path = RUNNER_DOCKER_SOCK;
	if (h != NULL && *h != '\0') {
		if (strncmp(h, "unix://", 7) != 0) {
			if (cause != NULL && asprintf(cause, "DOCKER_HOST=%s: "
			    "only unix:// sockets are supported", h) == -1)
				*cause = NULL;
			return ALX_ERR_INVALID;
		}
		path = h + 7;
	}
	if (strlen(path) >= sizeof d->sock || path[0] != '/')
		return ALX_ERR_BAD_PATH;
	if ((d = calloc(1, sizeof *d)) == NULL)
		return ALX_ERR_NOMEM;
	snprintf(d->sock, sizeof d->sock, "%s", path);
	if ((d->curl = curl_easy_init()) == NULL) {
		free(d);
		return ALX_ERR_NOMEM;
	}
	*dp = d;
	return 0;
}

void
runner_docker_close(struct runner_docker *d)
{
	if (d == NULL)
		return;
	curl_easy_cleanup(d->curl);
	free(d);
}

const char *
runner_docker_socket(const struct runner_docker *d)
{
	return d->sock;
}

static size_t
docker_sink_cb(char *p, size_t sz, size_t n, void *arg)
{
	struct docker_sink	*s = arg;
	size_t			 len = sz * n;
	char			*nb;

	if (s->len + len > s->max) {
		s->over = 1;
		return 0;		/* curl stops: too large */
	}
	if ((nb = realloc(s->buf, s->len + len + 1)) == NULL)
		return 0;
	s->buf = nb;
	memcpy(s->buf + s->len, p, len);
	s->len += len;
	s->buf[s->len] = '\0';
	return len;
}

static void
docker_setup(struct runner_docker *d, const char *method, const char *url,
    long timeout_ms)
{
	curl_easy_reset(d->curl);
	curl_easy_setopt(d->curl, CURLOPT_UNIX_SOCKET_PATH, d->sock);
	curl_easy_setopt(d->curl, CURLOPT_URL, url);
	curl_easy_setopt(d->curl, CURLOPT_CUSTOMREQUEST, method);
	curl_easy_setopt(d->curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(d->curl, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
	if (timeout_ms > 0)
		curl_easy_setopt(d->curl, CURLOPT_TIMEOUT_MS, timeout_ms);
	curl_easy_setopt(d->curl, CURLOPT_PROTOCOLS_STR, "http");
}

int
runner_docker_call(struct runner_docker *d, const char *method,
    const char *path, const char *body, long timeout_ms,
    struct runner_docker_resp *resp)
{
	struct curl_slist	*h = NULL;
	struct docker_sink	 s;
	char			 url[2048];
	CURLcode		 c;

	memset(resp, 0, sizeof *resp);
	memset(&s, 0, sizeof s);
	s.max = RUNNER_DOCKER_RESP_MAX;
	if ((size_t)snprintf(url, sizeof url, "http://docker%s%s",
	    RUNNER_DOCKER_API, path) >= sizeof url)
		return ALX_ERR_TOO_LARGE;
	docker_setup(d, method, url, timeout_ms);
	curl_easy_setopt(d->curl, CURLOPT_WRITEFUNCTION, docker_sink_cb);
	curl_easy_setopt(d->curl, CURLOPT_WRITEDATA, &s);
	if (body != NULL) {
		h = curl_slist_append(h, "Content-Type: application/json");
		curl_easy_setopt(d->curl, CURLOPT_HTTPHEADER, h);
		curl_easy_setopt(d->curl, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(d->curl, CURLOPT_POSTFIELDSIZE,
		    (long)strlen(body));
	}
	c = curl_easy_perform(d->curl);
	curl_slist_free_all(h);
	if (c != CURLE_OK) {
		free(s.buf);
		return s.over ? ALX_ERR_TOO_LARGE : ALX_ERR_IO;
	}
	curl_easy_getinfo(d->curl, CURLINFO_RESPONSE_CODE, &resp->status);
	if (s.buf == NULL && (s.buf = calloc(1, 1)) == NULL)
		return ALX_ERR_NOMEM;
	resp->body = s.buf;
	resp->len = s.len;
	return 0;
}

void
runner_docker_resp_free(struct runner_docker_resp *r)
{
	free(r->body);
	r->body = NULL;
	r->len = 0;
}

static void
docker_cause(char **cause, const char *what, const struct runner_docker_resp *r)
{
	char	*t;

	if (cause == NULL)
		return;
	t = runner_docker_errtext(r);
	if (asprintf(cause, "%s: %s", what, t != NULL ? t : "error") == -1)
		*cause = NULL;
	free(t);
}

int
runner_docker_ping(struct runner_docker *d, char **cause)
{
	struct runner_docker_resp	r;
	int				rc;

	if (cause != NULL)
		*cause = NULL;
	rc = runner_docker_call(d, "GET", "/_ping", NULL, 5000, &r);
	if (rc != 0) {
		if (cause != NULL && asprintf(cause, "the Docker daemon does "
		    "not answer on %s (is dockerd running, and may this user "
		    "use its socket?)", d->sock) == -1)
			*cause = NULL;
		return rc;
	}
	if (r.status != 200) {
		docker_cause(cause, "the Docker daemon refused /_ping", &r);
		rc = ALX_ERR_IO;
	}
	runner_docker_resp_free(&r);
	return rc;
}

/* Path-safe image or id text: a docker reference has no spaces or '?'. */
static int
docker_ref_ok(const char *s)
{
	size_t	i;

	if (s == NULL || s[0] == '\0' || strlen(s) > 255)
		return 0;
	for (i = 0; s[i] != '\0'; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' &&
		    s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
		    strchr("._-/:@", s[i]) != NULL))
			return 0;
	return 1;
}

int
runner_docker_image_exists(struct runner_docker *d, const char *image,
    int *exists)
{
	struct runner_docker_resp	r;
	char				path[512];
	int				rc;

	*exists = 0;
	if (!docker_ref_ok(image))
		return ALX_ERR_INVALID;
	snprintf(path, sizeof path, "/images/%s/json", image);
	if ((rc = runner_docker_call(d, "GET", path, NULL, 10000, &r)) != 0)
		return rc;
	if (r.status == 200)
		*exists = 1;
	else if (r.status != 404)
		rc = ALX_ERR_IO;
	runner_docker_resp_free(&r);
	return rc;
}

int
runner_docker_create(struct runner_docker *d, const char *body, char *id,
    char **cause)
{
	struct runner_docker_resp	r;
	int				rc;

	id[0] = '\0';
	if (cause != NULL)
		*cause = NULL;
	if ((rc = runner_docker_call(d, "POST", "/containers/create", body,
	    30000, &r)) != 0)
		return rc;
	if (r.status != 201) {
		docker_cause(cause, "docker create", &r);
		runner_docker_resp_free(&r);
		return r.status == 404 ? ALX_ERR_NOT_FOUND : ALX_ERR_IO;
	}
	rc = runner_docker_parse_id(r.body, r.len, id);
	runner_docker_resp_free(&r);
	return rc;
}

int
runner_docker_start(struct runner_docker *d, const char *id, char **cause)
{
	struct runner_docker_resp	r;
	char				path[160];
	int				rc;

	if (cause != NULL)
		*cause = NULL;
	snprintf(path, sizeof path, "/containers/%s/start", id);
	if ((rc = runner_docker_call(d, "POST", path, "", 60000, &r)) != 0)
		return rc;
	if (r.status != 204 && r.status != 304) {
		docker_cause(cause, "docker start", &r);
		rc = runner_docker_missing_cmd(r.body) ? ALX_ERR_NOT_FOUND :
		    ALX_ERR_IO;
	}
	runner_docker_resp_free(&r);
	return rc;
}

int
runner_docker_kill(struct runner_docker *d, const char *id, int sig)
{
	struct runner_docker_resp	r;
	char				path[200];
	int				rc;

	snprintf(path, sizeof path, "/containers/%s/kill?signal=%d", id, sig);
	if ((rc = runner_docker_call(d, "POST", path, "", 10000, &r)) != 0)
		return rc;
	/* 409: not running any more; that is what we wanted. */
	if (r.status != 204 && r.status != 409)
		rc = ALX_ERR_IO;
	runner_docker_resp_free(&r);
	return rc;
}

int
runner_docker_wait(struct runner_docker *d, const char *id, long timeout_ms,
    int *code)
{
	struct runner_docker_resp	r;
	char				path[160];
	int				rc;

	*code = -1;
	snprintf(path, sizeof path, "/containers/%s/wait", id);
	if ((rc = runner_docker_call(d, "POST", path, "", timeout_ms,
	    &r)) != 0)
		return rc;
	if (r.status != 200)
		rc = r.status == 404 ? ALX_ERR_NOT_FOUND : ALX_ERR_IO;
	if (rc == 0)
		rc = runner_docker_parse_wait(r.body, r.len, code);
	runner_docker_resp_free(&r);
	return rc;
}

int
runner_docker_inspect(struct runner_docker *d, const char *id,
    struct runner_docker_state *st)
{
	struct runner_docker_resp	r;
	char				path[160];
	int				rc;

	memset(st, 0, sizeof *st);
	snprintf(path, sizeof path, "/containers/%s/json", id);
	if ((rc = runner_docker_call(d, "GET", path, NULL, 10000, &r)) != 0)
		return rc;
	if (r.status != 200)
		rc = r.status == 404 ? ALX_ERR_NOT_FOUND : ALX_ERR_IO;
	if (rc == 0)
		rc = runner_docker_parse_state(r.body, r.len, st);
	runner_docker_resp_free(&r);
	return rc;
}

int
runner_docker_remove(struct runner_docker *d, const char *id)
{
	struct runner_docker_resp	r;
	char				path[200];
	int				rc;

	snprintf(path, sizeof path, "/containers/%s?force=1&v=1", id);
	if ((rc = runner_docker_call(d, "DELETE", path, NULL, 30000, &r)) != 0)
		return rc;
	if (r.status != 204 && r.status != 404)
		rc = ALX_ERR_IO;
	runner_docker_resp_free(&r);
	return rc;
}

int
runner_docker_list(struct runner_docker *d, const char *key,
    const char *value, char ***ids, size_t *n)
{
	struct runner_docker_resp	 r;
	struct alx_jw			 w;
	char				*filt = NULL, *enc, path[1024], lab[400];
	size_t				 len;
	int				 rc;

	*ids = NULL;
	*n = 0;
	snprintf(lab, sizeof lab, "%s=%s", key, value);
	alx_jw_init(&w, 1024);
	alx_jw_obj_begin(&w);
	alx_jw_key(&w, "label");
	alx_jw_arr_begin(&w);
	alx_jw_str(&w, lab);
	alx_jw_arr_end(&w);
	alx_jw_obj_end(&w);
	rc = alx_jw_finish(&w, &filt, &len);
	alx_jw_free(&w);
	if (rc != 0)
		return rc;
	enc = curl_easy_escape(d->curl, filt, (int)len);
	free(filt);
	if (enc == NULL)
		return ALX_ERR_NOMEM;
	rc = (size_t)snprintf(path, sizeof path, "/containers/json?all=1&"
	    "filters=%s", enc) >= sizeof path ? ALX_ERR_TOO_LARGE : 0;
	curl_free(enc);
	if (rc != 0)
		return rc;
	if ((rc = runner_docker_call(d, "GET", path, NULL, 10000, &r)) != 0)
		return rc;
	if (r.status != 200)
		rc = ALX_ERR_IO;
	else
		rc = runner_docker_parse_list(r.body, r.len, ids, n);
	runner_docker_resp_free(&r);
	return rc;
}

static int
docker_write_all(int fd, const char *p, size_t len)
{
	ssize_t	w;

	while (len > 0) {
		w = write(fd, p, len);
		if (w == -1 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

static void
docker_demux_out(void *arg, int stream, const char *p, size_t len)
{
	struct docker_demux	*dm = arg;

	/* A reader that went away (cancel) must not stop the wait. */
	if (!dm->failed && docker_write_all(stream == 2 ? dm->errfd :
	    dm->outfd, p, len) != 0)
		dm->failed = 1;
}

static size_t
docker_demux_cb(char *p, size_t sz, size_t n, void *arg)
{
	struct docker_demux	*dm = arg;

	runner_docker_demux(&dm->f, p, sz * n, docker_demux_out, dm);
	return sz * n;
}

static size_t
docker_header_cb(char *p, size_t sz, size_t n, void *arg)
{
	struct docker_demux	*dm = arg;

	/* The empty line ends the headers: the stream is attached. */
	if (sz * n == 2 && p[0] == '\r' && p[1] == '\n' && !dm->readied) {
		dm->readied = 1;
		if (dm->ready != NULL)
			dm->ready(dm->arg);
	}
	return sz * n;
}

int
runner_docker_attach(struct runner_docker *d, const char *id, int outfd,
    int errfd, void (*ready)(void *), void *arg)
{
	struct docker_demux	dm;
	char			url[300];
	long			status = 0;
	CURLcode		c;

	memset(&dm, 0, sizeof dm);
	dm.outfd = outfd;
	dm.errfd = errfd;
	dm.ready = ready;
	dm.arg = arg;
	snprintf(url, sizeof url, "http://docker%s/containers/%s/attach?"
	    "stream=1&stdout=1&stderr=1", RUNNER_DOCKER_API, id);
	docker_setup(d, "POST", url, 0);
	curl_easy_setopt(d->curl, CURLOPT_POSTFIELDS, "");
	curl_easy_setopt(d->curl, CURLOPT_POSTFIELDSIZE, 0L);
	curl_easy_setopt(d->curl, CURLOPT_WRITEFUNCTION, docker_demux_cb);
	curl_easy_setopt(d->curl, CURLOPT_WRITEDATA, &dm);
	curl_easy_setopt(d->curl, CURLOPT_HEADERFUNCTION, docker_header_cb);
	curl_easy_setopt(d->curl, CURLOPT_HEADERDATA, &dm);
	c = curl_easy_perform(d->curl);
	curl_easy_getinfo(d->curl, CURLINFO_RESPONSE_CODE, &status);
	if (!dm.readied && ready != NULL)
		ready(arg);	/* never leave the starter waiting */
	if (status != 200)
		return ALX_ERR_IO;
	/* The daemon closes the hijacked stream without a length. */
	return c == CURLE_OK || c == CURLE_PARTIAL_FILE ||
	    c == CURLE_RECV_ERROR ? 0 : ALX_ERR_IO;
}

static int
docker_run_body(const char *image, const char *const *cmd,
    const struct runner_docker_runopts *o, char **body)
{
	struct alx_jw	w;
	size_t		i, len;
	int		rc;

	alx_jw_init(&w, 64 * 1024);
	alx_jw_obj_begin(&w);
	alx_jw_kstr(&w, "Image", image);
	alx_jw_key(&w, "Entrypoint");
	alx_jw_arr_begin(&w);
	alx_jw_str(&w, cmd[0]);
	alx_jw_arr_end(&w);
	alx_jw_key(&w, "Cmd");
	alx_jw_arr_begin(&w);
	for (i = 1; cmd[i] != NULL; i++)
		alx_jw_str(&w, cmd[i]);
	alx_jw_arr_end(&w);
	alx_jw_kstr(&w, "User", o->user != NULL ? o->user : "65534:65534");
	alx_jw_kbool(&w, "AttachStdout", 1);
	alx_jw_kbool(&w, "AttachStderr", 1);
	alx_jw_key(&w, "Labels");
	alx_jw_obj_begin(&w);
	alx_jw_kstr(&w, RUNNER_DOCKER_LABEL_RUNNER, o->label);
	alx_jw_kstr(&w, RUNNER_DOCKER_LABEL_JOB, "check");
	alx_jw_obj_end(&w);
	alx_jw_key(&w, "HostConfig");
	alx_jw_obj_begin(&w);
	alx_jw_kstr(&w, "NetworkMode", o->net_host ? "host" : "none");
	alx_jw_kbool(&w, "ReadonlyRootfs", !o->rw);
	if (o->bind_src != NULL && o->bind_dst != NULL) {
		alx_jw_key(&w, "Mounts");
		alx_jw_arr_begin(&w);
		alx_jw_obj_begin(&w);
		alx_jw_kstr(&w, "Type", "bind");
		alx_jw_kstr(&w, "Source", o->bind_src);
		alx_jw_kstr(&w, "Target", o->bind_dst);
		alx_jw_kbool(&w, "ReadOnly", 1);
		alx_jw_obj_end(&w);
		alx_jw_arr_end(&w);
	}
	alx_jw_key(&w, "CapDrop");
	alx_jw_arr_begin(&w);
	alx_jw_str(&w, "ALL");
	alx_jw_arr_end(&w);
	alx_jw_key(&w, "SecurityOpt");
	alx_jw_arr_begin(&w);
	alx_jw_str(&w, "no-new-privileges");
	alx_jw_arr_end(&w);
	alx_jw_kint(&w, "Memory", 1LL << 30);
	alx_jw_kint(&w, "MemorySwap", 1LL << 30);
	alx_jw_kint(&w, "PidsLimit", 256);
	alx_jw_obj_end(&w);
	alx_jw_obj_end(&w);
	rc = alx_jw_finish(&w, body, &len);
	alx_jw_free(&w);
	return rc;
}

/* Stdout (and stderr) of a stopped container, frame headers stripped. */
static char *
docker_logs(struct runner_docker *d, const char *id, int err, size_t max)
{
	struct docker_sink	 s;
	char			 url[300];

	memset(&s, 0, sizeof s);
	s.max = max + 8 * (max / 16 + 2);
	snprintf(url, sizeof url, "http://docker%s/containers/%s/logs?"
	    "stdout=1%s", RUNNER_DOCKER_API, id, err ? "&stderr=1" : "");
	docker_setup(d, "GET", url, 30000);
	curl_easy_setopt(d->curl, CURLOPT_WRITEFUNCTION, docker_sink_cb);
	curl_easy_setopt(d->curl, CURLOPT_WRITEDATA, &s);
	/* Too much output: keep what arrived (curl stops the transfer). */
	(void)curl_easy_perform(d->curl);
	if (s.buf == NULL)
		return calloc(1, 1);
	s.buf[runner_docker_unframe(s.buf, s.len, max)] = '\0';
	return s.buf;
}

static int
docker_commit(struct runner_docker *d, const char *id, const char *ref,
    char **cause)
{
	struct runner_docker_resp	 r;
	char				 path[600], repo[256], *tag;
	int				 rc;

	snprintf(repo, sizeof repo, "%s", ref);
	if ((tag = strrchr(repo, ':')) == NULL || strchr(tag, '/') != NULL)
		return ALX_ERR_INVALID;
	*tag++ = '\0';
	snprintf(path, sizeof path, "/commit?container=%s&repo=%s&tag=%s", id,
	    repo, tag);
	if ((rc = runner_docker_call(d, "POST", path, "{}", 300000, &r)) != 0)
		return rc;
	if (r.status != 201) {
		docker_cause(cause, "docker commit", &r);
		rc = ALX_ERR_IO;
	}
	runner_docker_resp_free(&r);
	return rc;
}

int
runner_docker_run(struct runner_docker *d, const char *image,
    const char *const *cmd, const struct runner_docker_runopts *o,
    size_t max, int *code, char **out, char **cause)
{
	char	 id[RUNNER_DOCKER_ID_MAX + 1];
	char	*body = NULL;
	int	 rc;

	*code = -1;
	*out = NULL;
	if (cause != NULL)
		*cause = NULL;
	if (!docker_ref_ok(image))
		return ALX_ERR_INVALID;
	if ((rc = docker_run_body(image, cmd, o, &body)) != 0)
		return rc;
	rc = runner_docker_create(d, body, id, cause);
	free(body);
	if (rc != 0)
		return rc;
	if ((rc = runner_docker_start(d, id, cause)) == 0 &&
	    (rc = runner_docker_wait(d, id, o->timeout_ms > 0 ? o->timeout_ms :
	    120000, code)) == 0) {
		/* The output after the end: the default log driver kept it. */
		if ((*out = docker_logs(d, id, o->stderr_too, max)) == NULL)
			rc = ALX_ERR_NOMEM;
		if (rc == 0 && *code == 0 && o->commit != NULL)
			rc = docker_commit(d, id, o->commit, cause);
	}
	if (rc != 0 && o->timeout_ms > 0)
		runner_docker_kill(d, id, 9);
	runner_docker_remove(d, id);
	return rc;
}

static char	docker_base[256];

const char *
runner_docker_base(void)
{
	return docker_base;
}

int
runner_docker_check(const char *image, char **cause)
{
	struct runner_docker	*d;
	int			 r, exists;

	*cause = NULL;
	if (image == NULL || image[0] == '\0') {
		if ((*cause = strdup("--sandbox docker needs --image IMG (or "
		    "IMAGE in the config file): the image jobs run in")) ==
		    NULL)
			return ALX_ERR_NOMEM;
		return ALX_ERR_INVALID;
	}
	if (!docker_ref_ok(image) || strlen(image) >= sizeof docker_base ||
	    sandbox_docker_setup(image, "airlox-verify") != 0) {
		if (asprintf(cause, "--image %s: not a Docker image name",
		    image) == -1)
			*cause = NULL;
		return ALX_ERR_INVALID;
	}
	snprintf(docker_base, sizeof docker_base, "%s", image);
	if ((r = runner_docker_open(&d, cause)) != 0)
		return r;
	if ((r = runner_docker_ping(d, cause)) == 0 &&
	    (r = runner_docker_image_exists(d, image, &exists)) == 0 &&
	    !exists) {
		if (asprintf(cause, "the image %s does not exist on this Docker "
		    "daemon (%s): build or pull it first", image, d->sock) == -1)
			*cause = NULL;
		r = ALX_ERR_NOT_FOUND;
	} else if (r != 0 && *cause == NULL && asprintf(cause, "the Docker "
	    "daemon on %s: %s", d->sock, alx_errname(r)) == -1)
		*cause = NULL;
	runner_docker_close(d);
	return r;
}

int
runner_docker_python(const char *image, char *version, size_t vlen,
    char **cause)
{
	static const char *const cmd[] = { "python3", "-c",
	    "import sys; print('%d.%d.%d' % sys.version_info[:3])", NULL };
	struct runner_docker_runopts	 o;
	struct runner_docker	*d;
	char			*out = NULL, *v, line[300];
	int			 r, code;

	*cause = NULL;
	if (vlen > 0)
		version[0] = '\0';
	if ((r = runner_docker_open(&d, cause)) != 0)
		return r;
	memset(&o, 0, sizeof o);
	o.label = "airlox-check";
	o.stderr_too = 1;	/* a failure's last line is the reason */
	r = runner_docker_run(d, image, cmd, &o, 4096, &code, &out, cause);
	runner_docker_close(d);
	if (r == ALX_ERR_NOT_FOUND || (r == 0 && code == 127)) {
		free(*cause);
		if (asprintf(cause, "the image %s has no python3: add it, e.g. "
		    "`apt-get install python3` in its Dockerfile", image) == -1)
			*cause = NULL;
		free(out);
		return ALX_ERR_NOT_FOUND;
	}
	if (r == 0 && code != 0) {
		runner_py_last_line(out, line, sizeof line);
		if (asprintf(cause, "python3 in the image %s does not run (exit "
		    "%d): %s", image, code, line) == -1)
			*cause = NULL;
		r = ALX_ERR_IO;
	}
	if (r == 0) {
		/* The version's line (a warning on stderr may come first). */
		for (v = out; *v != '\0' && !(*v >= '0' && *v <= '9' &&
		    (v == out || v[-1] == '\n')); v++)
			;
		v[strcspn(v, "\r\n")] = '\0';
		snprintf(version, vlen, "%s", v);
	}
	free(out);
	return r;
}

int
runner_docker_adopt(const char *label, size_t *removed, char **cause)
{
	struct runner_docker	*d;
	int			 r;

	*cause = NULL;
	*removed = 0;
	if ((r = sandbox_docker_setup(runner_docker_image(), label)) != 0)
		return r;
	if ((r = runner_docker_open(&d, cause)) != 0)
		return r;
	if ((r = sandbox_docker_cleanup(d, removed)) != 0 && asprintf(cause,
	    "cannot list this runner's containers: %s", alx_errname(r)) == -1)
		*cause = NULL;
	runner_docker_close(d);
	return r;
}

int
runner_docker_join(const char *label, int python,
    void (*say)(void *, const char *), void *arg, char **cause)
{
	char	version[32], line[256];
	size_t	removed;
	int	r;

	if ((r = runner_docker_adopt(label, &removed, cause)) != 0) {
		if (*cause == NULL)
			*cause = strdup("cleanup failed");
		return r;
	}
	if (removed > 0) {
		snprintf(line, sizeof line, "removed %zu container(s) a "
		    "previous run left", removed);
		say(arg, line);
	}
	if (!python)
		return 0;
	if ((r = runner_docker_python(runner_docker_image(), version,
	    sizeof version, cause)) != 0) {
		if (*cause == NULL)
			*cause = strdup("no python3 in the image");
		return r;
	}
	snprintf(line, sizeof line, "image %s, python %s",
	    runner_docker_image(), version);
	say(arg, line);
	return 0;
}

/*
 * alx_jobmeta.c: job, result and progress meta (protocol.md section 8).
 */
#include <stdlib.h>
#include <string.h>

#include "airlox/err.h"
#include "airlox/b64.h"
#include "airlox/json.h"
#include "airlox/proto.h"
#include "airlox/jobmeta.h"
#include "alx_int.h"

#define ALX_META_LIMITS	{ ALX_META_MAX, 6, 4096 }

int
alx_relpath_valid(const char *p)
{
	const char	*s = p, *e;
	size_t		 len = strlen(p);

	if (len > ALX_JOB_PATH_MAX || p[0] == '/')
		return 0;
	if (alx_utf8_valid((const uint8_t *)p, len) != ALX_OK)
		return 0;
	while (*s != '\0') {
		e = strchr(s, '/');
		if (e == NULL)
			e = s + strlen(s);
		if (e == s)			/* "a//b" */
			return 0;
		if ((e - s == 1 && s[0] == '.') ||
		    (e - s == 2 && s[0] == '.' && s[1] == '.'))
			return 0;
		s = *e == '/' ? e + 1 : e;
	}
	for (s = p; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || *s == '\\')
			return 0;
	return 1;
}

static int
alx_name_is_pkg(const char *s)
{
	size_t	i, n = strlen(s);

	if (n == 0 || n > 100)
		return 0;
	for (i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.'))
			return 0;
	}
	return 1;
}

void
alx_jobmeta_free(struct alx_jobmeta *jm)
{
	size_t	i;

	free(jm->cmd);
	for (i = 0; i < jm->argc; i++)
		free(jm->argv[i]);
	free(jm->argv);
	free(jm->file);
	free(jm->cwd);
	for (i = 0; i < jm->ninputs; i++)
		free(jm->inputs[i].name);
	free(jm->inputs);
	for (i = 0; i < jm->nreqs; i++)
		free(jm->reqs[i]);
	free(jm->reqs);
	free(jm->tree);
	memset(jm, 0, sizeof(*jm));
}

static const char *
alx_net_name(int mode)
{
	return mode == ALX_NET_FULL ? "full" : mode == ALX_NET_ALLOW ?
	    "allow" : "none";
}

static int
alx_net_parse(const char *s, int *mode)
{
	if (strcmp(s, "none") == 0)
		*mode = ALX_NET_NONE;
	else if (strcmp(s, "allow") == 0)
		*mode = ALX_NET_ALLOW;
	else if (strcmp(s, "full") == 0)
		*mode = ALX_NET_FULL;
	else
		return ALX_ERR_NOT_ALLOWED;
	return ALX_OK;
}

int
alx_jobmeta_encode(const struct alx_jobmeta *jm, char **json, size_t *len)
{
	struct alx_jw	w;
	size_t		i;
	int		r;

	alx_jw_init(&w, ALX_META_MAX);
	alx_jw_obj_begin(&w);
	alx_jw_kint(&w, "v", ALX_PROTO_VERSION);
	alx_jw_kstr(&w, "kind", jm->kind == ALX_JOBKIND_PYTHON ? "python" :
	    "shell");
	if (jm->cmd != NULL)
		alx_jw_kstr(&w, "cmd", jm->cmd);
	if (jm->argv != NULL) {
		alx_jw_key(&w, "argv");
		alx_jw_arr_begin(&w);
		for (i = 0; i < jm->argc; i++)
			alx_jw_str(&w, jm->argv[i]);
		alx_jw_arr_end(&w);
	}
	if (jm->file != NULL) {
		alx_jw_key(&w, "file");
		alx_jw_obj_begin(&w);
		alx_jw_kstr(&w, "name", jm->file);
		alx_jw_obj_end(&w);
	}
	alx_jw_kstr(&w, "cwd", jm->cwd != NULL ? jm->cwd : "");
	alx_jw_key(&w, "inputs");
	alx_jw_arr_begin(&w);
	for (i = 0; i < jm->ninputs; i++) {
		alx_jw_obj_begin(&w);
		alx_jw_kb64(&w, "id", jm->inputs[i].id, ALX_ID_LEN);
		alx_jw_kstr(&w, "name", jm->inputs[i].name);
		alx_jw_kint(&w, "size", jm->inputs[i].size);
		alx_jw_obj_end(&w);
	}
	alx_jw_arr_end(&w);
	alx_jw_kbool(&w, "fresh", jm->fresh);
	alx_jw_key(&w, "limits");
	alx_jw_obj_begin(&w);
	alx_jw_kint(&w, "timeout_s", jm->timeout_s);
	alx_jw_kint(&w, "memory_mb", jm->memory_mb);
	alx_jw_kstr(&w, "network", alx_net_name(jm->net_mode));
	alx_jw_obj_end(&w);
	alx_jw_key(&w, "requirements");
	alx_jw_arr_begin(&w);
	for (i = 0; i < jm->nreqs; i++)
		alx_jw_str(&w, jm->reqs[i]);
	alx_jw_arr_end(&w);
	if (jm->tree != NULL) {
		alx_jw_key(&w, "tree");
		alx_jw_raw(&w, jm->tree, strlen(jm->tree));
	}
	alx_jw_obj_end(&w);
	r = alx_jw_finish(&w, json, len);
	alx_jw_free(&w);
	return r;
}

static int
alx_jobmeta_get_limits(struct alx_jobmeta *jm, const struct alx_json *j)
{
	char	*net = NULL;
	int	 lim, r;

	if ((lim = alx_json_obj_get(j, 0, "limits")) < 0)
		return ALX_OK;
	if (alx_json_type(j, lim) != ALX_JSON_OBJECT)
		return ALX_ERR_TYPE;
	if (alx_json_has(j, lim, "timeout_s") &&
	    (r = alx_json_get_int(j, lim, "timeout_s", &jm->timeout_s, 0,
	    ALX_JSON_INT_MAX)) != ALX_OK)
		return r;
	if (alx_json_has(j, lim, "memory_mb") &&
	    (r = alx_json_get_int(j, lim, "memory_mb", &jm->memory_mb, 0,
	    ALX_JSON_INT_MAX)) != ALX_OK)
		return r;
	if (alx_json_has(j, lim, "network")) {
		if ((r = alx_json_get_str(j, lim, "network", &net, 8)) != ALX_OK)
			return r;
		r = alx_net_parse(net, &jm->net_mode);
		free(net);
		return r;
	}
	return ALX_OK;
}

/* An input's name: one path component, no control character. */
int
alx_input_name_valid(const char *name)
{
	return alx_relpath_valid(name) && strchr(name, '/') == NULL;
}

static int
alx_jobmeta_get_inputs(struct alx_jobmeta *jm, const struct alx_json *j)
{
	struct alx_job_input	*in;
	size_t			 k;
	int			 arr, n, i, t, r;

	if ((arr = alx_json_obj_get(j, 0, "inputs")) < 0)
		return ALX_OK;
	if ((n = alx_json_arr_len(j, arr)) < 0)
		return ALX_ERR_TYPE;
	if (n > ALX_JOB_MAX_INPUTS)
		return ALX_ERR_TOO_LARGE;
	if (n == 0)
		return ALX_OK;
	if ((jm->inputs = calloc((size_t)n, sizeof(*jm->inputs))) == NULL)
		return ALX_ERR_NOMEM;
	for (i = 0; i < n; i++) {
		in = &jm->inputs[i];
		t = alx_json_arr_at(j, arr, i);
		jm->ninputs++;
		if (alx_json_type(j, t) != ALX_JSON_OBJECT)
			return ALX_ERR_TYPE;
		if ((r = alx_json_get_b64(j, t, "id", in->id,
		    ALX_ID_LEN)) != ALX_OK ||
		    (r = alx_json_get_str(j, t, "name", &in->name,
		    ALX_JOB_PATH_MAX)) != ALX_OK ||
		    (r = alx_json_get_int(j, t, "size", &in->size, 0,
		    ALX_ITEM_MAX_SIZE)) != ALX_OK)
			return r;
		if (!alx_input_name_valid(in->name))
			return ALX_ERR_BAD_PATH;
		/* Two inputs of one name: which would the job see? */
		for (k = 0; k + 1 < jm->ninputs; k++)
			if (strcmp(jm->inputs[k].name, in->name) == 0)
				return ALX_ERR_EXISTS;
	}
	return ALX_OK;
}

/*
 * argv: 1 to ALX_JOB_ARGV_MAX strings without NUL, the first not empty,
 * at most ALX_JOB_CMD_MAX bytes in all (empty words are words).
 */
static int
alx_jobmeta_get_argv(struct alx_jobmeta *jm, const struct alx_json *j,
    int arr)
{
	size_t	len, total = 0;
	int	i, n, r;

	if ((n = alx_json_arr_len(j, arr)) < 0)
		return ALX_ERR_TYPE;
	if (n == 0)
		return ALX_ERR_MISSING;
	if (n > ALX_JOB_ARGV_MAX)
		return ALX_ERR_TOO_LARGE;
	if ((jm->argv = calloc((size_t)n, sizeof(*jm->argv))) == NULL)
		return ALX_ERR_NOMEM;
	for (i = 0; i < n; i++) {
		if ((r = alx_json_str(j, alx_json_arr_at(j, arr, i),
		    &jm->argv[i], &len)) != ALX_OK)
			return r;
		jm->argc++;
		if (memchr(jm->argv[i], '\0', len) != NULL)
			return ALX_ERR_INVALID;
		if ((total += len + 1) > ALX_JOB_CMD_MAX)
			return ALX_ERR_TOO_LARGE;
	}
	return jm->argv[0][0] == '\0' ? ALX_ERR_INVALID : ALX_OK;
}

/* A shell job has exactly one of cmd (for /bin/sh -c) and argv. */
static int
alx_jobmeta_get_command(struct alx_jobmeta *jm, const struct alx_json *j)
{
	int	t;

	if ((t = alx_json_obj_get(j, 0, "argv")) < 0)
		return alx_json_get_str(j, 0, "cmd", &jm->cmd, ALX_JOB_CMD_MAX);
	if (alx_json_has(j, 0, "cmd"))
		return ALX_ERR_INVALID;
	return alx_jobmeta_get_argv(jm, j, t);
}

int
alx_jobmeta_decode(struct alx_jobmeta *jm, const char *json, size_t len)
{
	struct alx_json	*j;
	const char	*raw;
	char		*kind = NULL;
	size_t		 rawlen;
	int		 t, r;

	memset(jm, 0, sizeof(*jm));
	if ((r = alx_body_begin(&j, (const uint8_t *)json, len,
	    ALX_META_MAX)) != ALX_OK)
		return r;
	if ((r = alx_json_get_str(j, 0, "kind", &kind, 16)) != ALX_OK ||
	    (r = alx_job_kind_parse(kind, &jm->kind)) != ALX_OK)
		goto out;
	if (jm->kind == ALX_JOBKIND_SHELL) {
		if ((r = alx_jobmeta_get_command(jm, j)) != ALX_OK)
			goto out;
	} else {
		if ((t = alx_json_obj_get(j, 0, "file")) < 0) {
			r = ALX_ERR_MISSING;
			goto out;
		}
		if ((r = alx_json_get_str(j, t, "name", &jm->file,
		    ALX_JOB_PATH_MAX)) != ALX_OK)
			goto out;
		if (!alx_relpath_valid(jm->file) || strchr(jm->file, '/')) {
			r = ALX_ERR_BAD_PATH;
			goto out;
		}
	}
	if ((r = alx_json_get_str(j, 0, "cwd", &jm->cwd,
	    ALX_JOB_PATH_MAX)) != ALX_OK)
		goto out;
	if (jm->cwd[0] != '\0' && !alx_relpath_valid(jm->cwd)) {
		r = ALX_ERR_BAD_PATH;
		goto out;
	}
	if (alx_json_has(j, 0, "fresh") &&
	    (r = alx_json_get_bool(j, 0, "fresh", &jm->fresh)) != ALX_OK)
		goto out;
	if ((r = alx_jobmeta_get_inputs(jm, j)) != ALX_OK ||
	    (r = alx_jobmeta_get_limits(jm, j)) != ALX_OK)
		goto out;
	if ((t = alx_json_obj_get(j, 0, "requirements")) >= 0 &&
	    (r = alx_strlist_decode(j, t, ALX_JOB_MAX_REQS, 100,
	    alx_name_is_pkg, &jm->reqs, &jm->nreqs)) != ALX_OK)
		goto out;
	if ((t = alx_json_obj_get(j, 0, "tree")) >= 0) {
		if (alx_json_type(j, t) != ALX_JSON_OBJECT) {
			r = ALX_ERR_TYPE;
			goto out;
		}
		alx_json_raw(j, t, &raw, &rawlen);
		if ((jm->tree = strndup(raw, rawlen)) == NULL)
			r = ALX_ERR_NOMEM;
	}
out:
	free(kind);
	alx_json_free(j);
	if (r != ALX_OK)
		alx_jobmeta_free(jm);
	return r;
}

void
alx_resultmeta_free(struct alx_resultmeta *rm)
{
	size_t	i;

	free(rm->out);
	free(rm->err);
	for (i = 0; i < rm->nfiles; i++)
		free(rm->files[i].name);
	free(rm->files);
	free(rm->env);
	memset(rm, 0, sizeof(*rm));
}

static const char *const alx_stream_names[ALX_OUT_STREAMS] = {
	"stdout", "stderr"
};

static void
alx_resultmeta_output_encode(struct alx_jw *w,
    const struct alx_result_output *o)
{
	int	i;

	alx_jw_key(w, "output");
	alx_jw_obj_begin(w);
	alx_jw_kint(w, "progress", o->progress);
	if (o->progress > 0)
		alx_jw_kb64(w, "last", o->last, ALX_HASH_LEN);
	for (i = 0; i < ALX_OUT_STREAMS; i++) {
		alx_jw_key(w, alx_stream_names[i]);
		alx_jw_obj_begin(w);
		alx_jw_kint(w, "size", o->s[i].size);
		alx_jw_kb64(w, "sha256", o->s[i].sha256, ALX_HASH_LEN);
		alx_jw_kint(w, "dropped", o->s[i].dropped);
		alx_jw_obj_end(w);
	}
	if (o->cut[0] != '\0')
		alx_jw_kstr(w, "cut", o->cut);
	alx_jw_obj_end(w);
}

/* A limit's name: [a-z_]{1,31}. */
static int
alx_cut_valid(const char *s)
{
	size_t	i, n = strlen(s);

	if (n == 0 || n > ALX_REASON_MAX)
		return 0;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || s[i] == '_'))
			return 0;
	return 1;
}

static int
alx_resultmeta_get_output(struct alx_resultmeta *rm, const struct alx_json *j)
{
	struct alx_result_output	*o = &rm->output;
	char				*cut = NULL;
	int				 t, st, i, r;

	if ((t = alx_json_obj_get(j, 0, "output")) < 0)
		return ALX_OK;
	if (alx_json_type(j, t) != ALX_JSON_OBJECT)
		return ALX_ERR_TYPE;
	o->has = 1;
	if ((r = alx_json_get_int(j, t, "progress", &o->progress, 0,
	    ALX_JSON_INT_MAX)) != ALX_OK)
		return r;
	if (o->progress > 0 && (r = alx_json_get_b64(j, t, "last", o->last,
	    ALX_HASH_LEN)) != ALX_OK)
		return r;
	if (o->progress == 0 && alx_json_has(j, t, "last"))
		return ALX_ERR_INVALID;
	for (i = 0; i < ALX_OUT_STREAMS; i++) {
		if ((st = alx_json_obj_get(j, t, alx_stream_names[i])) < 0)
			return ALX_ERR_MISSING;
		if (alx_json_type(j, st) != ALX_JSON_OBJECT)
			return ALX_ERR_TYPE;
		if ((r = alx_json_get_int(j, st, "size", &o->s[i].size, 0,
		    ALX_JSON_INT_MAX)) != ALX_OK ||
		    (r = alx_json_get_b64(j, st, "sha256", o->s[i].sha256,
		    ALX_HASH_LEN)) != ALX_OK ||
		    (r = alx_json_get_int(j, st, "dropped", &o->s[i].dropped,
		    0, ALX_JSON_INT_MAX)) != ALX_OK)
			return r;
	}
	if (alx_json_has(j, t, "cut")) {
		if ((r = alx_json_get_str(j, t, "cut", &cut,
		    ALX_REASON_MAX)) != ALX_OK)
			return r;
		if (!alx_cut_valid(cut)) {
			free(cut);
			return ALX_ERR_INVALID;
		}
		strcpy(o->cut, cut);
		free(cut);
	}
	return ALX_OK;
}

int
alx_resultmeta_encode(const struct alx_resultmeta *rm, char **json,
    size_t *len)
{
	struct alx_jw	w;
	size_t		i;
	int		r;

	alx_jw_init(&w, ALX_META_MAX);
	alx_jw_obj_begin(&w);
	alx_jw_kint(&w, "v", ALX_PROTO_VERSION);
	alx_jw_kb64(&w, "job", rm->job, ALX_ID_LEN);
	alx_jw_kb64(&w, "job_hash", rm->job_hash, ALX_HASH_LEN);
	alx_jw_kstr(&w, "status", alx_job_status_name(rm->status));
	if (rm->reason[0] != '\0')
		alx_jw_kstr(&w, "reason", rm->reason);
	if (rm->has_exit)
		alx_jw_kint(&w, "exit_code", rm->exit_code);
	if (rm->signal != 0)
		alx_jw_kint(&w, "signal", rm->signal);
	alx_jw_kstr(&w, "stdout", rm->out != NULL ? rm->out : "");
	alx_jw_kstr(&w, "stderr", rm->err != NULL ? rm->err : "");
	alx_jw_kbool(&w, "stdout_truncated", rm->out_truncated);
	alx_jw_kbool(&w, "stderr_truncated", rm->err_truncated);
	if (rm->output.has)
		alx_resultmeta_output_encode(&w, &rm->output);
	alx_jw_kint(&w, "duration_ms", rm->duration_ms);
	alx_jw_kint(&w, "peak_memory", rm->peak_memory);
	alx_jw_key(&w, "files");
	alx_jw_arr_begin(&w);
	for (i = 0; i < rm->nfiles; i++) {
		alx_jw_obj_begin(&w);
		alx_jw_kstr(&w, "name", rm->files[i].name);
		alx_jw_kint(&w, "size", rm->files[i].size);
		alx_jw_obj_end(&w);
	}
	alx_jw_arr_end(&w);
	alx_jw_key(&w, "env");
	if (rm->env != NULL)
		alx_jw_raw(&w, rm->env, strlen(rm->env));
	else {
		alx_jw_obj_begin(&w);
		alx_jw_obj_end(&w);
	}
	alx_jw_kint(&w, "denied", rm->denied);
	alx_jw_obj_end(&w);
	r = alx_jw_finish(&w, json, len);
	alx_jw_free(&w);
	return r;
}

static int
alx_resultmeta_get_files(struct alx_resultmeta *rm, const struct alx_json *j)
{
	int	arr, n, i, t, r;

	if ((arr = alx_json_obj_get(j, 0, "files")) < 0)
		return ALX_OK;
	if ((n = alx_json_arr_len(j, arr)) < 0)
		return ALX_ERR_TYPE;
	if (n > ALX_RESULT_MAX_FILES)
		return ALX_ERR_TOO_LARGE;
	if (n == 0)
		return ALX_OK;
	if ((rm->files = calloc((size_t)n, sizeof(*rm->files))) == NULL)
		return ALX_ERR_NOMEM;
	for (i = 0; i < n; i++) {
		t = alx_json_arr_at(j, arr, i);
		rm->nfiles++;
		if ((r = alx_json_get_str(j, t, "name", &rm->files[i].name,
		    ALX_JOB_PATH_MAX)) != ALX_OK)
			return r;
		if (!alx_relpath_valid(rm->files[i].name))
			return ALX_ERR_BAD_PATH;
		if ((r = alx_json_get_int(j, t, "size", &rm->files[i].size, 0,
		    ALX_ITEM_MAX_SIZE)) != ALX_OK)
			return r;
	}
	return ALX_OK;
}

int
alx_resultmeta_decode(struct alx_resultmeta *rm, const char *json, size_t len)
{
	struct alx_json	*j;
	const char	*raw;
	char		*s = NULL;
	size_t		 rawlen;
	int		 t, r;

	memset(rm, 0, sizeof(*rm));
	rm->peak_memory = -1;
	if ((r = alx_body_begin(&j, (const uint8_t *)json, len,
	    ALX_META_MAX)) != ALX_OK)
		return r;
	if ((r = alx_json_get_b64(j, 0, "job", rm->job, ALX_ID_LEN)) != ALX_OK ||
	    (r = alx_json_get_b64(j, 0, "job_hash", rm->job_hash,
	    ALX_HASH_LEN)) != ALX_OK ||
	    (r = alx_json_get_str(j, 0, "status", &s, 16)) != ALX_OK ||
	    (r = alx_job_status_parse(s, &rm->status)) != ALX_OK)
		goto out;
	free(s);
	s = NULL;
	if (rm->status == ALX_JOB_LOST) {	/* only a client's verdict */
		r = ALX_ERR_INVALID;
		goto out;
	}
	if (alx_json_has(j, 0, "reason")) {
		if ((r = alx_json_get_str(j, 0, "reason", &s,
		    ALX_REASON_MAX)) != ALX_OK)
			goto out;
		if (alx_refusal_valid(s) != ALX_OK) {
			r = ALX_ERR_INVALID;
			goto out;
		}
		strcpy(rm->reason, s);
	}
	if (alx_json_has(j, 0, "exit_code")) {
		if ((r = alx_json_get_int(j, 0, "exit_code", &rm->exit_code,
		    0, 255)) != ALX_OK)
			goto out;
		rm->has_exit = 1;
	}
	if ((alx_json_has(j, 0, "signal") && (r = alx_json_get_int(j, 0,
	    "signal", &rm->signal, 0, 128)) != ALX_OK) ||
	    (r = alx_json_get_str(j, 0, "stdout", &rm->out,
	    ALX_RESULT_TEXT_MAX)) != ALX_OK ||
	    (r = alx_json_get_str(j, 0, "stderr", &rm->err,
	    ALX_RESULT_TEXT_MAX)) != ALX_OK ||
	    (r = alx_json_get_bool(j, 0, "stdout_truncated",
	    &rm->out_truncated)) != ALX_OK ||
	    (r = alx_json_get_bool(j, 0, "stderr_truncated",
	    &rm->err_truncated)) != ALX_OK ||
	    (r = alx_resultmeta_get_output(rm, j)) != ALX_OK ||
	    (r = alx_json_get_int(j, 0, "duration_ms", &rm->duration_ms, 0,
	    ALX_JSON_INT_MAX)) != ALX_OK ||
	    (r = alx_json_get_int(j, 0, "peak_memory", &rm->peak_memory, -1,
	    ALX_JSON_INT_MAX)) != ALX_OK ||
	    (r = alx_resultmeta_get_files(rm, j)) != ALX_OK)
		goto out;
	if (alx_json_has(j, 0, "denied") && (r = alx_json_get_int(j, 0,
	    "denied", &rm->denied, 0, ALX_JSON_INT_MAX)) != ALX_OK)
		goto out;
	if ((t = alx_json_obj_get(j, 0, "env")) >= 0) {
		if (alx_json_type(j, t) != ALX_JSON_OBJECT) {
			r = ALX_ERR_TYPE;
			goto out;
		}
		alx_json_raw(j, t, &raw, &rawlen);
		if ((rm->env = strndup(raw, rawlen)) == NULL)
			r = ALX_ERR_NOMEM;
	}
out:
	free(s);
	alx_json_free(j);
	if (r != ALX_OK)
		alx_resultmeta_free(rm);
	return r;
}

int
alx_resultmeta_check_job(const struct alx_resultmeta *rm,
    const uint8_t id[ALX_ID_LEN], const uint8_t hash[ALX_HASH_LEN])
{
	if (!alx_ct_eq(rm->job, id, ALX_ID_LEN))
		return ALX_ERR_NOT_FOUND;
	if (!alx_ct_eq(rm->job_hash, hash, ALX_HASH_LEN))
		return ALX_ERR_BAD_HASH;
	return ALX_OK;
}

void
alx_progressmeta_free(struct alx_progressmeta *pm)
{
	memset(pm, 0, sizeof(*pm));
}

int
alx_progressmeta_encode(const struct alx_progressmeta *pm, char **json,
    size_t *len)
{
	struct alx_jw	w;
	int		r;

	alx_jw_init(&w, ALX_META_MAX);
	alx_jw_obj_begin(&w);
	alx_jw_kint(&w, "v", ALX_PROTO_VERSION);
	alx_jw_kb64(&w, "job", pm->job, ALX_ID_LEN);
	alx_jw_kint(&w, "seq", pm->seq);
	alx_jw_kint(&w, "stdout_size", pm->size[ALX_OUT_STDOUT]);
	alx_jw_kint(&w, "stderr_size", pm->size[ALX_OUT_STDERR]);
	alx_jw_obj_end(&w);
	r = alx_jw_finish(&w, json, len);
	alx_jw_free(&w);
	return r;
}

int
alx_progressmeta_decode(struct alx_progressmeta *pm, const char *json,
    size_t len)
{
	struct alx_json	*j;
	int		 r;

	memset(pm, 0, sizeof(*pm));
	if ((r = alx_body_begin(&j, (const uint8_t *)json, len,
	    ALX_META_MAX)) != ALX_OK)
		return r;
	if ((r = alx_json_get_b64(j, 0, "job", pm->job, ALX_ID_LEN)) != ALX_OK ||
	    (r = alx_json_get_int(j, 0, "seq", &pm->seq, 1,
	    ALX_JSON_INT_MAX)) != ALX_OK ||
	    (r = alx_json_get_int(j, 0, "stdout_size",
	    &pm->size[ALX_OUT_STDOUT], 0, ALX_ITEM_MAX_SIZE)) != ALX_OK ||
	    (r = alx_json_get_int(j, 0, "stderr_size",
	    &pm->size[ALX_OUT_STDERR], 0, ALX_ITEM_MAX_SIZE)) != ALX_OK)
		alx_progressmeta_free(pm);
	alx_json_free(j);
	return r;
}

/* Length of the UTF-8 sequence a lead byte starts; 0 for a bad lead. */
static size_t
alx_utf8_seqlen(uint8_t c)
{
	if (c >= 0x01 && c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return 2;
	if (c >= 0xe0 && c <= 0xef)
		return 3;
	if (c >= 0xf0 && c <= 0xf4)
		return 4;
	return 0;
}

char *
alx_utf8_sanitize(const char *in, size_t len, size_t *outlen)
{
	const uint8_t	*p = (const uint8_t *)in;
	char		*out, *o;
	size_t		 i = 0, n;

	/* Worst case: every byte becomes U+FFFD (3 bytes). */
	if (len > (SIZE_MAX - 1) / 3 || (out = malloc(len * 3 + 1)) == NULL)
		return NULL;
	o = out;
	while (i < len) {
		n = alx_utf8_seqlen(p[i]);
		if (n > 0 && i + n <= len &&
		    alx_utf8_valid(p + i, n) == ALX_OK) {
			memcpy(o, p + i, n);
			o += n;
			i += n;
			continue;
		}
		memcpy(o, "\xef\xbf\xbd", 3);	/* U+FFFD for a bad byte */
		o += 3;
		i++;
	}
	*o = '\0';
	if (outlen != NULL)
		*outlen = (size_t)(o - out);
	return out;
}

/*
 * runner-audit.c: the audit log of every job the runner accepted or
 * refused, as JSON lines in its state dir (0600) and in its log. It holds
 * who, what, when and the outcome, never a job's content.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "runnerd.h"

int
runner_audit_open(struct runner_audit *a, const char *statedir)
{
	char	path[PATH_MAX];
	int	fd;

	a->fp = NULL;
	if ((size_t)snprintf(path, sizeof(path), "%s/audit.log", statedir) >=
	    sizeof(path))
		return ALX_ERR_INVALID;
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
	    0600);
	if (fd == -1)
		return ALX_ERR_IO;
	if ((a->fp = fdopen(fd, "a")) == NULL) {
		close(fd);
		return ALX_ERR_IO;
	}
	return ALX_OK;
}

void
runner_audit_close(struct runner_audit *a)
{
	if (a->fp != NULL)
		fclose(a->fp);
	a->fp = NULL;
}

void
runner_audit(struct runner_audit *a, const uint8_t job[ALX_ID_LEN],
    const uint8_t author[ALX_FP_LEN], const char *author_name,
    const char *what, const char *outcome, const char *detail)
{
	struct alx_jw	 w;
	char		 jobs[ALX_B64_ENCLEN(ALX_ID_LEN) + 1];
	char		 fps[ALX_FP_STRLEN + 1];
	char		*line = NULL;
	size_t		 len;

	alx_b64_encode(jobs, job, ALX_ID_LEN);
	alx_b64_encode(fps, author, ALX_FP_LEN);
	log_info("audit: job %s from %s (%s): %s %s%s%s", jobs, fps,
	    author_name != NULL ? author_name : "?", what, outcome,
	    detail != NULL ? " " : "", detail != NULL ? detail : "");
	if (a == NULL || a->fp == NULL)
		return;
	alx_jw_init(&w, 4096);
	alx_jw_obj_begin(&w);
	alx_jw_kint(&w, "time", (int64_t)time(NULL));
	alx_jw_kstr(&w, "job", jobs);
	alx_jw_kstr(&w, "author", fps);
	if (author_name != NULL)
		alx_jw_kstr(&w, "name", author_name);
	alx_jw_kstr(&w, "what", what);
	alx_jw_kstr(&w, "outcome", outcome);
	if (detail != NULL)
		alx_jw_kstr(&w, "detail", detail);
	alx_jw_obj_end(&w);
	if (alx_jw_finish(&w, &line, &len) == ALX_OK) {
		fprintf(a->fp, "%s\n", line);
		fflush(a->fp);
	}
	alx_jw_free(&w);
	free(line);
}

/*
 * runner-output.c: a job's whole stdout and stderr, from the sandbox's
 * pipes to the progress items that carry them (protocol.md section 8.3).
 *
 * Output is redacted as it comes (runner_redact_stream) and appended to a
 * spool file per stream in the job's folder, outside the sandbox, up to
 * the job's cap; memory stays bounded whatever the job writes. The runner
 * posts the spools in pieces: each piece is the next stretch of stdout
 * and of stderr, written to a scratch file that becomes a progress item's
 * payload. A piece counts as posted only when the relay took it; until
 * then it is offered again (a relay that is away delays output, it does
 * not lose it). The result then binds the whole: the number of progress
 * items, the hash of the last, each stream's size and SHA-256, and what
 * was dropped and why.
 *
 * This file does no network I/O: runner-loop.c posts what it prepares.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runnerd.h"

#define OUTPUT_IDLE_MS	300	/* an open line waits no longer */

static const char *const output_names[ALX_OUT_STREAMS] = {
	"stdout", "stderr"
};

void
runner_output_init(struct runner_output *o)
{
	memset(o, 0, sizeof(*o));
	o->fd[0] = o->fd[1] = o->piece_fd = -1;
}

int
runner_output_open(struct runner_output *o, const char *jobdir,
    int64_t cap, const struct redact_rule *rules, size_t nrules)
{
	char	path[PATH_MAX];
	int	i, r;

	runner_output_init(o);
	o->cap = cap;
	alx_buf_init(&o->scratch, 0);
	if (nrules > RUNNER_OUTPUT_RULES)
		nrules = RUNNER_OUTPUT_RULES;
	memcpy(o->rules, rules, nrules * sizeof(*rules));
	o->nrules = nrules;
	for (i = 0; i < ALX_OUT_STREAMS; i++) {
		alx_sha256_init(&o->sha[i]);
		if ((r = runner_redact_stream_init(&o->red[i], o->rules,
		    o->nrules)) != ALX_OK)
			return r;
		if ((r = runner_pathf(path, sizeof(path), "%s/%s.spool", jobdir,
		    output_names[i])) != ALX_OK)
			return r;
		if ((o->fd[i] = open(path, O_RDWR | O_CREAT | O_EXCL |
		    O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600)) == -1)
			return ALX_ERR_IO;
	}
	if ((r = runner_pathf(path, sizeof(path), "%s/piece", jobdir)) !=
	    ALX_OK)
		return r;
	if ((o->piece_fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600)) == -1)
		return ALX_ERR_IO;
	o->open = 1;
	return ALX_OK;
}

void
runner_output_free(struct runner_output *o)
{
	int	i;

	for (i = 0; i < ALX_OUT_STREAMS; i++) {
		if (o->fd[i] != -1)
			close(o->fd[i]);
		runner_redact_stream_free(&o->red[i]);
	}
	if (o->piece_fd != -1)
		close(o->piece_fd);
	alx_buf_free(&o->scratch);
	alx_wipe(o->sha, sizeof(o->sha));
	runner_output_init(o);
}

/* Note why output stops coming back (the first reason stays). */
static void
runner_output_cut(struct runner_output *o, const char *why)
{
	if (o->cut[0] == '\0')
		snprintf(o->cut, sizeof(o->cut), "%s", why);
}

/* Append redacted bytes to a spool, within the cap. */
static void
runner_output_spool(struct runner_output *o, int i, const uint8_t *p,
    size_t len)
{
	int64_t	room = o->cap - o->written[0] - o->written[1];
	size_t	keep = len, done = 0;
	ssize_t	n;

	if (o->cut[0] != '\0')	/* a stream already cut: the rest is too */
		room = 0;
	if (room < 0)
		room = 0;
	if ((int64_t)keep > room) {
		keep = (size_t)room;
		runner_output_cut(o, "item_max");
	}
	while (done < keep) {
		n = write(o->fd[i], p + done, keep - done);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0) {
			runner_output_cut(o, "io_error");
			break;
		}
		done += (size_t)n;
	}
	o->written[i] += (int64_t)done;
	o->dropped[i] += (int64_t)(len - done);
}

void
runner_output_add(struct runner_output *o, int stream, const char *buf,
    size_t len, int64_t now_ms)
{
	int	i = stream == 2 ? ALX_OUT_STDERR : ALX_OUT_STDOUT;

	if (!o->open)
		return;
	o->last_add = now_ms;
	if (o->cut[0] != '\0') {	/* nothing more is kept: count it */
		o->dropped[i] += (int64_t)len;
		return;
	}
	alx_buf_reset(&o->scratch);
	if (runner_redact_stream(&o->red[i], buf, len, 0, &o->scratch) !=
	    ALX_OK)
		runner_output_cut(o, "no_memory");
	runner_output_spool(o, i, o->scratch.data, o->scratch.len);
}

void
runner_output_idle(struct runner_output *o, int64_t now_ms)
{
	struct alx_buf	red;
	int		i;

	if (!o->open || o->ended || now_ms - o->last_add < OUTPUT_IDLE_MS)
		return;
	for (i = 0; i < ALX_OUT_STREAMS; i++) {
		if (o->red[i].ncarry == 0)
			continue;
		/* A line still open: out it goes, decided as it stands. */
		alx_buf_init(&red, 0);
		if (runner_redact_stream(&o->red[i], NULL, 0, 1, &red) ==
		    ALX_OK)
			runner_output_spool(o, i, red.data, red.len);
		alx_buf_free(&red);
	}
}

void
runner_output_end(struct runner_output *o)
{
	struct alx_buf	red;
	int		i;

	if (!o->open || o->ended)
		return;
	for (i = 0; i < ALX_OUT_STREAMS; i++) {
		alx_buf_init(&red, 0);
		if (runner_redact_stream(&o->red[i], NULL, 0, 1, &red) ==
		    ALX_OK)
			runner_output_spool(o, i, red.data, red.len);
		alx_buf_free(&red);
	}
	o->ended = 1;
}

int64_t
runner_output_pending(const struct runner_output *o)
{
	return o->written[0] - o->posted[0] + o->written[1] - o->posted[1];
}

/* Copy len bytes at off of fd to the piece file, hashing them into sha. */
static int
runner_output_copy(int fd, int64_t off, int64_t len, int out,
    struct alx_sha256_ctx *sha)
{
	uint8_t	buf[65536];
	size_t	want;
	ssize_t	n;

	while (len > 0) {
		want = len < (int64_t)sizeof(buf) ? (size_t)len : sizeof(buf);
		if ((n = pread(fd, buf, want, (off_t)off)) <= 0)
			return ALX_ERR_IO;
		alx_sha256_update(sha, buf, (size_t)n);
		if (write(out, buf, (size_t)n) != n)
			return ALX_ERR_IO;
		off += n;
		len -= n;
	}
	return ALX_OK;
}

int
runner_output_piece(struct runner_output *o, const uint8_t job[ALX_ID_LEN],
    int64_t max, struct runner_piece *pc)
{
	int64_t	avail[ALX_OUT_STREAMS], take[ALX_OUT_STREAMS];
	int	i, r;

	memset(pc, 0, sizeof(*pc));
	for (i = 0; i < ALX_OUT_STREAMS; i++)
		avail[i] = o->written[i] - o->posted[i];
	if (avail[0] + avail[1] == 0)
		return ALX_ERR_NOT_FOUND;
	/* Each stream gets half a piece when both have more. */
	take[1] = avail[1] < max / 2 ? avail[1] : max / 2;
	take[0] = avail[0] < max - take[1] ? avail[0] : max - take[1];
	take[1] = avail[1] < max - take[0] ? avail[1] : max - take[0];
	if (ftruncate(o->piece_fd, 0) != 0 || lseek(o->piece_fd, 0,
	    SEEK_SET) != 0)
		return ALX_ERR_IO;
	for (i = 0; i < ALX_OUT_STREAMS; i++) {
		pc->sha[i] = o->sha[i];
		if ((r = runner_output_copy(o->fd[i], o->posted[i], take[i],
		    o->piece_fd, &pc->sha[i])) != ALX_OK)
			return r;
		pc->pm.size[i] = take[i];
	}
	memcpy(pc->pm.job, job, ALX_ID_LEN);
	pc->pm.seq = o->seq + 1;
	pc->fd = o->piece_fd;
	pc->size = take[0] + take[1];
	return ALX_OK;
}

void
runner_output_posted(struct runner_output *o, struct runner_piece *pc,
    const uint8_t hash[ALX_HASH_LEN])
{
	int	i;

	for (i = 0; i < ALX_OUT_STREAMS; i++) {
		o->posted[i] += pc->pm.size[i];
		o->sha[i] = pc->sha[i];
	}
	o->seq = pc->pm.seq;
	memcpy(o->last, hash, ALX_HASH_LEN);
	alx_wipe(pc, sizeof(*pc));
}

void
runner_output_refused(struct runner_output *o, const char *why)
{
	runner_output_cut(o, why);
	o->closed = 1;
}

void
runner_output_result(struct runner_output *o, struct alx_result_output *ro)
{
	struct alx_sha256_ctx	sha;
	int			i;

	memset(ro, 0, sizeof(*ro));
	if (!o->open)
		return;
	ro->has = 1;
	ro->progress = o->seq;
	memcpy(ro->last, o->last, ALX_HASH_LEN);
	for (i = 0; i < ALX_OUT_STREAMS; i++) {
		sha = o->sha[i];
		alx_sha256_final(&sha, ro->s[i].sha256);
		ro->s[i].size = o->posted[i];
		/* Spooled, but never taken by the relay: dropped too. */
		ro->s[i].dropped = o->dropped[i] + o->written[i] - o->posted[i];
	}
	if ((ro->s[0].dropped > 0 || ro->s[1].dropped > 0) &&
	    o->cut[0] != '\0')
		snprintf(ro->cut, sizeof(ro->cut), "%s", o->cut);
}

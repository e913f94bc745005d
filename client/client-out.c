/*
 * client-out.c: what the client prints. Text for people by default; with
 * --json one JSON object per line on stdout, written by libairlox's JSON
 * writer. Exit codes are defined once, here, and documented in airlox(1)
 * (the consistency test compares the two).
 */
#include "config.h"

#include <sys/stat.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "airlox.h"
#include "client.h"

static int	out_is_json;
/* The last byte out_safe() wrote to stdout and stderr (0: none yet), and
 * which of the two it wrote last. */
static int	out_tail_out, out_tail_err;
static FILE	*out_tail_last;

/* Exit statuses of every command (airlox run adds its own later). */
const struct exit_code exit_codes[] = {
	{ EXIT_OK, "ok", "success" },
	{ EXIT_FAIL, "failure", "an error not listed below" },
	{ EXIT_USAGE, "usage", "bad command line" },
	{ EXIT_ACCESS, "access", "the invite or participant may not do "
	    "this: bad_invite, wrong_role, revoked, not_a_participant, "
	    "forbidden, unknown_key" },
	{ EXIT_GONE, "gone", "the session or object is gone: "
	    "session_expired, not_found, expired, cursor_gone" },
	{ EXIT_NET, "relay_unavailable", "the relay could not be reached, "
	    "stalled past --stall-timeout, sent a broken event stream, or "
	    "kept failing after retries: io_error, not_ready, rate_limited, "
	    "too_many_connections, insufficient_storage" },
	{ EXIT_VERIFY, "verification_failed", "the relay served something "
	    "that does not verify (bad_signature, bad_order, replayed, "
	    "bad_hash, bad_ciphertext, bad_key_commitment, wrong_session, "
	    "manifest_rollback), or its TLS certificate does not" },
	{ EXIT_TIMEOUT, "timeout", "nothing arrived before --timeout, or a "
	    "transfer code expired" },
	{ EXIT_CODE, "code_failed", "a transfer code was wrong or "
	    "cancelled: bad_code, pake_failed, too_many_failures" },
	{ 120, "run_refused", "the runner refused the job (the reason is in "
	    "the result)" },
	{ 121, "run_cancelled", "the job was cancelled" },
	{ 122, "run_lost", "no result arrived in time, or the runner was "
	    "interrupted" },
	{ 123, "run_killed", "the job was killed for memory or workspace disk" },
	{ 124, "run_timeout", "the job ran past its time limit" },
	{ 125, "run_error", "the job ended without an exit code" },
	{ EXIT_INTERRUPTED, "interrupted", "stopped by a signal (Ctrl-C)" },
	{ -1, NULL, NULL }
};

void
out_init(int json)
{
	out_is_json = json;
}

int
out_json(void)
{
	return out_is_json;
}

int
out_exit_for(int err)
{
	if (alxs_err_net(err))
		return EXIT_NET;
	if (alxs_err_verify(err))
		return EXIT_VERIFY;
	switch (err) {
	case ALX_OK:
		return EXIT_OK;
	case ALX_ERR_BAD_INVITE:
	case ALX_ERR_WRONG_ROLE:
	case ALX_ERR_REVOKED:
	case ALX_ERR_NOT_PARTICIPANT:
	case ALX_ERR_FORBIDDEN:
	case ALX_ERR_UNKNOWN_KEY:
	case ALX_ERR_NOT_RECIPIENT:
		return EXIT_ACCESS;
	case ALX_ERR_SESSION_EXPIRED:
	case ALX_ERR_NOT_FOUND:
	case ALX_ERR_EXPIRED:
	case ALX_ERR_CURSOR_GONE:
		return EXIT_GONE;
	case ALX_ERR_BAD_CODE:
	case ALX_ERR_PAKE:
	case ALX_ERR_TOO_MANY_FAILS:
		return EXIT_CODE;
	default:
		return EXIT_FAIL;
	}
}

void
out_text(const char *fmt, ...)
{
	va_list	ap;

	if (out_is_json)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}

void
out_obj_begin(struct alx_jw *jw)
{
	alx_jw_init(jw, 16 * 1024 * 1024);
	alx_jw_obj_begin(jw);
}

int
out_obj_end(struct alx_jw *jw)
{
	char	*s;
	size_t	 len;
	int	 r;

	alx_jw_obj_end(jw);
	if ((r = alx_jw_finish(jw, &s, &len)) != 0) {
		alx_jw_free(jw);
		return r;
	}
	fwrite(s, 1, len, stdout);
	fputc('\n', stdout);
	fflush(stdout);
	alx_wipe(s, len);
	free(s);
	alx_jw_free(jw);
	return 0;
}

void
out_warn(const char *fmt, ...)
{
	va_list	ap;

	fflush(stdout);
	fputs("airlox: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/*
 * A request that got no HTTP reply failed on the way (no connection, no
 * answer, TLS): its cause (alxs_http.c) says what happened and what to
 * check, where the caller's words would blame the relay for refusing what
 * it never saw.
 */
static int
out_vfail(int code, int err, const char *fmt, va_list ap)
{
	struct alx_jw	 jw;
	const char	*net;
	char		 msg[1024];

	if ((net = alxs_http_net_cause(err)) != NULL)
		snprintf(msg, sizeof(msg), "%s", net);
	else
		vsnprintf(msg, sizeof(msg), fmt, ap);
	fflush(stdout);
	/* A message may quote the relay's words: no escapes through it. */
	fputs("airlox: ", stderr);
	out_safe(stderr, msg, strlen(msg));
	fprintf(stderr, " (%s)\n", alx_errname(err));
	if (out_is_json) {
		out_obj_begin(&jw);
		alx_jw_kstr(&jw, "error", alx_errname(err));
		alx_jw_kstr(&jw, "message", msg);
		alx_jw_kint(&jw, "exit", code);
		out_obj_end(&jw);
	}
	return code;
}

int
out_fail(int err, const char *fmt, ...)
{
	va_list	ap;
	int	r;

	va_start(ap, fmt);
	r = out_vfail(out_exit_for(err), err, fmt, ap);
	va_end(ap);
	return r;
}

int
out_fail_code(int code, int err, const char *fmt, ...)
{
	va_list	ap;
	int	r;

	va_start(ap, fmt);
	r = out_vfail(code, err, fmt, ap);
	va_end(ap);
	return r;
}

int
out_usage(const char *fmt, ...)
{
	struct alx_jw	 jw;
	va_list		 ap;
	char		 msg[1024];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fputs("airlox: ", stderr);
	out_safe(stderr, msg, strlen(msg));
	fputc('\n', stderr);
	if (out_is_json) {
		out_obj_begin(&jw);
		alx_jw_kstr(&jw, "error", "usage");
		alx_jw_kstr(&jw, "message", msg);
		alx_jw_kint(&jw, "exit", EXIT_USAGE);
		out_obj_end(&jw);
	}
	return EXIT_USAGE;
}

/*
 * Text from others, for a terminal: C0 controls but tab and newline, DEL,
 * and C1 controls (U+0080 to U+009F, as UTF-8) become '?', so no escape
 * sequence reaches the terminal. After each newline `indent` is printed
 * (when not NULL): a message's lines then all start indented, and a line
 * in it cannot pass for the header of another message.
 */
void
out_safe_indent(FILE *f, const char *s, size_t len, const char *indent)
{
	size_t	i;

	if (len > 0 && (f == stdout || f == stderr)) {
		/* The last byte as written: a control character is a '?'. */
		unsigned char c = (unsigned char)s[len - 1];
		int t = c == '\n' && indent == NULL ? '\n' : '?';

		*(f == stdout ? &out_tail_out : &out_tail_err) = t;
		out_tail_last = f;
	}

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == 0xc2 && i + 1 < len &&
		    (unsigned char)s[i + 1] >= 0x80 &&
		    (unsigned char)s[i + 1] <= 0x9f) {
			fputc('?', f);
			i++;
		} else if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
			fputc('?', f);
		else {
			fputc(c, f);
			if (c == '\n' && indent != NULL)
				fputs(indent, f);
		}
	}
}

void
out_raw(FILE *f, const void *p, size_t len)
{
	if (len > 0 && (f == stdout || f == stderr)) {
		*(f == stdout ? &out_tail_out : &out_tail_err) =
		    ((const unsigned char *)p)[len - 1] == '\n' ? '\n' : '?';
		out_tail_last = f;
	}
	fwrite(p, 1, len, f);
}

void
out_safe(FILE *f, const char *s, size_t len)
{
	out_safe_indent(f, s, len, NULL);
}

/* A byte a shell word needs no quotes for. */
static int
out_word_safe(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || strchr("_@%+=:,./-", c) != NULL;
}

/* A control character: C0, DEL, or C1 (0xc2 0x80..0x9f in UTF-8). */
static size_t
out_control_len(const unsigned char *s, size_t left)
{
	if (s[0] < 0x20 || s[0] == 0x7f)
		return 1;
	if (s[0] == 0xc2 && left > 1 && s[1] >= 0x80 && s[1] <= 0x9f)
		return 2;
	return 0;
}

static int
out_word_quote(struct alx_buf *b, const char *w)
{
	const unsigned char	*s = (const unsigned char *)w;
	size_t			 i, n = strlen(w), k;
	int			 bare = n > 0, ctl = 0, r = 0;

	for (i = 0; i < n; i++) {
		bare &= out_word_safe(s[i]);
		ctl |= out_control_len(s + i, n - i) != 0;
	}
	if (bare)
		return alx_buf_addstr(b, w);
	if (!ctl) {
		r |= alx_buf_addc(b, '\'');
		for (i = 0; i < n; i++)
			r |= s[i] == '\'' ? alx_buf_addstr(b, "'\\''") :
			    alx_buf_addc(b, s[i]);
		return r | alx_buf_addc(b, '\'');
	}
	r |= alx_buf_addstr(b, "$'");
	i = 0;
	while (i < n) {
		k = out_control_len(s + i, n - i);
		if (k == 0) {
			if (s[i] == '\\' || s[i] == '\'')
				r |= alx_buf_addc(b, '\\');
			r |= alx_buf_addc(b, s[i++]);
		} else if (s[i] == '\n' || s[i] == '\t' || s[i] == '\r') {
			r |= alx_buf_addc(b, '\\');
			r |= alx_buf_addc(b, s[i] == '\n' ? 'n' : s[i] == '\t' ?
			    't' : 'r');
			i++;
		} else
			while (k-- > 0)	/* always two digits: \x01 then 'a' */
				r |= alx_buf_printf(b, "\\x%02x", s[i++]);
	}
	return r | alx_buf_addc(b, '\'');
}

int
out_argv_quote(struct alx_buf *b, char *const *argv, size_t n)
{
	size_t	i;
	int	r = 0;

	for (i = 0; i < n; i++) {
		if (i > 0)
			r |= alx_buf_addc(b, ' ');
		r |= out_word_quote(b, argv[i]);
	}
	return r != 0 ? ALX_ERR_TOO_LARGE : 0;
}

/* Whether stdout and stderr go to the same place (a terminal, a file). */
static int
out_same_place(void)
{
	struct stat	a, b;

	if (fstat(STDOUT_FILENO, &a) != 0 || fstat(STDERR_FILENO, &b) != 0)
		return 0;
	if (S_ISCHR(a.st_mode) && S_ISCHR(b.st_mode))
		return a.st_rdev == b.st_rdev;
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

void
out_line_start(FILE *f)
{
	int	tail;

	if (f == stderr && out_tail_last != NULL && out_same_place())
		tail = out_tail_last == stdout ? out_tail_out : out_tail_err;
	else
		tail = f == stdout ? out_tail_out : out_tail_err;
	if (tail != 0 && tail != '\n') {
		fflush(stdout);
		fputc('\n', f);
	}
}

void
out_time(char *buf, size_t len, int64_t t)
{
	struct tm	tm;
	time_t		tt = (time_t)t;

	if (t == 0 || gmtime_r(&tt, &tm) == NULL) {
		snprintf(buf, len, "never");
		return;
	}
	strftime(buf, len, "%Y-%m-%d %H:%M:%SZ", &tm);
}

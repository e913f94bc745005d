/* log.c: leveled logging to stderr, journald-aware. */
#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

static const char	*log_progname = "airlox";
static int		 log_level = LOG_LEVEL_INFO;
static int		 log_journal;	/* use "<N>" prefixes */

/* Is stderr the journal stream systemd gave us? */
static int
log_stderr_is_journal(void)
{
	const char	*js, *p;
	struct stat	 st;
	unsigned long	 dev, ino;
	char		*end;

	if ((p = getenv("ALX_LOG_PREFIX")) != NULL)
		return strcmp(p, "1") == 0;
	if ((js = getenv("JOURNAL_STREAM")) == NULL)
		return 0;
	dev = strtoul(js, &end, 10);
	if (*end != ':')
		return 0;
	ino = strtoul(end + 1, &end, 10);
	if (*end != '\0' || fstat(STDERR_FILENO, &st) == -1)
		return 0;
	return (unsigned long)st.st_dev == dev &&
	    (unsigned long)st.st_ino == ino;
}

void
log_init(const char *progname, int level)
{
	if (progname != NULL)
		log_progname = progname;
	log_level = level;
	log_journal = log_stderr_is_journal();
}

void
log_setlevel(int level)
{
	log_level = level;
}

int
log_getlevel(void)
{
	return log_level;
}

/* Write one line; `prio` is the syslog priority for the journal prefix. */
static void __attribute__((format(printf, 3, 0)))
log_vwrite(int prio, const char *tag, const char *fmt, va_list ap,
    const char *suffix)
{
	char		 msg[2048], stamp[32];
	time_t		 now;
	struct tm	 tm;
	size_t		 i;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	/* One event, one line: a peer cannot inject fake log lines. */
	for (i = 0; msg[i] != '\0'; i++)
		if (msg[i] == '\n' || msg[i] == '\r')
			msg[i] = ' ';
	if (log_journal) {
		fprintf(stderr, "<%d>%s%s%s\n", prio, msg,
		    suffix ? ": " : "", suffix ? suffix : "");
		return;
	}
	now = time(NULL);
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
	fprintf(stderr, "%s %s[%ld] %s: %s%s%s\n", stamp, log_progname,
	    (long)getpid(), tag, msg, suffix ? ": " : "",
	    suffix ? suffix : "");
}

void
log_warn(const char *fmt, ...)
{
	va_list	ap;
	int	saved = errno;

	va_start(ap, fmt);
	log_vwrite(4, "warning", fmt, ap, strerror(saved));
	va_end(ap);
	errno = saved;
}

void
log_warnx(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	log_vwrite(4, "warning", fmt, ap, NULL);
	va_end(ap);
}

void
log_info(const char *fmt, ...)
{
	va_list	ap;

	if (log_level < LOG_LEVEL_INFO)
		return;
	va_start(ap, fmt);
	log_vwrite(6, "info", fmt, ap, NULL);
	va_end(ap);
}

void
log_debug(const char *fmt, ...)
{
	va_list	ap;

	if (log_level < LOG_LEVEL_DEBUG)
		return;
	va_start(ap, fmt);
	log_vwrite(7, "debug", fmt, ap, NULL);
	va_end(ap);
}

void
fatal(const char *fmt, ...)
{
	va_list	ap;
	int	saved = errno;

	va_start(ap, fmt);
	log_vwrite(2, "fatal", fmt, ap, strerror(saved));
	va_end(ap);
	exit(1);
}

void
fatalx(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	log_vwrite(2, "fatal", fmt, ap, NULL);
	va_end(ap);
	exit(1);
}

int
log_rl_allow(struct log_rl *rl)
{
	time_t	now = time(NULL);

	if (now - rl->window >= (time_t)rl->interval) {
		if (rl->suppressed > 0)
			log_warnx("log: %u similar messages suppressed",
			    rl->suppressed);
		rl->window = now;
		rl->count = 0;
		rl->suppressed = 0;
	}
	if (rl->count >= rl->burst) {
		rl->suppressed++;
		return 0;
	}
	rl->count++;
	return 1;
}

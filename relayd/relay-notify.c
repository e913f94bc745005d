/*
 * relay-notify.c: the service manager notification protocol.
 *
 * With libsystemd (HAVE_SYSTEMD) through sd_notify(); without it, a small
 * implementation of the same datagram protocol: one AF_UNIX datagram of
 * "KEY=VALUE" lines to $NOTIFY_SOCKET (a path, or '@' for the abstract
 * namespace). Nothing happens when NOTIFY_SOCKET is unset, so the relay runs
 * the same on machines without systemd. WATCHDOG_USEC (with WATCHDOG_PID,
 * when set, naming us) asks for WATCHDOG=1 at least that often; the cron
 * sends it at half the interval.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef HAVE_SYSTEMD
#include <systemd/sd-daemon.h>
#endif

#include "airlox.h"
#include "util/log.h"
#include "relayd.h"

static uint64_t	relay_wd_usec;

static void
relay_notify_send(const char *msg)
{
#ifdef HAVE_SYSTEMD
	int	rc;

	if ((rc = sd_notify(0, msg)) < 0)
		log_debug("notify: %s", strerror(-rc));
#else
	struct sockaddr_un	 sun;
	const char		*path;
	socklen_t		 len;
	size_t			 n;
	int			 fd;

	if ((path = getenv("NOTIFY_SOCKET")) == NULL || *path == '\0')
		return;
	if ((path[0] != '/' && path[0] != '@') ||
	    (n = strlen(path)) >= sizeof(sun.sun_path))
		return;
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path, path, n);
	if (path[0] == '@')
		sun.sun_path[0] = '\0';
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n +
	    (path[0] == '/' ? 1 : 0));
	if ((fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1)
		return;
	if (sendto(fd, msg, strlen(msg), MSG_NOSIGNAL,
	    (struct sockaddr *)&sun, len) == -1)
		log_debug("notify: %s", strerror(errno));
	close(fd);
#endif
}

void
relay_notify_init(void)
{
	const char	*s, *pid;
	char		*end;
	unsigned long long v;

	relay_wd_usec = 0;
	if ((s = getenv("WATCHDOG_USEC")) == NULL)
		return;
	if ((pid = getenv("WATCHDOG_PID")) != NULL &&
	    strtol(pid, NULL, 10) != (long)getpid())
		return;
	v = strtoull(s, &end, 10);
	if (*s == '\0' || *end != '\0' || v == 0)
		return;
	relay_wd_usec = v;
	log_info("notify: watchdog every %llu ms", v / 2000);
}

uint64_t
relay_notify_watchdog_usec(void)
{
	return relay_wd_usec;
}

void
relay_notify_ready(void)
{
	char	msg[128];

	snprintf(msg, sizeof(msg), "READY=1\nSTATUS=serving\nMAINPID=%ld",
	    (long)getpid());
	relay_notify_send(msg);
}

void
relay_notify_status(const char *fmt, ...)
{
	char	msg[512];
	va_list	ap;
	int	n;

	n = snprintf(msg, sizeof(msg), "STATUS=");
	va_start(ap, fmt);
	vsnprintf(msg + n, sizeof(msg) - n, fmt, ap);
	va_end(ap);
	relay_notify_send(msg);
}

void
relay_notify_stopping(void)
{
	relay_notify_send("STOPPING=1\nSTATUS=stopping");
}

void
relay_notify_watchdog(void)
{
	if (relay_wd_usec != 0)
		relay_notify_send("WATCHDOG=1");
}

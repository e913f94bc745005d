/*
 * sandbox-egress-fwd.c: the job's side of the egress proxy, run by
 * airlox-shim inside the sandbox (and by the proxy's test program).
 *
 * A listening TCP socket on 127.0.0.1 in the job's network namespace;
 * each accepted connection is handed, as a file descriptor (SCM_RIGHTS),
 * over the job's Unix socket to airlox-egress outside the sandbox, which
 * then talks to the job directly. No byte is relayed here and no route
 * leaves the namespace.
 */
#include "config.h"

#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "shim.h"
#include "fdpass.h"

int
shim_egress_listen(unsigned port, unsigned *bound)
{
	struct sockaddr_in	sin;
	socklen_t		len = sizeof sin;
	int			s, one = 1;

	if ((s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return -errno;
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_port = htons((unsigned short)port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(s, (struct sockaddr *)&sin, sizeof sin) != 0 ||
	    listen(s, 64) != 0 ||
	    getsockname(s, (struct sockaddr *)&sin, &len) != 0) {
		int e = errno;

		close(s);
		return -e;
	}
	if (bound != NULL)
		*bound = ntohs(sin.sin_port);
	return s;
}

/* Accept and hand over until the proxy's socket is gone. */
int
shim_egress_forward(int lfd, int sock)
{
	int	c, r;

	for (;;) {
		c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (c == -1) {
			if (errno == EINTR || errno == ECONNABORTED ||
			    errno == EMFILE || errno == ENFILE)
				continue;
			return -errno;
		}
		r = fd_pass(sock, c, "c", 1);
		close(c);
		if (r == -EPIPE || r == -ECONNRESET || r == -ENOTCONN)
			return r;
	}
}

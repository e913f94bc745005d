/*
 * fdpass.c: one file descriptor and a message over a Unix socket.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/uio.h>

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "fdpass.h"

int
fd_pass(int sock, int fd, const void *msg, size_t len)
{
	struct msghdr	 mh;
	struct iovec	 iov;
	struct cmsghdr	*c;
	union {
		char		buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr	align;
	} cm;
	ssize_t		 n;

	memset(&mh, 0, sizeof mh);
	memset(&cm, 0, sizeof cm);
	iov.iov_base = (void *)(uintptr_t)msg;
	iov.iov_len = len;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cm.buf;
	mh.msg_controllen = sizeof cm.buf;
	c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof fd);
	if ((n = sendmsg(sock, &mh, MSG_NOSIGNAL)) < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EMSGSIZE;
}

/*
 * fdpass.c: one file descriptor and a message over a Unix socket.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/uio.h>

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

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

ssize_t
fd_recv(int sock, void *buf, size_t len, int flags, int *fd)
{
	struct msghdr	 mh;
	struct iovec	 iov;
	struct cmsghdr	*c;
	union {
		char		buf[CMSG_SPACE(4 * sizeof(int))];
		struct cmsghdr	align;
	} cm;
	ssize_t		 n;
	int		 fds[4];
	size_t		 nfd, i;

	*fd = -1;
	memset(&mh, 0, sizeof mh);
	iov.iov_base = buf;
	iov.iov_len = len;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cm.buf;
	mh.msg_controllen = sizeof cm.buf;
	if ((n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC | flags)) < 0)
		return -1;
	for (c = CMSG_FIRSTHDR(&mh); c != NULL; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		nfd = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		if (nfd > 4)
			nfd = 4;
		memcpy(fds, CMSG_DATA(c), nfd * sizeof(int));
		for (i = 0; i < nfd; i++) {
			if (*fd == -1)
				*fd = fds[i];
			else
				close(fds[i]);
		}
	}
	if (mh.msg_flags & (MSG_CTRUNC | MSG_TRUNC)) {
		if (*fd != -1)
			close(*fd);
		*fd = -1;
		errno = EMSGSIZE;
		return -1;
	}
	return n;
}

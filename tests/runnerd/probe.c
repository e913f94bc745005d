/*
 * probe.c: boundary probes run inside a sandbox (static, no sanitizers).
 * Each prints one line and exits 0 when the probed action SUCCEEDED,
 * 1 when it failed (with the errno name), 2 on usage errors.
 *
 *	probe connect IP PORT	TCP connect
 *	probe udp IP PORT	UDP send (DNS-like)
 *	probe read FILE		open and read
 *	probe write FILE	create and write
 *	probe fds		list open fds ("0 1 2")
 *	probe int80		getpid through the i386 ABI (int $0x80)
 *	probe tiocsti		ioctl(0, TIOCSTI)
 *	probe userns		unshare(CLONE_NEWUSER)
 *	probe alloc MIB		touch MIB MiB of memory
 *	probe forkbomb SECS	fork without end for SECS seconds
 *	probe daemon MARKER	setsid daemon that sleeps; parent exits 0
 *	probe fill FILE MIB	write MIB MiB to FILE
 *	probe x32		getpid through the x32 ABI (x86_64)
 *	probe newsys		syscall 451 (newer than the filter)
 *	probe ptrace		ptrace(PTRACE_TRACEME)
 */
#include "config.h"

#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int
result(int ok, const char *what)
{
	if (ok)
		printf("%s: ok\n", what);
	else
		printf("%s: failed: %s\n", what, strerror(errno));
	fflush(stdout);
	return ok ? 0 : 1;
}

static int
p_connect(const char *ip, const char *port, int type)
{
	struct sockaddr_in	sin;
	int			s, ok;

	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_port = htons((unsigned short)atoi(port));
	if (inet_pton(AF_INET, ip, &sin.sin_addr) != 1)
		return 2;
	if ((s = socket(AF_INET, type, 0)) == -1)
		return result(0, "socket");
	if (type == SOCK_STREAM)
		ok = connect(s, (struct sockaddr *)&sin, sizeof sin) == 0;
	else
		ok = sendto(s, "x", 1, 0, (struct sockaddr *)&sin,
		    sizeof sin) == 1;
	close(s);
	return result(ok, type == SOCK_STREAM ? "connect" : "sendto");
}

static int
p_read(const char *path)
{
	char	buf[64];
	int	fd, ok;

	if ((fd = open(path, O_RDONLY)) == -1)
		return result(0, "open");
	ok = read(fd, buf, sizeof buf) >= 0;
	close(fd);
	return result(ok, "read");
}

static int
p_write(const char *path)
{
	int	fd, ok;

	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644)) == -1)
		return result(0, "open");
	ok = write(fd, "x\n", 2) == 2;
	close(fd);
	return result(ok, "write");
}

static int
p_fds(void)
{
	DIR		*d;
	struct dirent	*de;
	int		 self;

	if ((d = opendir("/proc/self/fd")) == NULL)
		return result(0, "opendir");
	self = dirfd(d);
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.' && atoi(de->d_name) != self)
			printf("%s ", de->d_name);
	printf("\n");
	closedir(d);
	return 0;
}

static int
p_int80(void)
{
	long	ret;

	printf("calling int 0x80\n");
	fflush(stdout);
#if defined(__x86_64__)
	__asm__ volatile ("int $0x80" : "=a"(ret) : "a"(20L) : "memory");
#else
	ret = -1;
	errno = ENOSYS;
#endif
	printf("int 0x80 returned %ld\n", ret);
	return 0;
}

static int
p_alloc(const char *mib)
{
	size_t	len = (size_t)atol(mib) << 20, i;
	char	*p;

	if ((p = mmap(NULL, len, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)) == MAP_FAILED)
		return result(0, "mmap");
	for (i = 0; i < len; i += 4096)
		p[i] = 1;
	return result(1, "alloc");
}

static int
p_forkbomb(const char *secs)
{
	time_t	end = time(NULL) + atoi(secs);
	long	made = 0, failed = 0;
	pid_t	p;

	while (time(NULL) < end) {
		p = fork();
		if (p == 0) {
			pause();
			_exit(0);
		}
		if (p > 0)
			made++;
		else
			failed++;
		if (made + failed > 100000)
			break;
	}
	printf("forks made %ld failed %ld\n", made, failed);
	fflush(stdout);
	return 0;
}

static int
p_daemon(const char *marker)
{
	pid_t	p;

	if ((p = fork()) == -1)
		return result(0, "fork");
	if (p > 0) {
		waitpid(p, NULL, 0);
		printf("daemon started\n");
		return 0;
	}
	setsid();
	if (fork() != 0)
		_exit(0);
	close(0);
	close(1);
	close(2);
	execl("/bin/sleep", "sleep", marker, (char *)NULL);
	_exit(1);
}

static int
p_fill(const char *path, const char *mib)
{
	static char	buf[1 << 20];
	long		n = atol(mib), i;
	int		fd;

	memset(buf, 'x', sizeof buf);
	for (i = 0; i < n; i++) {
		char	name[4096];

		snprintf(name, sizeof name, "%s.%ld", path, i / 8);
		if ((fd = open(name, O_WRONLY | O_CREAT | O_APPEND, 0644)) == -1)
			return result(0, "open");
		if (write(fd, buf, sizeof buf) != (ssize_t)sizeof buf) {
			close(fd);
			return result(0, "write");
		}
		fsync(fd);
		close(fd);
		usleep(5000);
	}
	return result(1, "fill");
}

static int
p_x32(void)
{
	long	r;

	printf("calling x32 getpid\n");
	fflush(stdout);
	r = syscall(0x40000000L + 39);
	printf("x32 getpid returned %ld\n", r);
	return 0;
}

static int
p_newsys(void)
{
	long	r = syscall(451, -1, NULL, NULL, 0);

	printf("syscall 451: %s\n", r == -1 ? strerror(errno) : "ok");
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	if (strcmp(argv[1], "connect") == 0 && argc == 4)
		return p_connect(argv[2], argv[3], SOCK_STREAM);
	if (strcmp(argv[1], "udp") == 0 && argc == 4)
		return p_connect(argv[2], argv[3], SOCK_DGRAM);
	if (strcmp(argv[1], "read") == 0 && argc == 3)
		return p_read(argv[2]);
	if (strcmp(argv[1], "write") == 0 && argc == 3)
		return p_write(argv[2]);
	if (strcmp(argv[1], "fds") == 0)
		return p_fds();
	if (strcmp(argv[1], "int80") == 0)
		return p_int80();
	if (strcmp(argv[1], "tiocsti") == 0)
		return result(ioctl(0, TIOCSTI, "x") == 0, "tiocsti");
	if (strcmp(argv[1], "userns") == 0)
		return result(unshare(CLONE_NEWUSER) == 0, "unshare");
	if (strcmp(argv[1], "alloc") == 0 && argc == 3)
		return p_alloc(argv[2]);
	if (strcmp(argv[1], "forkbomb") == 0 && argc == 3)
		return p_forkbomb(argv[2]);
	if (strcmp(argv[1], "daemon") == 0 && argc == 3)
		return p_daemon(argv[2]);
	if (strcmp(argv[1], "fill") == 0 && argc == 4)
		return p_fill(argv[2], argv[3]);
	if (strcmp(argv[1], "x32") == 0)
		return p_x32();
	if (strcmp(argv[1], "newsys") == 0)
		return p_newsys();
	if (strcmp(argv[1], "ptrace") == 0)
		return result(ptrace(PTRACE_TRACEME, 0, NULL, NULL) == 0,
		    "ptrace");
	return 2;
}

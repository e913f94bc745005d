/*
 * proxy-test.c: test program of the egress proxy (never installed).
 *
 *	proxy-test serve -H MAP -s statedir
 *		the proxy process (what airlox-egress is) with a test
 *		resolver: MAP is name=addr[,name=addr...]; addr is
 *		IPv4[:port], [IPv6]:port or IPv6; a leading '+' vouches for
 *		the address ("treat as public for this test"); any other
 *		address still goes through runner_egress_addr_public().
 *		Names not in MAP do not resolve.
 *	proxy-test front -s statedir [-H MAP] [-P] [-j job] -a a,b,...
 *		starts the proxy as the runner does (runner_egress_start
 *		with this program in `serve` mode), registers a job, runs
 *		the in-sandbox forwarder on 127.0.0.1:0 and prints
 *		"port N". Commands on stdin: "end" prints "denied N" (from
 *		runner_egress_job_end), "log" prints "count N" and the
 *		job's lines (runner_egress_denied). EOF stops.
 *
 * The resolver hook exists in this program only: airlox-egress has none.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/wait.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "airlox.h"
#include "runner-egress.h"
#include "shim.h"
#include "testmap.h"

static int
do_serve(int argc, char **argv)
{
	int		 logfd;
	const char	*statedir = NULL;
	int		 c;

	while ((c = getopt(argc, argv, "H:s:")) != -1) {
		if (c == 'H' && testmap_load(optarg) != 0)
			return 2;
		if (c == 's')
			statedir = optarg;
	}
	if (statedir == NULL)
		return 2;
	runner_egress_resolve = testmap_resolve;
	if (runner_egress_drop(statedir, &logfd) != 0)
		return 1;
	return runner_egress_serve(3, logfd) == 0 ? 0 : 1;
}

static int
do_front(int argc, char **argv)
{
	struct runner_egress	*eg;
	const char		*cmd[5], *statedir = NULL, *job = "job1";
	char			*allow[64], *list = NULL, *tok, *save = NULL;
	char			*cause = NULL, line[64], self[4096], **lines;
	size_t			 nallow = 0, nlines, i;
	uint64_t		 count;
	unsigned		 port;
	ssize_t			 len;
	pid_t			 fwd;
	int			 c, flags = 0, fd, lfd, r;

	cmd[1] = "serve";
	cmd[2] = "-H";
	cmd[3] = "x.invalid=192.0.2.1";
	cmd[4] = NULL;
	while ((c = getopt(argc, argv, "s:H:Pj:a:")) != -1) {
		switch (c) {
		case 's': statedir = optarg; break;
		case 'H': cmd[3] = optarg; break;
		case 'P': flags |= EGRESS_HTTP; break;
		case 'j': job = optarg; break;
		case 'a': list = optarg; break;
		default: return 2;
		}
	}
	if (statedir == NULL || list == NULL)
		return 2;
	for (tok = strtok_r(list, ",", &save); tok != NULL && nallow < 64;
	    tok = strtok_r(NULL, ",", &save))
		allow[nallow++] = tok;
	if ((len = readlink("/proc/self/exe", self, sizeof self - 1)) <= 0)
		return 1;
	self[len] = '\0';
	cmd[0] = self;
	if ((r = runner_egress_start(&eg, cmd, statedir, &cause)) != 0) {
		fprintf(stderr, "start: %s %s\n", alx_errname(r),
		    cause ? cause : "");
		return 1;
	}
	if ((r = runner_egress_job(eg, job, allow, nallow, flags, &fd)) != 0) {
		fprintf(stderr, "job: %s\n", alx_errname(r));
		runner_egress_stop(eg);
		return 1;
	}
	if ((lfd = shim_egress_listen(0, &port)) < 0)
		return 1;
	if ((fwd = fork()) == 0) {
		shim_egress_forward(lfd, fd);
		_exit(0);
	}
	close(lfd);
	close(fd);
	printf("port %u\n", port);
	fflush(stdout);
	while (fgets(line, sizeof line, stdin) != NULL) {
		if (strcmp(line, "end\n") == 0) {
			kill(fwd, SIGKILL);
			waitpid(fwd, NULL, 0);
			r = runner_egress_job_end(eg, job, &count);
			printf("denied %llu %s\n", (unsigned long long)count,
			    alx_errname(r));
		} else if (strcmp(line, "log\n") == 0) {
			r = runner_egress_denied(statedir, job, &lines, &nlines,
			    &count);
			printf("count %llu %s\n", (unsigned long long)count,
			    alx_errname(r));
			for (i = 0; r == 0 && i < nlines; i++)
				printf("%s\n", lines[i]);
			if (r == 0)
				runner_egress_lines_free(lines, nlines);
		}
		fflush(stdout);
	}
	kill(fwd, SIGKILL);
	waitpid(fwd, NULL, 0);
	runner_egress_stop(eg);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "serve") == 0)
		return do_serve(argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "front") == 0)
		return do_front(argc - 1, argv + 1);
	fprintf(stderr, "usage: proxy-test serve|front ...\n");
	return 2;
}

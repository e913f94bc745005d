/*
 * egress.c: airlox-egress, the egress proxy process of airlox-runnerd
 * (network mode `allow`; runner-proxy.c). Started by the runner only:
 *
 *	airlox-egress -s statedir	(fd 3: the runner's control socket)
 *
 * It has no option that changes what it allows: the policy comes from
 * the runner, per job, and its resolver is the system's.
 */
#include "config.h"

#include <sys/stat.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "airlox.h"
#include "runner-egress.h"

int
main(int argc, char **argv)
{
	struct stat	 st;
	const char	*statedir = NULL;
	int		 logfd;
	int		 c;

	while ((c = getopt(argc, argv, "s:")) != -1) {
		if (c != 's') {
			fprintf(stderr, "usage: airlox-egress -s statedir\n");
			return 2;
		}
		statedir = optarg;
	}
	if (statedir == NULL || fstat(3, &st) != 0 || !S_ISSOCK(st.st_mode)) {
		fprintf(stderr, "airlox-egress: started by airlox-runnerd "
		    "only (fd 3, -s statedir)\n");
		return 2;
	}
	if (runner_egress_drop(statedir, &logfd) != 0) {
		fprintf(stderr, "airlox-egress: cannot drop privileges or "
		    "make %s/egress\n", statedir);
		return 1;
	}
	return runner_egress_serve(3, logfd) == 0 ? 0 : 1;
}

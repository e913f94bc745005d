/*
 * verify-test.c: runs runner_verify_run() as `airlox-runnerd verify`
 * would, with the programs of the build tree (never installed).
 *
 *	verify-test -m none|allow|full -s statedir -w workroot [-A a,b]
 *	    [-H MAP] [-S shim] [-p probe] [-K no-ia32] [-W bits -D dir]
 *	verify-test serve -H MAP [-W bits] -s statedir
 *
 * The first form prints the report lines, then "report JSON", and exits
 * with the number of FAILs. `serve` is the egress proxy process with the
 * test resolver of testmap.c. -K simulates a kernel without a feature
 * (airlox-probe -T: "no-ia32" faults the probe's i386 syscall with
 * SIGSEGV, both in the baseline and in the sandbox, as a kernel without
 * IA32 emulation does). -W and -D exist only in the
 * SANDBOX_TEST_WEAKEN build (verify-weak): they switch one protection off
 * to show that its probe fails.
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "airlox.h"
#include "sandbox.h"
#include "runner-egress.h"
#include "testmap.h"

#ifdef SANDBOX_TEST_WEAKEN
#define VT_OPTS	"m:s:w:A:H:S:p:K:W:D:"
#else
#define VT_OPTS	"m:s:w:A:H:S:p:K:"
#endif

static int
vt_serve(int argc, char **argv)
{
	int		 logfd;
	const char	*statedir = NULL;
	int		 c;

	while ((c = getopt(argc, argv, "H:s:W:")) != -1) {
		if (c == 'H' && testmap_load(optarg) != 0)
			return 2;
		if (c == 's')
			statedir = optarg;
#ifdef SANDBOX_TEST_WEAKEN
		if (c == 'W')
			sandbox_test_weaken = (unsigned)strtoul(optarg, NULL, 0);
#endif
	}
	if (statedir == NULL)
		return 2;
	runner_egress_resolve = testmap_resolve;
	if (runner_egress_drop(statedir, &logfd) != 0)
		return 1;
	return runner_egress_serve(3, logfd) == 0 ? 0 : 1;
}

int
main(int argc, char **argv)
{
	struct runner_verify_opts	 o;
	const char			*mode = "none", *statedir = NULL;
	const char			*workroot = NULL, *map = "x.invalid=192.0.2.1";
	const char			*cmd[8], *wbits = "0";
	char				*allow[64], *list = NULL, *tok, *json = NULL;
	char				 self[PATH_MAX], shim[PATH_MAX + 32];
	char				 probe[PATH_MAX + 32], *slash;
	size_t				 nallow = 0;
	ssize_t				 n;
	int				 c, r, net;

	if (argc >= 2 && strcmp(argv[1], "serve") == 0)
		return vt_serve(argc - 1, argv + 1);
	if ((n = readlink("/proc/self/exe", self, sizeof self - 1)) <= 0)
		return 125;
	self[n] = '\0';
	memset(&o, 0, sizeof o);
	snprintf(shim, sizeof shim, "%s", self);
	slash = strrchr(shim, '/');
	snprintf(slash, sizeof shim - (size_t)(slash - shim),
	    "/../../runnerd/airlox-shim");
	snprintf(probe, sizeof probe, "%s", self);
	slash = strrchr(probe, '/');
	snprintf(slash, sizeof probe - (size_t)(slash - probe),
	    "/../../runnerd/airlox-probe");
	o.shim = shim;
	o.probe = probe;
	while ((c = getopt(argc, argv, VT_OPTS)) != -1) {
		switch (c) {
		case 'm': mode = optarg; break;
		case 's': statedir = optarg; break;
		case 'w': workroot = optarg; break;
		case 'A': list = optarg; break;
		case 'H': map = optarg; break;
		case 'S': o.shim = optarg; break;
		case 'p': o.probe = optarg; break;
		case 'K': o.kernel_sim = optarg; break;
#ifdef SANDBOX_TEST_WEAKEN
		case 'W':
			wbits = optarg;
			sandbox_test_weaken = (unsigned)strtoul(optarg, NULL, 0);
			break;
		case 'D': sandbox_test_weaken_dir = optarg; break;
#endif
		default: return 125;
		}
	}
	if (statedir == NULL || workroot == NULL)
		return 125;
	for (tok = list != NULL ? strtok(list, ",") : NULL; tok != NULL &&
	    nallow < 64; tok = strtok(NULL, ","))
		allow[nallow++] = tok;
	net = strcmp(mode, "allow") == 0 ? ALX_NET_ALLOW :
	    strcmp(mode, "full") == 0 ? ALX_NET_FULL : ALX_NET_NONE;
	cmd[0] = self;
	cmd[1] = "serve";
	cmd[2] = "-H";
	cmd[3] = map;
	cmd[4] = NULL;
#ifdef SANDBOX_TEST_WEAKEN
	cmd[4] = "-W";
	cmd[5] = wbits;
	cmd[6] = NULL;
#else
	(void)wbits;
#endif
	o.egress_cmd = cmd;
	r = runner_verify_run(&o, sandbox_find("local"), statedir, workroot,
	    net, allow, nallow, stdout, &json);
	if (json != NULL)
		printf("report %s\n", json);
	free(json);
	if (r < 0) {
		fprintf(stderr, "verify-test: %s\n", alx_errname(r));
		return 125;
	}
	return r > 100 ? 100 : r;
}

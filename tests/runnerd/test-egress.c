/*
 * test-egress.c: the egress proxy's address and IP-literal rules, and
 * the default resolver's refusal of non-public answers.
 */
#include "config.h"

#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <string.h>

#include "airlox.h"
#include "runner-egress.h"
#include "sandbox.h"
#include "tap.h"

static int
pub(const char *a)
{
	struct sockaddr_storage	 ss;
	struct sockaddr_in	*s4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6	*s6 = (struct sockaddr_in6 *)&ss;

	memset(&ss, 0, sizeof ss);
	if (inet_pton(AF_INET, a, &s4->sin_addr) == 1)
		s4->sin_family = AF_INET;
	else if (inet_pton(AF_INET6, a, &s6->sin6_addr) == 1)
		s6->sin6_family = AF_INET6;
	else
		return -1;
	return runner_egress_addr_public((struct sockaddr *)&ss);
}

int
main(void)
{
	static const char *const refused[] = {
		"0.0.0.0", "0.1.2.3", "10.0.0.1", "10.255.255.255",
		"100.64.0.1", "100.127.255.254", "127.0.0.1", "127.1.2.3",
		"169.254.169.254", "169.254.0.1", "172.16.0.1", "172.31.255.1",
		"192.0.0.8", "192.0.2.1", "192.88.99.1", "192.168.1.1",
		"198.18.0.1", "198.19.255.255", "198.51.100.7", "203.0.113.9",
		"224.0.0.1", "239.255.255.250", "240.0.0.1", "255.255.255.255",
		"::", "::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1",
		"::ffff:8.8.8.8", "::127.0.0.1", "::a9fe:a9fe",
		"64:ff9b::a00:1", "64:ff9b:1::1", "fc00::1", "fd00::2",
		"fe80::1", "fec0::1", "ff02::1", "100::1", "2001::1",
		"2001:db8::1", "2001:2::1", "2001:10::1", "2002:7f00:1::1",
		"2002:a9fe:a9fe::1", "3fff::1", "4000::1", NULL
	};
	static const char *const allowed[] = {
		"1.1.1.1", "8.8.8.8", "93.184.216.34", "100.63.255.255",
		"100.128.0.1", "172.15.255.255", "172.32.0.1", "192.0.3.1",
		"192.169.0.1", "198.17.255.255", "198.20.0.1", "223.255.255.254",
		"2606:4700:4700::1111", "2a00:1450:4001::200e", "2001:4860::1",
		"2400:cb00::1", NULL
	};
	static const char *const literals[] = {
		"127.0.0.1", "2130706433", "0x7f.1", "0x7f000001",
		"017700000001", "127.1", "0177.0.0.1", "1.1.1.1", "::1",
		"[::1]", "fe80::1%eth0", "::ffff:169.254.169.254", "0x7f.0x0.0x0.0x1",
		"0xA9.0xFE.0xA9.0xFE", "", NULL
	};
	static const char *const names[] = {
		"example.com", "pypi.org", "1.1.1.1.nip.io", "x1.example",
		"0x7f.example", "a.b.c", NULL
	};
	static const char *const ops[] = {
		"LANG", "GITHUB_TOKEN", "MY_VAR", "AWS_SECRET_ACCESS_KEY",
		"SSH_AUTH_SOCK", "TZ", "OPENAI_API_KEY", NULL
	};
	static const char *const clean[] = { "LANG", "TZ", "MY_VAR", NULL };
	struct sockaddr_storage	out[4];
	char			text[256], tiny[12];
	size_t			i, n;

	for (i = 0; refused[i] != NULL; i++)
		is_int(pub(refused[i]), 0, "%s refused", refused[i]);
	for (i = 0; allowed[i] != NULL; i++)
		is_int(pub(allowed[i]), 1, "%s allowed", allowed[i]);
	for (i = 0; literals[i] != NULL; i++)
		is_int(runner_egress_ip_literal(literals[i]), 1,
		    "'%s' is an IP literal", literals[i]);
	for (i = 0; names[i] != NULL; i++)
		is_int(runner_egress_ip_literal(names[i]), 0,
		    "'%s' is a name", names[i]);
	/* The default resolver itself drops what it may not connect to. */
	is_int(runner_egress_resolve_default("localhost", 443, out, 4, &n),
	    ALX_ERR_NOT_ALLOWED, "localhost resolves but is refused");
	is_int(n, 0, "no address returned for localhost");
	ok(runner_egress_resolve == runner_egress_resolve_default,
	    "the resolver hook defaults to the system resolver");
	/* A job's network from its mode. */
	{
		int	net, fd;

		is_int(runner_egress_net(NULL, "j", ALX_NET_NONE, 0, NULL, 0, 0,
		    &net, &fd), 0, "mode none");
		ok(net == SANDBOX_NET_NONE && fd == -1, "none: no network, no fd");
		is_int(runner_egress_net(NULL, "j", ALX_NET_FULL, 0, NULL, 0, 0,
		    &net, &fd), ALX_ERR_NOT_ALLOWED,
		    "mode full refused without --network");
		is_int(runner_egress_net(NULL, "j", ALX_NET_FULL, 1, NULL, 0, 0,
		    &net, &fd), 0, "mode full with --network");
		ok(net == SANDBOX_NET_HOST && fd == -1, "full: the host's network");
		is_int(runner_egress_net(NULL, "j", ALX_NET_ALLOW, 1, NULL, 0, 0,
		    &net, &fd), ALX_ERR_NOT_ALLOWED,
		    "mode allow without a proxy or a list refused");
		is_int(runner_egress_net(NULL, "j", 7, 1, NULL, 0, 0, &net, &fd),
		    ALX_ERR_INVALID, "an unknown mode refused");
	}
	/* R3: an operator's allow list naming credentials, warned at start. */
	is_int(sandbox_env_allow_denied(ops, text, sizeof text), 4,
	    "four credentials in the operator's allow list");
	is_str(text, "GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY, SSH_AUTH_SOCK, "
	    "OPENAI_API_KEY", "they are named for the warning");
	is_int(sandbox_env_allow_denied(clean, text, sizeof text), 0,
	    "a clean list gives no warning");
	is_str(text, "", "and no text");
	is_int(sandbox_env_allow_denied(ops, tiny, sizeof tiny), 4,
	    "a short buffer still counts every name");
	ok(strlen(tiny) < sizeof tiny, "and stays terminated");
	return tap_done();
}

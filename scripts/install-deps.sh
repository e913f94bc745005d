#!/bin/sh
# install-deps.sh: install the Debian 12 packages airlox needs to build and test.
#
#	scripts/install-deps.sh                  build and test dependencies
#	scripts/install-deps.sh --with-optional  also the packages of the optional tests
#	scripts/install-deps.sh --list           print the packages it would check, one a line
#	scripts/install-deps.sh --check          exit 1 if any of them is missing, install nothing
#
# It asks dpkg which packages are already installed and says nothing when all of them are;
# apt-get update and apt-get install run only for what is missing. It runs apt-get directly
# as root, through sudo otherwise.
#
# Every package is on one line of the table below, with the group it belongs to and what
# needs it. A subsystem that needs a new package adds one line here. Groups:
#	build     compilers, autotools and the libraries configure requires
#	test      what scripts/test.sh and the default test suite use
#	optional  tests that skip themselves when the tool is missing (--with-optional)

# shellcheck disable=SC2086 # lists of package names are split on purpose
set -eu

PACKAGE_TABLE='
# package               group     needed by
build-essential         build     compiler, make
autoconf                build     autoreconf
automake                build     autoreconf
libtool                 build     libairlox shared library
pkg-config              build     configure library checks
libevent-dev            build     relayd (HTTP, SSE, TLS via libevent_openssl)
libssl-dev              build     libairlox (AES-GCM, X25519 via OpenSSL 3), TLS
libsodium-dev           build     libairlox (Ed25519, hashing, randomness)
libjsmn-dev             build     libairlox JSON tokenizer (header only)
liblmdb-dev             build     relayd storage
libcurl4-openssl-dev    build     client and runnerd HTTPS
libsystemd-dev          build     sd_notify in relayd and runnerd
libseccomp-dev          build     runnerd sandbox
libarchive-dev          build     client --tree archives, runnerd workspaces
ca-certificates         build     HTTPS to public hosts
lmdb-utils              test      relayd storage inspection (mdb_stat)
clang                   test      fuzz targets (CC=clang)
libclang-rt-14-dev      test      libFuzzer and sanitizer runtimes for clang 14
mandoc                  test      man page lint (mandoc -Tlint)
curl                    test      integration tests talk to the relay
openssl                 test      test certificates
python3                 test      test helpers
python3-venv            test      runnerd Python venvs (tests/runnerd/python.sh)
python3-pip             test      runnerd Python venvs: pip installs the allowlist
python3-setuptools      test      runnerd Python tests: wheels of local projects
python3-wheel           test      runnerd Python tests: wheels of local projects
git                     test      client --tree tests
iproute2                test      integration tests (ss)
util-linux              test      runnerd sandbox tests (unshare, setpriv)
procps                  test      integration tests (pgrep, ps)
docker.io               test      relay image test (tests/packaging/docker.sh); runnerd docker sandbox tests
debootstrap             test      relay image test base (cached); runnerd root file system images
bubblewrap              optional  sandbox comparison tests
nginx                   optional  relay behind a reverse proxy
libnginx-mod-nchan      optional  SSE fan-out through nginx
rsync                   optional  workspace sync comparison
openssh-server          optional  SSH comparison benchmarks
hyperfine               optional  benchmarks (bench/)
nginx                   bench     bench/relay-vs-nchan.sh (nchan under nginx, one worker)
libnginx-mod-nchan      bench     bench/relay-vs-nchan.sh (the nchan module)
bubblewrap              bench     bench/sandbox-vs-bwrap.sh
hyperfine               bench     bench/sandbox-vs-bwrap.sh (timing loop in Python without it)
hyperfine               bench     bench/tree-vs-rsync.sh (timing)
rsync                   bench     bench/tree-vs-rsync.sh (the comparison)
openssh-server          bench     bench/tree-vs-rsync.sh (sshd on a loopback port)
systemd                 test      systemd-analyze verify of the unit files (tests/packaging)
zsh                     test      zsh completion test (tests/packaging/completion.sh)
'

progname=install-deps
with_optional=no
mode=install

usage()
{
	sed -n '2,7s/^# \{0,1\}//p' "$0"
}

while [ $# -gt 0 ]; do
	case $1 in
	--with-optional) with_optional=yes ;;
	--list) mode=list ;;
	--check) mode=check ;;
	-h | --help) usage; exit 0 ;;
	*) echo "$progname: unknown option: $1" >&2; usage >&2; exit 2 ;;
	esac
	shift
done

# The packages of the groups asked for, one a line.
wanted_packages()
{
	printf '%s\n' "$PACKAGE_TABLE" | awk -v opt="$with_optional" '
		/^[ \t]*(#|$)/ { next }
		$2 == "build" || $2 == "test" || ($2 == "optional" && opt == "yes") { print $1 }'
}

# The wanted packages dpkg does not report as installed.
missing_packages()
{
	for pkg in $(wanted_packages); do
		status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
		[ "$status" = installed ] || printf '%s\n' "$pkg"
	done
}

# Run a command as root: directly, or through sudo.
as_root()
{
	if [ "$(id -u)" -eq 0 ]; then
		"$@"
	elif command -v sudo >/dev/null 2>&1; then
		sudo -- "$@"
	else
		echo "$progname: not root and sudo is not installed; run this as root" >&2
		exit 1
	fi
}

if ! command -v dpkg-query >/dev/null 2>&1; then
	echo "$progname: dpkg-query not found: this script is for Debian 12 (bookworm)" >&2
	exit 1
fi

case $mode in
list)
	wanted_packages
	exit 0
	;;
check)
	missing=$(missing_packages)
	if [ -n "$missing" ]; then
		echo "$progname: missing:" $missing >&2
		exit 1
	fi
	exit 0
	;;
esac

missing=$(missing_packages)
[ -z "$missing" ] && exit 0

echo "$progname: installing:" $missing
export DEBIAN_FRONTEND=noninteractive
apt_opts="-q -o Dpkg::Use-Pty=0 -o Acquire::Retries=3"
as_root env DEBIAN_FRONTEND=noninteractive apt-get $apt_opts update >/dev/null
as_root env DEBIAN_FRONTEND=noninteractive apt-get $apt_opts -y \
    --no-install-recommends install $missing

still=$(missing_packages)
if [ -n "$still" ]; then
	echo "$progname: still missing after apt-get install:" $still >&2
	exit 1
fi

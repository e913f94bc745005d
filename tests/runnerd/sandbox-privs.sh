#!/bin/sh
# Privileges inside the local sandbox: no capabilities, no_new_privs,
# seccomp, no 32-bit syscalls, no TIOCSTI, no new user namespaces.
. "${top_srcdir:-.}/tests/runnerd/lib.sh"
need_local

run_job -- /bin/sh -c 'cat /proc/self/status; id -u'
st=$(jget stdout)
for c in CapInh CapPrm CapEff CapBnd CapAmb; do
	is "$(printf %s "$st" | awk -v k="$c:" '$1 == k {print $2}')" \
	    0000000000000000 "$c all zero"
done
is "$(printf %s "$st" | awk '$1 == "NoNewPrivs:" {print $2}')" 1 "NoNewPrivs 1"
is "$(printf %s "$st" | awk '$1 == "Seccomp:" {print $2}')" 2 "Seccomp 2 (filter)"
is "$(printf %s "$st" | tail -1)" 1000 "the job runs as uid 1000 inside, not 0"

# A host-side view of the job's uid: the owner of a file it creates.
run_job -- ./probe write /work/owner
u=$(stat -c %u "$WS/owner" 2>/dev/null || echo missing)
[ "$u" != 0 ] && [ "$u" != missing ]; ok $? "the job's host uid is not 0 (got $u)"

# The i386 ABI: `int $0x80` from a 64-bit program must be killed. A kernel
# without IA32 emulation faults it (SIGSEGV) before any filter sees it.
run_job -- ./probe int80
if host_has_ia32; then
	is "$(jget signal)" 31 "a 32-bit syscall kills the process (SIGSYS)"
	ok 0 "int 0x80 works outside the sandbox (test can fail)"
else
	is "$(jget signal)" 11 "no 32-bit syscall entry in this kernel: int 0x80 faults (SIGSEGV) inside as outside"
fi
lacks "$(jget stdout)" "returned" "nothing runs after the 32-bit syscall"

if [ "$(uname -m)" = x86_64 ]; then
	run_job -- ./probe x32
	is "$(jget signal)" 31 "an x32 syscall kills the process (SIGSYS)"
	lacks "$(jget stdout)" "returned" "nothing runs after the x32 syscall"
fi
run_job -- ./probe newsys
has "$(jget stdout)" "syscall 451: Function not implemented" \
    "a syscall newer than the filter gets ENOSYS"
"$PROBE" newsys | grep -q "not implemented"
[ $? -ne 0 ]; ok $? "syscall 451 exists outside (test can fail)"
run_job -- ./probe ptrace
has "$(jget stdout)" "ptrace: failed: Operation not permitted" "ptrace is denied"
"$PROBE" ptrace | grep -q "ptrace: ok"; ok $? "ptrace works outside (test can fail)"

run_job -- ./probe tiocsti
has "$(jget stdout)" "Operation not permitted" "TIOCSTI gives EPERM"
"$PROBE" tiocsti </dev/null | grep -q "not permitted"
[ $? -ne 0 ]; ok $? "TIOCSTI on /dev/null outside is not EPERM (test can fail)"

run_job -- ./probe userns
has "$(jget stdout)" "unshare: failed: Operation not permitted" \
    "unshare(CLONE_NEWUSER) fails"
run_job -- /bin/sh -c 'unshare -U true; echo rc=$?'
has "$(jget stdout)" "rc=1" "unshare(1) cannot make a user namespace"
run_job -- /bin/sh -c 'mount -t tmpfs none /tmp 2>&1; echo rc=$?'
lacks "$(jget stdout)" "rc=0" "mount fails"

# The shim: pid 1 cannot be read or signalled away from the job.
run_job -- /bin/sh -c 'ls /proc/1/fd 2>&1; kill -9 1; echo alive'
has "$(jget stdout)" "alive" "the job cannot kill its init"
lacks "$(jget stdout)" "pipe:" "the job cannot list its init's fds"

done_testing

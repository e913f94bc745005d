/*
 * sandbox-linux-seccomp.c: the job's seccomp filters, loaded last before
 * exec (after Landlock), by the shim.
 *
 * Two filters; the kernel applies the strictest answer of all of them.
 *  1. A few hand-written instructions: the architecture must be the
 *     native one (x86_64 or aarch64) or the process is killed (so i386
 *     `int $0x80` calls die), x32 numbers on x86_64 are killed, and
 *     numbers above the highest this filter was written for get ENOSYS
 *     (a syscall newer than the filter cannot be judged, so it is not run).
 *  2. libseccomp: default allow, with a deny list (EPERM) of what a job
 *     never needs and what widens the kernel's attack surface: mount and
 *     the new mount API, pivot_root, ptrace, process_vm_*, bpf,
 *     perf_event_open, the key syscalls, kexec, module loading,
 *     userfaultfd, io_uring, setns, new user namespaces (clone/unshare
 *     with CLONE_NEWUSER; clone3 gets ENOSYS so libc falls back to clone,
 *     whose flags can be checked), and the TIOCSTI/TIOCLINUX ioctls.
 */
#include "config.h"

#include <sys/prctl.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include <seccomp.h>

#include "shim.h"

#if defined(__x86_64__)
#define SC_ARCH		AUDIT_ARCH_X86_64
#define SC_X32_BIT	0x40000000U
#elif defined(__aarch64__)
#define SC_ARCH		AUDIT_ARCH_AARCH64
#define SC_X32_BIT	0x80000000U	/* no such ABI: high numbers die */
#else
#error "the local sandbox supports x86_64 and aarch64 only"
#endif
/* Highest syscall number this filter was written against (Linux 6.1). */
#define SC_MAX_NR	450U

static const char *const sc_deny[] = {
	"mount", "umount2", "pivot_root", "chroot", "ptrace",
	"process_vm_readv", "process_vm_writev", "bpf", "perf_event_open",
	"keyctl", "add_key", "request_key", "kexec_load", "kexec_file_load",
	"init_module", "finit_module", "delete_module", "userfaultfd",
	"io_uring_setup", "io_uring_enter", "io_uring_register", "setns",
	"open_tree", "move_mount", "fsopen", "fsconfig", "fsmount", "fspick",
	"mount_setattr", "open_by_handle_at", "name_to_handle_at", "swapon",
	"swapoff", "reboot", "acct", "quotactl", "quotactl_fd", "vhangup",
	"syslog", "fanotify_init", "lookup_dcookie", "nfsservctl",
	"iopl", "ioperm", "uselib",
	NULL
};

static int
sc_raw_filter(void)
{
	struct sock_filter	f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SC_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, SC_X32_BIT, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, SC_MAX_NR, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog	prog = { sizeof f / sizeof f[0], f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
		return -errno;
	return 0;
}

static int
sc_rules(scmp_filter_ctx ctx)
{
	const uint32_t	eperm = SCMP_ACT_ERRNO(EPERM);
	size_t		i;
	int		nr, r;

	for (i = 0; sc_deny[i] != NULL; i++) {
		nr = seccomp_syscall_resolve_name(sc_deny[i]);
		if (nr == __NR_SCMP_ERROR || nr < 0)
			continue;	/* not on this architecture */
		if ((r = seccomp_rule_add(ctx, eperm, nr, 0)) != 0)
			return r;
	}
	if ((r = seccomp_rule_add(ctx, eperm, SCMP_SYS(unshare), 1,
	    SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER))) != 0 ||
	    (r = seccomp_rule_add(ctx, eperm, SCMP_SYS(clone), 1,
	    SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER))) != 0 ||
	    (r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS),
	    SCMP_SYS(clone3), 0)) != 0 ||
	    (r = seccomp_rule_add(ctx, eperm, SCMP_SYS(ioctl), 1,
	    SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffU, TIOCSTI))) != 0 ||
	    (r = seccomp_rule_add(ctx, eperm, SCMP_SYS(ioctl), 1,
	    SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffU, TIOCLINUX))) != 0)
		return r;
	return 0;
}

int
shim_seccomp(char *err, size_t len)
{
	scmp_filter_ctx	ctx;
	int		r;

	if ((r = sc_raw_filter()) != 0) {
		snprintf(err, len, "seccomp arch filter: %s", strerror(-r));
		return r;
	}
	if ((ctx = seccomp_init(SCMP_ACT_ALLOW)) == NULL) {
		snprintf(err, len, "seccomp_init failed");
		return -ENOMEM;
	}
	if ((r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH,
	    SCMP_ACT_KILL_PROCESS)) != 0 || (r = sc_rules(ctx)) != 0 ||
	    (r = seccomp_load(ctx)) != 0) {
		snprintf(err, len, "seccomp filter: %s", strerror(-r));
		seccomp_release(ctx);
		return r;
	}
	seccomp_release(ctx);
	return 0;
}

#!/bin/sh
# install.sh: `make install DESTDIR=...` stages everything an operator and a
# developer expect under the configured prefix: the programs, libairlox
# with its headers and a pkg-config file pkg-config can read, the man pages,
# the systemd units, completion and templates; and a small C program builds
# against the staged library through pkg-config and runs.
. "${top_srcdir:-.}/tests/packaging/lib.sh"
need make cc

stage_install
rc=$?
ok $rc "make install DESTDIR=... succeeds"
[ $rc -eq 0 ] || sed 's/^/#   /' "$T/install.log" | tail -n 20
P=$STAGE$PREFIX
mk() { sed -n "s|^$1 = ||p" "$top_builddir/Makefile" | sed "s|\${prefix}|$PREFIX|g; s|\$(prefix)|$PREFIX|g; s|\${exec_prefix}|$PREFIX|g; s|\$(exec_prefix)|$PREFIX|g; s|\${datarootdir}|$PREFIX/share|g; s|\$(datarootdir)|$PREFIX/share|g"; }
bindir=$(mk bindir)
sbindir=$(mk sbindir)
libdir=$(mk libdir)
includedir=$(mk includedir)
mandir=$(mk mandir)
datadir=$(mk datadir)
sysunit=$(mk systemdsystemunitdir)
userunit=$(mk systemduserunitdir)

test -x "$STAGE$bindir/airlox"
ok $? "airlox in bindir ($bindir)"
test -x "$STAGE$sbindir/airlox-relayd"
ok $? "airlox-relayd in sbindir ($sbindir)"
# The runner daemon is installed when this tree builds it.
if [ -x "$RUNNERD" ]; then
	test -x "$STAGE$sbindir/airlox-runnerd"
	ok $? "airlox-runnerd in sbindir"
else
	skip "airlox-runnerd in sbindir" "this tree does not build airlox-runnerd yet"
fi
"$STAGE$bindir/airlox" --version >/dev/null 2>&1
ok $? "the staged airlox runs"
"$STAGE$sbindir/airlox-relayd" --version >/dev/null 2>&1
ok $? "the staged airlox-relayd runs"

ls "$STAGE$libdir"/libairlox.so.* >/dev/null 2>&1
ok $? "libairlox.so.N in libdir ($libdir)"
test -L "$STAGE$libdir/libairlox.so"
ok $? "the libairlox.so development link"
test -f "$STAGE$includedir/airlox.h"
ok $? "airlox.h in includedir"
for h in err buf b64 json crypto; do
	test -f "$STAGE$includedir/airlox/$h.h"
	ok $? "airlox/$h.h"
done
# Every header airlox.h includes is installed.
missing=
for h in $(sed -n 's/^#include "\(airlox\/[a-z]*\.h\)".*/\1/p' "$STAGE$includedir/airlox.h"); do
	test -f "$STAGE$includedir/$h" || missing="$missing $h"
done
is "$missing" "" "every header airlox.h includes is installed"

pc=$STAGE$libdir/pkgconfig/libairlox.pc
test -f "$pc"
ok $? "libairlox.pc in libdir/pkgconfig"
for m in airlox.1 airlox-relayd.8 airlox-runnerd.8 airlox.7; do
	sec=${m##*.}
	test -f "$STAGE$mandir/man$sec/$m"
	ok $? "man page $m"
done

if [ -n "$sysunit" ] && [ "$sysunit" != no ]; then
	for u in airlox-relayd.service airlox-runnerd.service; do
		test -f "$STAGE$sysunit/$u"
		ok $? "system unit $u in $sysunit"
	done
	grep -q "^ExecStart=$sbindir/airlox-relayd\$" "$STAGE$sysunit/airlox-relayd.service"
	ok $? "the relay's unit starts the installed program"
	test -f "$STAGE$userunit/airlox-runner.service"
	ok $? "user unit airlox-runner.service in $userunit"
	! grep -q '@[A-Z_]*@' "$STAGE$userunit/airlox-runner.service"
	ok $? "the installed user unit has no placeholder left"
else
	skip "systemd units" "configured without a systemd unit directory"
fi
test -f "$STAGE$datadir/bash-completion/completions/airlox"
ok $? "bash completion"
test -f "$STAGE$datadir/zsh/site-functions/_airlox"
ok $? "zsh completion"
for f in airlox-runner.service relayd.env org.airlox.runnerd.plist.in; do
	test -f "$STAGE$datadir/airlox/$f"
	ok $? "template $f in the package data directory"
done

# A program that uses the staged library through pkg-config. The .pc names
# the configured prefix; --define-prefix is not in every pkg-config, so
# point prefix at the stage.
if command -v pkg-config >/dev/null 2>&1; then
	export PKG_CONFIG_PATH="$STAGE$libdir/pkgconfig"
	pkg-config --exists libairlox
	ok $? "pkg-config finds libairlox in the stage"
	flags=$(pkg-config --define-variable=prefix="$P" --cflags --libs libairlox 2>&1)
	ok $? "pkg-config --cflags --libs libairlox"
	like "$flags" "-lairlox" "it links -lairlox"
	cat >"$T/use.c" <<'CEOF'
#include <stdio.h>
#include <string.h>
#include <airlox.h>

int
main(void)
{
	const char	*n = alx_errname(ALX_ERR_BAD_SIGNATURE);

	printf("%s\n", n);
	return n != NULL && strcmp(n, "bad_signature") == 0 ? 0 : 1;
}
CEOF
	# A library built with sanitizers needs its users built with them.
	san=$(sed -n 's/^SAN_CFLAGS = //p' "$top_builddir/Makefile")
	# shellcheck disable=SC2086
	cc $san -o "$T/use" "$T/use.c" $flags >"$T/cc.log" 2>&1
	ok $? "a C program compiles and links against the staged libairlox"
	sed 's/^/#   /' "$T/cc.log"
	out=$(LD_LIBRARY_PATH="$STAGE$libdir" "$T/use" 2>&1)
	ok $? "and runs with it"
	is "$out" bad_signature "alx_errname() answers from the staged library"
	if command -v ldd >/dev/null 2>&1; then
		like "$(LD_LIBRARY_PATH="$STAGE$libdir" ldd "$T/use")" \
		    "libairlox\.so\.[0-9]+ => $STAGE" "the program loads the staged libairlox.so"
	fi
else
	skip "pkg-config use" "no pkg-config"
fi

# Uninstall leaves no file behind.
make -C "$top_builddir" -s uninstall DESTDIR="$STAGE" >"$T/uninstall.log" 2>&1
ok $? "make uninstall DESTDIR=..."
left=$(find "$STAGE" -type f -o -type l | sed "s|^$STAGE||" | head -n 5)
is "$left" "" "make uninstall removes every installed file"
done_testing

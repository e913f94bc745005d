# lib.sh: what the packaging tests share beyond tests/lib.sh (sourced,
# POSIX sh): absolute paths to the source and build trees, and a staged
# install. CLEANUP_HOOK runs at exit, before $T is removed.
# shellcheck disable=SC2034 # variables for the tests that source this

top_builddir=$(cd "${top_builddir:-.}" && pwd)
top_srcdir=$(cd "${top_srcdir:-.}" && pwd)
. "$top_srcdir/tests/lib.sh"

# A staged `make install DESTDIR=$T/stage` of this build tree; sets PREFIX
# (the configured prefix) and STAGE (where it landed).
stage_install() {
	PREFIX=$(sed -n 's/^prefix = //p' "$top_builddir/Makefile")
	STAGE=$T/stage
	make -C "$top_builddir" -s install DESTDIR="$STAGE" >"$T/install.log" 2>&1
}

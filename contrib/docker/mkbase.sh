#!/bin/sh
# mkbase.sh: make a Debian 12 root file system with debootstrap, as a tar file
# that `docker import` turns into a base image, for building the relay's
# image without any registry but Debian's own package archive.
#
#	contrib/docker/mkbase.sh [-m MIRROR] [-s SUITE] OUT.tar [PACKAGE ...]
#
# The packages are added to debootstrap's minbase variant (the relay's
# Dockerfile installs whatever of its build packages is missing, so naming
# them here only saves that step). MIRROR defaults to the first Debian
# archive named in /etc/apt/sources.list{,.d}, else deb.debian.org. Needs
# root and debootstrap. The tar file is written under a temporary name and
# renamed into place, so a cache never holds half a file.
set -eu

mirror=
suite=bookworm
while getopts m:s: opt; do
	case $opt in
	m) mirror=$OPTARG ;;
	s) suite=$OPTARG ;;
	*) sed -n '6p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { sed -n '6p' "$0" >&2; exit 2; }
out=$1
shift

if [ -z "$mirror" ]; then
	mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.sources \
	    /etc/apt/sources.list.d/*.list 2>/dev/null |
	    sed -n -e 's|^URIs:[ \t]*\(http[^ \t]*/debian\)/*$|\1|p' \
	    -e 's|^deb[ \t]\{1,\}\(http[^ \t]*/debian\)/*[ \t].*|\1|p' |
	    head -n 1)
	[ -n "$mirror" ] || mirror=http://deb.debian.org/debian
fi

include=$(printf '%s\n' "$@" | paste -s -d , -)
root=$(mktemp -d "${TMPDIR:-/tmp}/airlox-rootfs.XXXXXX")
trap 'rm -rf "$root" "$out.tmp"' EXIT
debootstrap --variant=minbase ${include:+--include="$include"} \
    "$suite" "$root" "$mirror" >"$root.log" 2>&1 || {
	tail -n 20 "$root.log" >&2
	rm -f "$root.log"
	exit 1
}
rm -f "$root.log"
# What an image does not need: downloaded packages and lists.
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
mkdir -p "$(dirname "$out")"
tar --numeric-owner -C "$root" -cf "$out.tmp" .
mv "$out.tmp" "$out"

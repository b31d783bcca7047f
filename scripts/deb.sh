#!/usr/bin/env bash
# `make deb`: the Debian package postgresql-15-idgen_<version>_<arch>.deb,
# built with Debian's tooling (debian/, pg_buildext, dpkg-buildpackage -b) in
# a scratch copy of the tree, so the tree itself keeps its build.
#
#   scripts/deb.sh [output directory]      (default: the top of the tree)
#
# <version> is idgen.control's default_version; debian/changelog's top entry
# must say the same (the package is native: no Debian revision).  Needs
# dpkg-dev, debhelper and postgresql-server-dev-all (scripts/deps.sh).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd -P)
outdir=${1:-$root}
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd -P)

for tool in dpkg-buildpackage dpkg-parsechangelog dh pg_buildext; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "deb: $tool is missing: install dpkg-dev, debhelper and postgresql-server-dev-all (make deps)" >&2
		exit 1
	fi
done

version=$(sed -n "s/^[[:space:]]*default_version[[:space:]]*=[[:space:]]*'\([^']*\)'.*/\1/p" "$root/idgen.control")
if [ -z "$version" ]; then
	echo "deb: no default_version in $root/idgen.control" >&2
	exit 1
fi
changelog=$(dpkg-parsechangelog -l "$root/debian/changelog" -S Version)
if [ "$changelog" != "$version" ]; then
	echo "deb: idgen.control's default_version is $version, but debian/changelog's top entry is $changelog." >&2
	echo "deb: add an entry for $version to debian/changelog (dch -v $version)." >&2
	exit 1
fi

work=$(mktemp -d /tmp/idgen-deb.XXXXXX)
trap 'rm -rf "$work"' EXIT
src=$work/idgen-$version
mkdir "$src"
# the tree as it stands, without git and without build or test products:
# dpkg-buildpackage builds from scratch
tar -C "$root" --exclude=.git --exclude='*.o' --exclude='*.so' --exclude='*.bc' \
	--exclude='*.deb' --exclude=./tmp_check --exclude=./results --exclude=./log \
	--exclude=./regression.diffs --exclude=./regression.out \
	--exclude='./sql/idgen--*.sql' --exclude='./idgen-*.zip' \
	--exclude=./debian/.debhelper --exclude='./debian/postgresql-*-idgen' \
	-cf - . | tar -C "$src" -xf -

echo "deb: building postgresql-15-idgen $version in $src"
export DEB_BUILD_OPTIONS=${DEB_BUILD_OPTIONS:-parallel=2}
if ! (cd "$src" && dpkg-buildpackage -us -uc -b) >"$work/build.log" 2>&1; then
	tail -n 80 "$work/build.log" >&2
	echo "deb: dpkg-buildpackage failed (the end of its output is above)" >&2
	exit 1
fi
grep -E 'warning:' "$work/build.log" >&2 || true

shopt -s nullglob
debs=("$work"/postgresql-*-idgen_"$version"_*.deb)
if [ ${#debs[@]} -eq 0 ]; then
	echo "deb: dpkg-buildpackage made no postgresql-*-idgen_${version}_*.deb" >&2
	ls -l "$work" >&2
	exit 1
fi
for deb in "${debs[@]}"; do
	rm -f "$outdir/$(basename "$deb")"
	mv "$deb" "$outdir/"
	echo "deb: $outdir/$(basename "$deb")"
done

#!/usr/bin/env bash
# `make deb`: the Debian packages postgresql-<major>-idgen_<version>_<arch>.deb
# for PostgreSQL 15 (this machine, Debian 12), 17 (the Debian 13 chroot) and
# 18 (the Debian unstable chroot; scripts/chroot.sh makes and keeps both),
# and idgen-gateway_<version>_<arch>.deb (the gateway, the idgen tool and
# monitoring/; Debian 12's, from the 15 build: the chroot builds make one
# too, which is left there), built with Debian's tooling (debian/,
# pg_buildext, dpkg-buildpackage -b) in a scratch copy of the tree, so the
# tree itself keeps its build.
#
#   scripts/deb.sh [output directory]      (default: the top of the tree)
#
# debian/pgversions says 15+: pg_buildext builds for every version from 15
# up that the Debian release supports, which is 15 on Debian 12, 17 on 13
# and 18 on unstable; `pg_buildext updatecontrol` writes debian/control's
# postgresql-<major>-idgen for it in the scratch copy (the control file in
# the tree is Debian 12's).
#
# <version> is idgen.control's default_version; debian/changelog's top entry
# must say the same (the package is native: no Debian revision).  Needs
# dpkg-dev and debian/control's Build-Depends (scripts/deps.sh).  The
# chroot builds need root; IDGEN_DEB_VERSIONS="15" (or "17 18", ...) builds
# only some, and as another user than root only 15 is built, with a note.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd -P)
# shellcheck source=scripts/chroot.sh
. "$root/scripts/chroot.sh"
outdir=${1:-$root}
if [ -n "${IDGEN_DEB_VERSIONS:-}" ]; then
	majors=$IDGEN_DEB_VERSIONS
elif [ "$(id -u)" -eq 0 ]; then
	majors="15 17 18"
else
	majors=15
	echo "deb: note: only PostgreSQL 15 is built: the 17 and 18 packages are built in chroots, which needs root" >&2
fi
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
	--exclude='./sql/idgen--*--*.sql' --exclude="./sql/idgen--$version.sql" --exclude='./idgen-*.zip' \
	--exclude=./debian/.debhelper --exclude='./debian/postgresql-*-idgen' \
	-cf - . | tar -C "$src" -xf -

export DEB_BUILD_OPTIONS=${DEB_BUILD_OPTIONS:-parallel=2}

# the package of one major version, from $src, into $outdir
build_one() {
	local v=$1 dir log debs deb
	log=$work/build-$v.log
	echo "deb: building postgresql-$v-idgen $version"
	if [ "$v" = 15 ]; then
		if ! (cd "$src" && pg_buildext updatecontrol && dpkg-buildpackage -us -uc -b) >"$log" 2>&1; then
			tail -n 80 "$log" >&2
			echo "deb: dpkg-buildpackage failed for PostgreSQL $v (the end of its output is above)" >&2
			return 1
		fi
		debs=("$(dirname "$src")"/postgresql-"$v"-idgen_"$version"_*.deb
			"$(dirname "$src")"/idgen-gateway_"$version"_*.deb)
	else
		# The chroot's lock is for those who install into its PostgreSQL
		# (scripts/versions.sh, deb_check.sh) and for making the chroot: a
		# package build installs nothing there and works in /build/deb, in a
		# mount namespace of its own (idgen_chroot_run), so once the chroot
		# is made it runs beside them (make test: beside the version layer)
		if idgen_chroot_ok "$v"; then
			dir=$(idgen_chroot_path "$v")
		else
			idgen_chroot_lock "$v"
			dir=$(idgen_chroot_ensure "$v") || { idgen_chroot_unlock; return 1; }
			idgen_chroot_unlock
		fi
		rm -rf "$dir/build/deb"
		mkdir -p "$dir/build/deb"
		cp -a "$src" "$dir/build/deb/"
		if ! idgen_chroot_run "$v" "cd /build/deb/idgen-$version && pg_buildext updatecontrol &&
			DEB_BUILD_OPTIONS='$DEB_BUILD_OPTIONS' dpkg-buildpackage -us -uc -b" >"$log" 2>&1; then
			tail -n 80 "$log" >&2
			echo "deb: dpkg-buildpackage failed for PostgreSQL $v in $dir (the end of its output is above)" >&2
			return 1
		fi
		debs=("$dir"/build/deb/postgresql-"$v"-idgen_"$version"_*.deb)
	fi
	grep -E 'warning:' "$log" >&2 || true
	for deb in "${debs[@]}"; do
		if [ ! -f "$deb" ]; then
			echo "deb: dpkg-buildpackage made no $(basename "$deb")" >&2
			return 1
		fi
	done
	for deb in "${debs[@]}"; do
		rm -f "$outdir/$(basename "$deb")"
		mv "$deb" "$outdir/"
		echo "deb: $outdir/$(basename "$deb")"
	done
}

# each major version's build in its own copy of the tree
orig=$src
failed=0
for v in $majors; do
	src=$work/$v/idgen-$version
	mkdir -p "$work/$v"
	cp -a "$orig" "$src"
	build_one "$v" || failed=$((failed + 1))
done
[ "$failed" -eq 0 ]

#!/usr/bin/env bash
# The previous release of idgen, built and installed into a copy of
# PostgreSQL of its own, for the rolling-upgrade TAP file
# (test/t/180_rolling_upgrade.pl).  make test's TAP layer calls it
# (scripts/test.sh) where .git is, since the tests run in a copy without it.
#
#   scripts/prev_release.sh DEST
#
# The previous release is found in the git history of this tree:
#   - the newest tag vX.Y whose version is at most the tree's
#     (idgen.control's default_version) and that HEAD contains, or the
#     newest release test/data/releases records (version and commit) that
#     HEAD contains, whichever is newer; or, failing both,
#   - the last commit before default_version last changed on HEAD's
#     first-parent line: the commit before the one that moved the tree past
#     that release.
# It is exported (git archive) into DEST/src and installed into DEST/pg, a
# copy of the installation PG_CONFIG names (bin, lib, share and include under
# one prefix, so it relocates), from which any idgen is removed first.  The
# test reads DEST/install_path (the directory with bin/ and lib/),
# DEST/version and DEST/commit.
#
# Exits non-zero, with a message saying why, if no release is found or the
# build fails: the TAP file then fails too, it never skips.
set -euo pipefail

dest=${1:?usage: scripts/prev_release.sh DEST}
root=$(cd "$(dirname "$0")/.." && pwd -P)
PG_CONFIG=${PG_CONFIG:-$(command -v /usr/lib/postgresql/15/bin/pg_config || command -v pg_config)}

fail() {
	echo "prev_release: FAIL: $*" >&2
	exit 1
}

if ! git -C "$root" rev-parse --verify -q HEAD >/dev/null; then
	fail "$root is not a git checkout; the previous release is found in its history"
fi

control_version() {
	# default_version in idgen.control at commit $1 (empty if none)
	git -C "$root" show "$1:idgen.control" 2>/dev/null |
		sed -n "s/^default_version *= *'\([^']*\)'.*/\1/p"
}

# true if version $1 <= version $2 (X.Y numbers)
version_le() {
	[ "$(printf '%s\n%s\n' "$1" "$2" | sort -t. -k1,1n -k2,2n | head -n 1)" = "$1" ]
}

tree_version=$(control_version HEAD)
[ -n "$tree_version" ] || fail "no default_version in HEAD's idgen.control"

commit='' version='' how=''
# 1. the newest release tag at or below the tree's version, contained in HEAD
for tag in $(git -C "$root" tag --list 'v[0-9]*.[0-9]*' --merged HEAD | sort -t. -k1.2,1n -k2,2n -r); do
	v=${tag#v}
	if version_le "$v" "$tree_version"; then
		commit=$(git -C "$root" rev-parse "$tag^{commit}")
		version=$v
		how="tag $tag"
		break
	fi
done
# 2. the newest release test/data/releases records, at or below the tree's
# version and in HEAD's history, when no tag names it or a newer one (a
# release recorded there before its tag reached this clone)
if [ -f "$root/test/data/releases" ]; then
	while read -r v c; do
		case $v in '' | '#'*) continue ;; esac
		if version_le "$v" "$tree_version" &&
			{ [ -z "$version" ] || ! version_le "$v" "$version"; } &&
			git -C "$root" merge-base --is-ancestor "$c" HEAD 2>/dev/null; then
			commit=$(git -C "$root" rev-parse "$c^{commit}")
			version=$v
			how="test/data/releases names $(git -C "$root" rev-parse --short "$c"), and no tag in this clone names it or a newer release"
		fi
	done <"$root/test/data/releases"
fi
# 3. neither: the commit before default_version last moved on the first-parent line
if [ -z "$commit" ]; then
	for c in $(git -C "$root" rev-list --first-parent HEAD -- idgen.control); do
		parent=$(git -C "$root" rev-parse -q --verify "$c^1" 2>/dev/null) || break
		pv=$(control_version "$parent")
		if [ -n "$pv" ] && [ "$pv" != "$(control_version "$c")" ]; then
			commit=$parent
			version=$pv
			how="no release tag in this clone; the commit before $(git -C "$root" rev-parse --short "$c") moved default_version past $pv"
			break
		fi
	done
fi
[ -n "$commit" ] || fail "no previous release: no tag vX.Y at or below $tree_version in HEAD's history, and no commit in it where idgen.control's default_version changed (a shallow clone? fetch the tags or the history)"

echo "prev_release: $version at $(git -C "$root" rev-parse --short "$commit") ($how); the tree is $tree_version"

rm -rf "$dest"
mkdir -p "$dest/src" "$dest/pg"
git -C "$root" archive --format=tar "$commit" | tar -C "$dest/src" -xf -

# the copy of PostgreSQL: the same absolute layout under $dest/pg, so the
# binaries find their share and lib directories relative to themselves
bindir=$("$PG_CONFIG" --bindir)
pghome=$(dirname "$bindir")
sharedir=$("$PG_CONFIG" --sharedir)
includedir=$("$PG_CONFIG" --includedir)
pkglibdir=$("$PG_CONFIG" --pkglibdir)
for d in "$pghome" "$sharedir" "$includedir"; do
	mkdir -p "$dest/pg$(dirname "$d")"
	cp -a "$d" "$dest/pg$(dirname "$d")/"
done
rm -rf "$dest/pg$pkglibdir"/idgen.so "$dest/pg$pkglibdir"/bitcode/idgen* "$dest/pg$sharedir"/extension/idgen[.-]*
pgc=$dest/pg$bindir/pg_config
[ "$("$pgc" --sharedir)" = "$dest/pg$sharedir" ] || fail "the copy of PostgreSQL in $dest/pg does not relocate ($pgc --sharedir says $("$pgc" --sharedir))"

if ! make -C "$dest/src" -s -j2 PG_CONFIG="$pgc" with_llvm=no all install >"$dest/build.log" 2>&1; then
	tail -n 40 "$dest/build.log" >&2
	fail "building $version ($commit) failed; the log is $dest/build.log"
fi
[ -f "$dest/pg$pkglibdir/idgen.so" ] || fail "the build of $version installed no idgen.so"

echo "$dest/pg$pghome" >"$dest/install_path"
echo "$version" >"$dest/version"
echo "$commit" >"$dest/commit"
chmod -R a+rX "$dest"
echo "prev_release: installed into $dest/pg$pghome"

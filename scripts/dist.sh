#!/usr/bin/env bash
# `make dist`: the PGXN release archive idgen-<version>.zip, every file under
# the directory idgen-<version>/, <version> being META.json's.
#
#   scripts/dist.sh [output directory]      (default: the top of the tree)
#
# In a git checkout it is `git archive` of HEAD: what is committed, nothing
# else.  A tree without .git (the copy scripts/test.sh makes, an unpacked
# release) has no HEAD, so the tree is archived as it stands, leaving out
# what .gitignore lists as build and test products; test/dist_check.py
# checks that both ways give the same files.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd -P)
outdir=${1:-$root}
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd -P)

# the release version is META.json's top-level "version", its first one
version=$(sed -n 's/^[[:space:]]*"version"[[:space:]]*:[[:space:]]*"\([^"]*\)".*/\1/p' "$root/META.json" | head -n 1)
if [ -z "$version" ]; then
	echo "dist: no \"version\" in $root/META.json" >&2
	exit 1
fi
name=idgen-$version
zip=$outdir/$name.zip
rm -f "$zip"

# only a checkout whose top is this very directory: a copy of the tree
# inside some other repository must not archive that one
top=$(git -C "$root" rev-parse --show-toplevel 2>/dev/null || true)
if [ -n "$top" ] && [ "$(cd "$top" && pwd -P)" = "$root" ]; then
	if [ -n "$(git -C "$root" status --porcelain --untracked-files=no)" ]; then
		echo "dist: note: uncommitted changes are not in the archive (it is HEAD)" >&2
	fi
	git -C "$root" archive --format=zip --prefix="$name/" -o "$zip" HEAD
	echo "dist: $zip (git archive of HEAD $(git -C "$root" rev-parse --short HEAD))"
	exit 0
fi

stage=$(mktemp -d /tmp/idgen-dist.XXXXXX)
trap 'rm -rf "$stage"' EXIT
mkdir "$stage/$name"
# .gitignore's patterns, spelt for find
(cd "$root" && find . \
	\( -name .git -o -name '*.dSYM' -o -name results -o -name output_iso \
	   -o -name tmp_check -o -name log -o -name 'tmp_regress' -o -name 'tmp_iso*' \
	   -o -path ./bench/out -o -path ./test/fuzz/corpus-run \) -prune \
	-o -type f \
	! -name '*.o' ! -name '*.so' ! -name '*.bc' \
	! -name regression.diffs ! -name regression.out \
	! \( -path './test/unit/test_*' ! -name 'test_*.c' \) \
	! \( -path './test/fuzz/fuzz_*' ! -name 'fuzz_*.c' \) \
	! -path './idgen-*.zip' \
	! \( -path './sql/idgen--*.sql' ! -path './sql/idgen--0.1.sql' \) \
	! -path './gateway/idgen' ! -path './gateway/idgen-gateway' \
	-print0) |
	tar -C "$root" --null -T - -cf - | tar -C "$stage/$name" -xf -
if command -v zip >/dev/null 2>&1; then
	(cd "$stage" && zip -q -r -X "$zip" "$name")
else
	(cd "$stage" && python3 -m zipfile -c "$zip" "$name")
fi
echo "dist: $zip (no git checkout here: the tree as it stands)"

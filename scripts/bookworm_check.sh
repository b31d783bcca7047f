#!/usr/bin/env bash
# The README's Installation, tried where a user would: in a minimal Debian 12
# (the bookworm-min chroot of scripts/chroot.sh: minbase with only
# postgresql-server-dev-15, libpq-dev and build-essential, no libmicrohttpd,
# nothing else of make test's), as root, plain `make` and `make install`.
# Checks that both exit 0, that the build output has no "warning:" (the
# Makefile builds with -Wall -Wextra), that idgen.so, idgen.control, the
# install script and every upgrade script are in the chroot's PostgreSQL 15
# directories and nothing was written elsewhere, and that `make gateway`
# fails with the one line that names libmicrohttpd and nothing else of its
# own.  Run by the version layer (scripts/versions.sh), at the same time as
# the 17 and 18 chroots.
#
#   scripts/bookworm_check.sh [TREE.tar]
#
# TREE.tar is the tree to build (versions.sh passes git archive HEAD's);
# without it, git archive HEAD of this checkout, or the tree itself when it
# is no git checkout.  Needs root (the chroot).  Prints one line per check,
# exits non-zero if one failed.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd -P)
# shellcheck source=scripts/chroot.sh
. "$root/scripts/chroot.sh"

kind=bookworm-min
pgc=/usr/lib/postgresql/15/bin/pg_config
start=$SECONDS
failures=0
ok() { echo "bookworm: ok: $*"; }
fail() {
	echo "bookworm: FAIL: $*"
	failures=$((failures + 1))
}
check() {
	local what=$1
	shift
	if "$@"; then ok "$what"; else fail "$what"; fi
}

if [ "$(id -u)" -ne 0 ]; then
	echo "bookworm: FAIL: the chroot needs root"
	exit 1
fi

work=$(mktemp -d /tmp/idgen-bookworm.XXXXXX)
trap 'rm -rf "$work"' EXIT
tree=${1:-}
if [ -z "$tree" ]; then
	tree=$work/tree.tar
	if [ -d "$root/.git" ] || [ -f "$root/.git" ]; then
		git -C "$root" archive --format=tar HEAD >"$tree" || { echo "bookworm: FAIL: git archive HEAD"; exit 1; }
	else
		tar -C "$root" --exclude='*.o' --exclude='*.so' --exclude='*.bc' --exclude=./tmp_check \
			--exclude=./results --exclude=./log -cf "$tree" .
	fi
fi

idgen_chroot_lock "$kind"
if ! dir=$(idgen_chroot_ensure "$kind"); then
	echo "bookworm: FAIL: no $kind chroot"
	exit 1
fi
ok "the $kind chroot ($dir): $((SECONDS - start)) s to have it"

# what an earlier run installed would make the checks below pass by itself
rm -rf "$dir/build/idgen" "$dir/build/out"
mkdir -p "$dir/build/idgen" "$dir/build/out"
tar -C "$dir/build/idgen" -xf "$tree" || { echo "bookworm: FAIL: unpacking the tree"; exit 1; }

idgen_chroot_run "$kind" '
	pgc='"$pgc"'
	out=/build/out
	rm -rf "$($pgc --pkglibdir)/idgen.so" "$($pgc --pkglibdir)/bitcode/idgen" \
		"$($pgc --pkglibdir)/bitcode/idgen.index.bc" "$($pgc --sharedir)"/extension/idgen[.-]*
	$pgc --pkglibdir >$out/pkglibdir
	$pgc --sharedir >$out/sharedir
	$pgc --bindir >$out/bindir
	dpkg-query -W -f "\${Package}\n" >$out/packages
	[ -e /usr/include/microhttpd.h ] && echo yes >$out/microhttpd_h
	cd /build/idgen || exit 1
	make >$out/make.log 2>&1; echo $? >$out/make.rc
	make install >$out/install.log 2>&1; echo $? >$out/install.rc
	make gateway >$out/gateway.log 2>&1; echo $? >$out/gateway.rc
	exit 0
' || fail "running make in the chroot"

out=$dir/build/out
pkglibdir=$(cat "$out/pkglibdir")
sharedir=$(cat "$out/sharedir")
bindir=$(cat "$out/bindir")
version=$(sed -n "s/^[[:space:]]*default_version[[:space:]]*=[[:space:]]*'\([^']*\)'.*/\1/p" "$dir/build/idgen/idgen.control")

# the check proves nothing if the chroot has more than a user's Debian 12
check "no libmicrohttpd in the chroot (no microhttpd.h, no libmicrohttpd-dev)" \
	bash -c "[ ! -e '$out/microhttpd_h' ] && ! grep -qx 'libmicrohttpd-dev' '$out/packages'"
check "$(wc -l <"$out/packages") packages, of them postgresql-server-dev-15, libpq-dev and build-essential" \
	bash -c "grep -qx postgresql-server-dev-15 '$out/packages' && grep -qx libpq-dev '$out/packages' && grep -qx build-essential '$out/packages'"

rc=$(cat "$out/make.rc" 2>/dev/null || echo none)
if [ "$rc" = 0 ]; then ok "make exits 0"; else
	tail -n 8 "$out/make.log"
	fail "make exits 0 (exit $rc)"
fi
rc=$(cat "$out/install.rc" 2>/dev/null || echo none)
if [ "$rc" = 0 ]; then ok "make install exits 0"; else
	tail -n 8 "$out/install.log"
	fail "make install exits 0 (exit $rc)"
fi
warnings=$(cat "$out/make.log" "$out/install.log" | grep -c 'warning:')
if [ "$warnings" -eq 0 ]; then ok "no warning in the output of make and make install"; else
	grep 'warning:' "$out/make.log" "$out/install.log" | head -n 20
	fail "no warning in the output of make and make install ($warnings)"
fi
check "make built nothing in gateway/" bash -c "! ls '$dir/build/idgen/gateway/'*.o >/dev/null 2>&1"

# the installed files: the module, the control file, the install script of
# the default version, the oldest install script and every upgrade script
want=("$pkglibdir/idgen.so" "$sharedir/extension/idgen.control"
	"$sharedir/extension/idgen--$version.sql" "$sharedir/extension/idgen--0.1.sql")
for f in "$dir/build/idgen"/sql/updates/idgen--*--*.sql; do
	want+=("$sharedir/extension/$(basename "$f")")
done
missing=()
for f in "${want[@]}"; do
	[ -f "$dir$f" ] || missing+=("$f")
done
check "make install put the ${#want[@]} files (idgen.so, idgen.control, idgen--$version.sql, idgen--0.1.sql and $((${#want[@]} - 4)) upgrade scripts) under $pkglibdir and $sharedir/extension (missing: ${missing[*]:-none})" \
	test "${#want[@]}" -gt 4 -a "${#missing[@]}" -eq 0
# every path install wrote to, as its commands quote it (make's own
# "Entering directory" lines left out), is PostgreSQL 15's
outside=$(grep -vE '^make(\[[0-9]+\])?: ' "$out/install.log" | grep -o "'/[^']*'" | tr -d "'" |
	grep -vE "^(/usr/lib/postgresql/15/|/usr/share/postgresql/15/)" | sort -u | tr '\n' ' ')
check "make install wrote nowhere else (elsewhere: ${outside:-none})" test -z "$outside"
check "make install installed no idgen-gateway and no idgen" \
	bash -c "[ ! -e '$dir$bindir/idgen-gateway' ] && [ ! -e '$dir$bindir/idgen' ]"

# make gateway: fails, and of its output only make's own lines (the recipe
# it echoes, entering and leaving gateway/, the errors) and the one line
# naming what is missing
rc=$(cat "$out/gateway.rc" 2>/dev/null || echo none)
check "make gateway fails (exit $rc)" bash -c "[ '$rc' != none ] && [ '$rc' -ne 0 ]"
said=$(grep -vE '^make(\[[0-9]+\])?: |^make -C gateway ' "$out/gateway.log")
if [ "$said" = "gateway: libmicrohttpd's header microhttpd.h is missing: install libmicrohttpd-dev (Debian) to build idgen-gateway" ]; then
	ok "and says only: $said"
else
	cat "$out/gateway.log"
	fail "make gateway says one line naming microhttpd.h and libmicrohttpd-dev, nothing else"
fi

echo "bookworm: $failures failure(s); $((SECONDS - start)) s"
[ "$failures" -eq 0 ]

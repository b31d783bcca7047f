#!/usr/bin/env bash
# make test's "PGXS build without libmicrohttpd" layer: plain `make` and
# `make install`, as the README's Installation gives them, build and install
# the extension with only the server headers and libpq, and `make gateway`
# says in one line that libmicrohttpd is missing and fails.
#
# libmicrohttpd-dev cannot be taken off a machine that make test needs it
# on, so the check hides it instead: in a private mount namespace (unshare
# -m) a copy of /usr/include without its header is bound over /usr/include.
# It installs into a relocated copy of PostgreSQL made under a temporary
# directory (PG_CONFIG's bin, share and include trees), never into the
# system's, and builds in a copy of the tree.  Then, with the header back
# (outside the namespace), `make gateway` and `make gateway-install` put
# idgen-gateway, idgen and monitoring/ into that copy.
#
#   scripts/build_check.sh
#
# It needs a mount namespace: root, or an unprivileged user namespace
# (unshare -rm).  Without one it skips with a message, unless
# IDGEN_REQUIRE_BUILD_CHECK=1, which makes that a failure.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd -P)
PG_CONFIG=${PG_CONFIG:-$(command -v /usr/lib/postgresql/15/bin/pg_config || command -v pg_config)}

failures=0
ok() { echo "build_check: ok: $*"; }
fail() {
	echo "build_check: FAIL: $*" >&2
	failures=$((failures + 1))
}
check() {
	local what=$1
	shift
	if "$@"; then ok "$what"; else fail "$what"; fi
}

# --- inside the namespace: the header hidden ---------------------------------------

if [ "${1:-}" = --inside ]; then
	work=$2
	pgc=$3
	src=$work/src
	mount --make-rprivate / && mount --bind "$work/include" /usr/include || {
		echo "build_check: FAIL: could not bind $work/include over /usr/include" >&2
		exit 1
	}
	# the check means nothing if the compiler still finds the header
	check "microhttpd.h is hidden: the compiler finds no <microhttpd.h>" \
		bash -c "! printf '#include <microhttpd.h>\n' | \${CC:-cc} -E -x c - >/dev/null 2>&1"

	pkglibdir=$("$pgc" --pkglibdir)
	sharedir=$("$pgc" --sharedir)
	bindir=$("$pgc" --bindir)
	version=$(sed -n "s/^[[:space:]]*default_version[[:space:]]*=[[:space:]]*'\([^']*\)'.*/\1/p" "$src/idgen.control")

	if make -C "$src" -j2 PG_CONFIG="$pgc" >"$work/make.log" 2>&1; then
		ok "make: the extension builds"
	else
		tail -n 40 "$work/make.log" >&2
		fail "make: the extension builds"
	fi
	check "make built no gateway object" bash -c "! ls '$src'/gateway/*.o >/dev/null 2>&1"
	if make -C "$src" PG_CONFIG="$pgc" install >"$work/install.log" 2>&1; then
		ok "make install"
	else
		tail -n 40 "$work/install.log" >&2
		fail "make install"
	fi
	for f in "$pkglibdir/idgen.so" "$sharedir/extension/idgen.control" "$sharedir/extension/idgen--$version.sql"; do
		check "make install put ${f#"$work"/pg} into the copy" test -f "$f"
	done
	# every path install wrote to, quoted in its log, is in the copy
	outside=$(grep -o "'/[^']*'" "$work/install.log" | tr -d "'" | grep -v "^$work/" | sort -u | tr '\n' ' ')
	check "make install wrote nowhere outside the copy (outside: ${outside:-none})" test -z "$outside"
	check "make install installed no idgen-gateway and no idgen" \
		bash -c "[ ! -e '$bindir/idgen-gateway' ] && [ ! -e '$bindir/idgen' ]"

	make -C "$src" PG_CONFIG="$pgc" gateway >"$work/gateway.log" 2>&1
	rc=$?
	check "make gateway fails (exit $rc)" test "$rc" -ne 0
	said=$(grep -c microhttpd "$work/gateway.log")
	check "and says why in one line (lines naming microhttpd: $said)" test "$said" -eq 1
	check "that line names the header and the package" \
		grep -q "^gateway: libmicrohttpd's header microhttpd.h is missing: install libmicrohttpd-dev" "$work/gateway.log"
	check "before any compiler error" bash -c "! grep -qE 'error:|fatal error' '$work/gateway.log'"
	[ "$failures" -eq 0 ] || cat "$work/gateway.log" >&2
	make -C "$src" PG_CONFIG="$pgc" gateway-install >"$work/gateway-install.log" 2>&1
	rc=$?
	check "make gateway-install fails as well (exit $rc) and installs nothing" \
		bash -c "[ $rc -ne 0 ] && [ ! -e '$bindir/idgen-gateway' ] && [ ! -e '$sharedir/idgen' ]"
	# the command-line tool alone needs no libmicrohttpd (gateway/Makefile)
	check "make -C gateway idgen builds the idgen tool without it" \
		make -C "$src/gateway" -s PG_CONFIG="$pgc" idgen
	make -C "$src/gateway" -s PG_CONFIG="$pgc" clean-idgen >/dev/null 2>&1
	echo "build_check: $failures failure(s) without libmicrohttpd"
	[ "$failures" -eq 0 ]
	exit
fi

# --- outside: the copies, then the namespace ------------------------------------------

if [ ! -x "$PG_CONFIG" ]; then
	echo "build_check: FAIL: no pg_config ($PG_CONFIG)" >&2
	exit 1
fi
if [ "$(id -u)" -eq 0 ]; then
	ns=(unshare -m)
else
	ns=(unshare -r -m)
fi
if ! "${ns[@]}" true 2>/dev/null; then
	if [ "${IDGEN_REQUIRE_BUILD_CHECK:-}" = 1 ]; then
		echo "build_check: FAIL: IDGEN_REQUIRE_BUILD_CHECK=1, but ${ns[*]} does not work here" >&2
		exit 1
	fi
	echo "build_check: skipped: hiding a header needs a mount namespace (${ns[*]}: root or user namespaces; IDGEN_REQUIRE_BUILD_CHECK=1 makes this a failure)"
	exit 0
fi

work=$(mktemp -d /tmp/idgen-buildcheck.XXXXXX)
trap 'rm -rf "$work"' EXIT

# the relocated PostgreSQL: pg_config finds its directories relative to
# itself, so a copy of the trees under $work/pg answers with $work/pg paths
pgroot=$(cd "$(dirname "$PG_CONFIG")/.." && pwd -P)
for d in "$pgroot" "$("$PG_CONFIG" --sharedir)" "$("$PG_CONFIG" --includedir)"; do
	mkdir -p "$work/pg$(dirname "$d")"
	cp -a "$d" "$work/pg$(dirname "$d")/" || { echo "build_check: FAIL: could not copy $d" >&2; exit 1; }
done
pgc=$work/pg$pgroot/bin/$(basename "$PG_CONFIG")
check "the copy's pg_config points into the copy" \
	bash -c "case \"\$('$pgc' --pkglibdir)\" in '$work'/pg/*) ;; *) exit 1 ;; esac"
# whatever of idgen the PostgreSQL copied had (make test installs it there
# first) goes, so that only this build can put it into the copy
rm -rf "$("$pgc" --bindir)/idgen-gateway" "$("$pgc" --bindir)/idgen" \
	"$("$pgc" --pkglibdir)/idgen.so" "$("$pgc" --sharedir)/idgen" \
	"$("$pgc" --sharedir)"/extension/idgen.control "$("$pgc" --sharedir)"/extension/idgen--*.sql

# /usr/include without libmicrohttpd-dev's headers (hard links: no copy of
# the data; removing a link leaves the file in /usr/include alone)
cp -al /usr/include "$work/include" 2>/dev/null || cp -a /usr/include "$work/include"
hidden=0
for f in $(dpkg -L libmicrohttpd-dev 2>/dev/null | grep '^/usr/include/.*\.h$') /usr/include/microhttpd.h; do
	if [ -e "$work/include${f#/usr/include}" ]; then
		rm -f "$work/include${f#/usr/include}"
		hidden=$((hidden + 1))
	fi
done
echo "build_check: $hidden libmicrohttpd header(s) left out of the copy of /usr/include"

mkdir "$work/src"
tar -C "$root" --exclude=.git --exclude='*.o' --exclude='*.so' --exclude='*.bc' \
	--exclude=./gateway/idgen --exclude=./gateway/idgen-gateway --exclude='./sql/idgen--*.sql' \
	--exclude=./tmp_check --exclude=./results -cf - . | tar -C "$work/src" -xf -
# the oldest install script is a source file, not a built one
cp "$root/sql/idgen--0.1.sql" "$work/src/sql/"

"${ns[@]}" "$0" --inside "$work" "$pgc" || failures=$((failures + 1))

# --- the header back: the gateway builds and installs --------------------------------

bindir=$("$pgc" --bindir)
sharedir=$("$pgc" --sharedir)
if make -C "$work/src" -s PG_CONFIG="$pgc" gateway >"$work/gateway-ok.log" 2>&1 &&
	make -C "$work/src" -s PG_CONFIG="$pgc" gateway-install >>"$work/gateway-ok.log" 2>&1; then
	ok "with libmicrohttpd's header: make gateway and make gateway-install"
else
	tail -n 40 "$work/gateway-ok.log" >&2
	fail "with libmicrohttpd's header: make gateway and make gateway-install"
fi
check "idgen-gateway and idgen are in the copy's bindir" test -x "$bindir/idgen-gateway" -a -x "$bindir/idgen"
check "idgen-gateway --help prints its usage" bash -c "'$bindir/idgen-gateway' --help | grep -q '^usage: idgen-gateway'"
missing=()
n=0
for f in "$root"/monitoring/*.yml "$root"/monitoring/*.yaml "$root"/monitoring/*.json; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	cmp -s "$f" "$sharedir/idgen/monitoring/$(basename "$f")" || missing+=("$(basename "$f")")
done
check "the $n files of monitoring/ are in \$(pg_config --sharedir)/idgen/monitoring (missing: ${missing[*]:-none})" \
	test "$n" -gt 0 -a ${#missing[@]} -eq 0

echo "build_check: $failures failure(s)"
[ "$failures" -eq 0 ]

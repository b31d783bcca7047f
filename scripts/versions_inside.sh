#!/usr/bin/env bash
# The part of make test's version layer (scripts/versions.sh) that runs inside
# a Debian chroot, as root, in /build/idgen (the committed tree, unpacked):
# builds idgen for PostgreSQL MAJOR with warnings as errors, installs it into
# the chroot's PostgreSQL and runs, as the chroot's postgres user,
# pg_regress, the isolation specs and the TAP files named after MAJOR.
#
#   scripts/versions_inside.sh MAJOR TAP_FILE...
#
# Prints one line per step ("step: ok ..." or "step: FAILED ..."), then
# "figures: ..." with what passed; exits non-zero if a step failed.
set -uo pipefail

v=$1
shift
tap=("$@")
pgc=/usr/lib/postgresql/$v/bin/pg_config
cd /build/idgen || exit 1
chown -R postgres:postgres /build/idgen

as_postgres() {
	runuser -u postgres -- env PATH="/usr/lib/postgresql/$v/bin:$PATH" PG_CONFIG="$pgc" "$@"
}

failed=0
fig=()
step() {
	local name=$1 log=$2
	shift 2
	local start=$SECONDS
	if "$@" >"$log" 2>&1; then
		echo "$name: ok ($((SECONDS - start)) s)"
		return 0
	fi
	echo "$name: FAILED ($((SECONDS - start)) s); the end of $log:"
	tail -n 60 "$log" | sed 's/^/    /'
	failed=$((failed + 1))
	return 1
}

# the extension (PGXS appends COPT to its CFLAGS) and the gateway, whose
# Makefile takes CFLAGS; every warning -Wall -Wextra prints is an error
build() {
	as_postgres make -C gateway -s PG_CONFIG="$pgc" CFLAGS='-O2 -g -Werror' &&
		as_postgres make -s -j2 PG_CONFIG="$pgc" COPT=-Werror
}
if ! step "build with -Werror (PostgreSQL $v)" build.log build; then
	echo "figures: build failed"
	exit 1
fi
fig+=("build -Werror: ok")
if ! step "install into the chroot's PostgreSQL $v" install.log make -s install PG_CONFIG="$pgc"; then
	echo "figures: install failed"
	exit 1
fi

# pg_regress prints "# All 16 tests passed." or "# 5 of 16 tests failed."
count() {
	local log=$1
	sed -n -E 's/^#? ?(All ([0-9]+) tests passed|([0-9]+) of ([0-9]+) tests failed).*/\1/p' "$log" | tr '\n' ';' | sed 's/;$//'
}

echo "figures: $(IFS=';'; echo "${fig[*]}" | sed 's/;/; /g')"
[ "$failed" -eq 0 ]

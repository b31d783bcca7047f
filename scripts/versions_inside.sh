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
# Makefile takes CFLAGS; every warning -Wall -Wextra prints is an error.
# with_llvm=no: no JIT bitcode (clang, a second compile of every file), which
# the tests do not use; the Debian packages have it (make deb)
build() {
	as_postgres make -C gateway -s PG_CONFIG="$pgc" CFLAGS='-O2 -g -Werror' &&
		as_postgres make -s -j2 PG_CONFIG="$pgc" COPT=-Werror with_llvm=no
}
if ! step "build with -Werror (PostgreSQL $v)" build.log build; then
	echo "figures: build failed"
	exit 1
fi
fig+=("build -Werror: ok")
# the gateway too: the gateway TAP files run it from the server's bindir
if ! step "install into the chroot's PostgreSQL $v" install.log make -s install gateway-install PG_CONFIG="$pgc" with_llvm=no; then
	echo "figures: install failed"
	exit 1
fi

# pg_regress prints "# All 16 tests passed." or "# 5 of 16 tests failed."
count() {
	local log=$1
	sed -n -E 's/^#? ?(All ([0-9]+) tests passed|([0-9]+) of ([0-9]+) tests failed).*/\1/p' "$log" | tr '\n' ';' | sed 's/;$//'
}

# the TAP files run in parallel with each other (prove -j4) and with
# pg_regress and the isolation specs: most of their time is waiting
# (restarts, promotions, lease expiry), not CPU.  Each has its own clusters
# and ports.  Not more at once: the clock and lease tests wait for real
# seconds, and on a machine loaded past 15 on 2 cores, eight at once per
# version (with the other version's eight) made 020, 022 and 031 miss theirs.
jobs=${IDGEN_VERSIONS_JOBS:-4}
step "TAP (${#tap[@]} files, prove -j$jobs)" tap.log \
	as_postgres make -s installcheck-tap-only PROVE_TESTS="${tap[*]}" PROVE_FLAGS="-j$jobs" >tap.step 2>&1 &
tap_pid=$!

if step "pg_regress" regress.log as_postgres make -s installcheck-regress-only; then :; else
	[ -s regression.diffs ] && head -n 120 regression.diffs | sed 's/^/    /'
fi
fig+=("regress: $(count regress.log)")
if step "isolation" isolation.log as_postgres make -s installcheck-isolation-only; then :; else
	[ -s output_iso/regression.diffs ] && head -n 120 output_iso/regression.diffs | sed 's/^/    /'
fi
fig+=("isolation: $(count isolation.log)")

# the TAP step ran in the background, in a subshell: its exit status is its verdict
if ! wait "$tap_pid"; then
	failed=$((failed + 1))
	for f in tmp_check/log/regress_log_*; do
		[ -f "$f" ] && grep -q "^not ok" "$f" && { echo "    --- $f"; grep -n "^not ok" "$f" | head -20 | sed 's/^/    /'; }
	done
fi
cat tap.step
# prove's summary: "Files=8, Tests=429, ..." and "Result: PASS"
fig+=("TAP: $(grep -E '^Files=' tap.log | sed -E 's/^(Files=[0-9]+, Tests=[0-9]+).*/\1/') $(grep -E '^Result:' tap.log)")
grep -E '^t/|^test/t/' tap.log | sed 's/^/    /'

echo "figures: $(IFS=';'; echo "${fig[*]}" | sed 's/;/; /g')"
[ "$failed" -eq 0 ]

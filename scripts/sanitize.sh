#!/usr/bin/env bash
# Build idgen.so with AddressSanitizer and UndefinedBehaviorSanitizer and run
# the pg_regress and isolation suites against it.  Fails if a suite fails or if
# any sanitizer report appears, even one that left the expected output intact
# (a report in a background worker or during shutdown changes no test output).
# Called by `make sanitize` and as a layer of scripts/test.sh.
#
# Everything happens in a scratch directory, so the normal installation and the
# normal build are untouched: a relocated copy of the PostgreSQL installation
# that PG_CONFIG names, a copy of the tree built with the sanitizer flags and
# installed into that copy, and the servers' logs.
#
# PostgreSQL itself is not instrumented.  An instrumented module loaded into an
# uninstrumented program needs the ASan runtime to be the first library loaded,
# so the copy's postgres binary is replaced by a wrapper that preloads it.
# Sanitizer reports go to the server's stderr, which the logging collector
# appends to one file for all instances: pg_regress's postmaster.log would not
# do, as the isolation target starts two instances with one postmaster.log, the
# second truncating the first's.  (The runtimes' log_path option would not do
# either: gcc's UBSan ignores it when built together with ASan.)
#
# SANITIZE_FLAGS replaces the compiler flags below; IDGEN_KEEP_SANITIZE=1 keeps
# the scratch directory (build, logs) for a look afterwards.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
PG_CONFIG=${PG_CONFIG:-$(command -v /usr/lib/postgresql/15/bin/pg_config || command -v pg_config)}
run_as=${IDGEN_TEST_USER:-postgres}
SANITIZE_FLAGS=${SANITIZE_FLAGS:--fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g}
started=$SECONDS

scratch=$(mktemp -d /tmp/idgen-sanitize.XXXXXX)
if [ -n "${IDGEN_KEEP_SANITIZE:-}" ]; then
	echo "sanitize: keeping $scratch"
else
	trap 'rm -rf "$scratch"' EXIT
fi
# mktemp makes it private; the tests run as $run_as when we are root
chmod 755 "$scratch"

as_tester() {
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u "$run_as" -- "$@"
	else
		"$@"
	fi
}

# The relocated copy: the same paths under a new prefix, so that pg_config and
# the server, which find their files relative to their own location, use it.
pg=$scratch/pg
for dir in "$(dirname "$("$PG_CONFIG" --bindir)")" "$("$PG_CONFIG" --sharedir)" "$("$PG_CONFIG" --pkgincludedir)"; do
	mkdir -p "$pg$(dirname "$dir")"
	cp -a "$dir" "$pg$dir"
done
pgc=$pg$("$PG_CONFIG" --bindir)/pg_config
bindir=$("$pgc" --bindir)
pkglibdir=$("$pgc" --pkglibdir)

# The build: with_llvm=no skips the JIT bitcode, which is not instrumented
# anyway; COPT goes to both the compile and the link line.
src=$scratch/src
mkdir "$src"
tar -C "$root" --exclude=.git --exclude='*.o' --exclude='*.so' --exclude='*.bc' \
	--exclude=./log --exclude=./output_iso --exclude=./results -cf - . | tar -C "$src" -xf -
echo "sanitize: building idgen.so with $SANITIZE_FLAGS"
make -C "$src" -s -j"$(nproc)" PG_CONFIG="$pgc" with_llvm=no COPT="$SANITIZE_FLAGS" all install >/dev/null

# A build that silently lost its instrumentation would pass everything below.
module=$pkglibdir/idgen.so
undefined=$(nm -D --undefined-only "$module")
for symbol in __asan_report_load8 __ubsan_handle_; do
	if ! grep -q "$symbol" <<<"$undefined"; then
		echo "sanitize: $module is not instrumented (no $symbol)" >&2
		exit 1
	fi
done
runtime=$(ldd "$module" | awk '/libasan|libclang_rt\.asan/ { print $3; exit }')
if [ -z "$runtime" ] || [ ! -f "$runtime" ]; then
	echo "sanitize: no ASan runtime found for $module (install libasan8 and libubsan1)" >&2
	exit 1
fi

# Preloaded after the runtime: it starts ASan early enough that the server
# does not hang before main(), and gives UBSan its options, which UBSan does
# not take from the environment in there (test/sanitize/preload.c says why).
preload=$scratch/sanitizer_preload.so
cc=$("$pgc" --cc)
# shellcheck disable=SC2086 # pg_config --cc may carry options
$cc -shared -fPIC -fsanitize=address -Wl,-z,initfirst -Wall -Wextra \
	-o "$preload" "$root/test/sanitize/preload.c"

# PostgreSQL leaves memory to process exit on purpose, so leak checking is off.
mv "$bindir/postgres" "$bindir/postgres.uninstrumented"
cat >"$bindir/postgres" <<WRAPPER
#!/bin/sh
# the server, with the sanitizer runtime that the instrumented idgen.so needs
LD_PRELOAD=$runtime:$preload
ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
export LD_PRELOAD ASAN_OPTIONS
exec "$bindir/postgres.uninstrumented" "\$@"
WRAPPER
chmod 755 "$bindir/postgres"

# The collector opens its file for appending, so every instance adds to it.
server_log=$scratch/server-log
mkdir "$server_log"
cat >>"$src/test/regress.conf" <<CONF

# added by scripts/sanitize.sh: the servers' stderr, sanitizer reports included
logging_collector = on
log_directory = '$server_log'
log_filename = 'postgresql.log'
CONF

if [ "$(id -u)" -eq 0 ]; then
	chown -R "$run_as" "$src" "$server_log"
fi

failed=()
for target in installcheck-regress-only installcheck-isolation-only; do
	echo
	echo "=== sanitize: $target"
	if ! as_tester make -C "$src" -s PG_CONFIG="$pgc" "$target"; then
		failed+=("$target")
		diffs=$src/regression.diffs
		[ "$target" = installcheck-isolation-only ] && diffs=$src/output_iso/regression.diffs
		[ -s "$diffs" ] && { echo "--- $diffs"; head -100 "$diffs"; }
	fi
done

# The collector's file, and the logs pg_regress keeps: a report written before
# the collector starts (the postmaster loading idgen) lands there.
pattern='ERROR: (AddressSanitizer|UndefinedBehaviorSanitizer)|runtime error:'
reports=0
for log in "$server_log"/* "$src"/log/*.log "$src"/output_iso/log/*.log; do
	[ -f "$log" ] || continue
	count=$(grep -cE "$pattern" "$log" || true)
	if [ "$count" -gt 0 ]; then
		reports=$((reports + count))
		echo
		echo "--- $count sanitizer report(s) in $log; the first:"
		grep -m1 -A30 -E "$pattern" "$log"
	fi
done
if [ "$reports" -gt 0 ]; then
	failed+=("$reports sanitizer reports")
fi

echo
elapsed=$((SECONDS - started))
if [ ${#failed[@]} -gt 0 ]; then
	echo "sanitize: FAILED (${failed[*]}) in ${elapsed} s"
	exit 1
fi
echo "sanitize: regress and isolation pass under ASan+UBSan with no sanitizer report, ${elapsed} s"

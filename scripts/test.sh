#!/usr/bin/env bash
# Run every test layer of idgen.  Called by `make test` after the build and
# install; exits non-zero if any layer fails.
#
# PostgreSQL refuses to run as root, so the server-backed layers run as the
# postgres OS user in a copy of the tree that it may write.  Each layer starts
# and stops its own throwaway cluster on loopback or a private socket.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
PG_CONFIG=${PG_CONFIG:-$(command -v /usr/lib/postgresql/15/bin/pg_config || command -v pg_config)}
export PG_CONFIG
run_as=${IDGEN_TEST_USER:-postgres}
# make test installs the client libraries (scripts/deps.sh), so their
# round-trip tests must run, not skip
export IDGEN_REQUIRE_CLIENTS=${IDGEN_REQUIRE_CLIENTS:-1}

passed=0
failed=0
failed_names=()
layer_times=()

# Wall-clock figures for the log: each layer's seconds and the time from the
# start at which it ended.  The start is make test's (IDGEN_TEST_T0, set by
# the Makefile before its build steps), or this script's when run alone.
run_t0=$(date +%s)
t0=${IDGEN_TEST_T0:-$run_t0}
since_start() {
	local now
	now=$(date +%s)
	printf '%d:%02d' $(((now - t0) / 60)) $(((now - t0) % 60))
}

layer() {
	local name=$1 start log
	shift
	echo
	echo "=== $name"
	start=$(date +%s)
	log=$work/layer.$((passed + failed)).log
	"$@" 2>&1 | tee "$log"
	layer_result "$name" "${PIPESTATUS[0]}" "$start" "" "$log"
}

# The lines of a failed layer's output that say what failed, at most 12, for
# the end of the log: a CI that shows only the last lines of a run shows why
digest_lines() {
	grep -E 'FAIL|not ok|Failed test|Dubious|Wstat|failed \(|: error:|timed out|diff ' "$1" |
		grep -vE '^[[:space:]]*# round|^(ok|#) .*todo' | cut -c1-220 | awk '!seen[$0]++' | head -n 12
}

# digest_add TITLE CMD...: CMD's lines, if it prints any, under TITLE in the
# digest printed at the end
digest_add() {
	local title=$1 lines
	shift
	lines=$("$@" 2>/dev/null | cut -c1-400) || true
	[ -n "$lines" ] || return 0
	{
		echo "$title"
		echo "$lines" | sed 's/^/    /'
	} >>"$work/digest"
}

# layer_result NAME RC START [END [LOG]]: the verdict with the seconds from
# START to END (now if empty); a failed layer's LOG goes into the digest
layer_result() {
	local name=$1 rc=$2 end=${4:-$(date +%s)} log=${5:-} took at
	took=$((end - $3))
	last_took=$took
	layer_times+=("${name%% (*} $took s")
	at=$(printf '%d:%02d' $(((end - t0) / 60)) $(((end - t0) % 60)))
	if [ "$rc" -eq 0 ]; then
		passed=$((passed + 1))
		echo "--- $name: ok ($took s, ended at $at from the start)"
		# a step that passed only when run again is said at the end too
		[ -n "$log" ] && digest_add "$name: passed, but only at the second attempt:" \
			grep 'the second attempt; the first failed' "$log"
	else
		failed=$((failed + 1))
		failed_names+=("$name")
		echo "--- $name: FAILED ($took s, ended at $at from the start)"
		[ -n "$log" ] && digest_add "$name:" digest_lines "$log"
	fi
}

# side NAME CMD...: a layer run in a background group; its verdict is
# recorded by the main line (side_results) once the group is done
side() {
	local name=$1 start rc log
	shift
	echo
	echo "=== $name"
	start=$(date +%s)
	# named after the layer: two background groups call this at once
	log=$work/side.${name//[^A-Za-z0-9]/_}.log
	"$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	echo "--- $name: exit $rc"
	printf '%s|%s|%s|%s|%s\n' "$name" "$rc" "$start" "$(date +%s)" "$log" >>"$work/side.results"
}

side_results() {
	local name rc start end log
	while IFS='|' read -r name rc start end log; do
		layer_result "$name" "$rc" "$start" "$end" "$log"
	done <"$work/side.results"
}

as_tester() {
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u "$run_as" -- env PATH="$PATH" PG_CONFIG="$PG_CONFIG" IDGEN_REQUIRE_CLIENTS="$IDGEN_REQUIRE_CLIENTS" \
			IDGEN_PREV_RELEASE="${IDGEN_PREV_RELEASE:-}" PG_TEST_PORT_DIR="${PG_TEST_PORT_DIR:-}" "$@"
	else
		"$@"
	fi
}

# writable copies of the tree for the server-backed layers: one for the TAP
# layer, which runs beside the others, one for the rest
work=$(mktemp -d /tmp/idgen-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
for dir in tree tap tap_upgrade; do
	mkdir "$work/$dir"
	tar -C "$root" --exclude=.git --exclude='*.o' -cf - . | tar -C "$work/$dir" -xf -
done
if [ "$(id -u)" -eq 0 ]; then
	chown -R "$run_as" "$work"
fi

show_diffs() {
	local dir=$1 f
	for f in "$dir/regression.diffs" "$dir/output_iso/regression.diffs"; do
		[ -s "$f" ] && { echo "--- $f"; head -200 "$f"; }
	done
	for f in "$dir"/tmp_check/log/regress_log_*; do
		[ -f "$f" ] && grep -q "not ok" "$f" && { echo "--- $f"; tail -60 "$f"; }
	done
	return 1
}

regress() {
	as_tester make -C "$work/tree" -s installcheck-regress-only || show_diffs "$work/tree"
}

isolation() {
	as_tester make -C "$work/tree" -s installcheck-isolation-only || show_diffs "$work/tree"
}

# The rolling-upgrade TAP file (180) starts a fleet on the previous release,
# built here from this tree's git history, since the copy has no .git; if
# that fails, 180 fails (it never skips) and the other files still run.
# The build takes a couple of minutes, so 180 runs in a copy of its own
# once it is done, beside the other files, which start at once.  Both
# prove runs take their ports from one lock directory (PG_TEST_PORT_DIR),
# as the files of one run do.
upgrade_tap=test/t/180_rolling_upgrade.pl
# Five at a time, not the Makefile's four: the files' wall clock is their
# waiting divided by the files at once (CI run 13: 2,180 s of files, 555 s
# at four), and with the model check and fuzzing two at a time the chain
# beside them ends first
tap_jobs=${IDGEN_TAP_JOBS:-5}
export PG_TEST_PORT_DIR=$work/portlock
tap_upgrade() {
	# a compile, beside the TAP files: at a lower priority, as the chain
	if nice -n 10 "$root/scripts/prev_release.sh" "$work/prev_release"; then
		export IDGEN_PREV_RELEASE=$work/prev_release
	else
		echo "TAP: the previous release is not installed: $upgrade_tap will fail"
	fi
	as_tester make -C "$work/tap_upgrade" -s installcheck-tap-only PROVE_TESTS="$upgrade_tap" \
		PROVE_FLAGS=--timer || show_diffs "$work/tap_upgrade"
}
tap() {
	local upgrade_pid rc=0
	tap_upgrade >"$work/tap_upgrade.out" 2>&1 &
	upgrade_pid=$!
	as_tester make -C "$work/tap" -s installcheck-tap-parallel TAP_EXCLUDE="$upgrade_tap" \
		TAP_JOBS="$tap_jobs" PROVE_FLAGS=--timer || { show_diffs "$work/tap"; rc=1; }
	wait "$upgrade_pid" || rc=1
	echo "--- $upgrade_tap, in its own copy after the previous release's build:"
	cat "$work/tap_upgrade.out"
	return $rc
}

# the TAP files that load the machine or must not be starved, alone, after
# the computing layers (test/t/README.md)
tap_serial() {
	as_tester make -C "$work/tap" -s installcheck-tap-serial PROVE_FLAGS=--timer || show_diffs "$work/tap"
}

# the checker's self-test first: each rule broken once in a small tree
module_graph() {
	python3 "$root/scripts/include_graph.py" --self-test &&
		python3 "$root/scripts/include_graph.py"
}

# The TAP layer spends most of its time waiting on timers (restarts, lease
# expiry, clock steps), so it runs in the background beside the layers up to
# the sanitizers, which mostly compute; its output follows theirs.  Every
# server of those layers is on a private Unix socket (pg_regress) or on a
# port from get_free_port (TAP): they do not meet.
echo
echo "=== TAP (in the background beside the layers up to the sanitizers; its output follows them)"
tap_start=$(date +%s)
{
	tap
	rc=$?
	echo "--- TAP, the files $tap_jobs at a time: $(($(date +%s) - tap_start)) s, ended at $(since_start) from the start"
	exit $rc
} >"$work/tap.out" 2>&1 &
tap_pid=$!

# The three computing layers below run at a lower priority (nice 10): they
# have no timers, and the TAP files beside them do (leases of 2 to 20 s
# that a starved server lets lapse); they take the cores the TAP layer
# leaves, which on two cores is all the same amount of work
layer "unit tests (pure C)" nice -n 10 make -C "$root/test/unit" -s -j"$(nproc)" run
layer "module graph (layers and include cycles)" module_graph
layer "fuzz (text parser, brief)" nice -n 10 make -C "$root/test/fuzz" -s -j"$(nproc)" run
# META.json and `make dist`; in the tree itself, where .git is (a clone),
# before the layers below copy the tree
layer "dist (META.json, make dist)" python3 "$root/test/dist_check.py"
# The model check beside the layers below: when the TAP files end (CI run
# 15: at 7:39) the searches and the sanitizers' single server share the
# cores instead of taking turns (the sanitizers began at 8:38 then, after
# the model check).  Its output follows theirs.
: >"$work/side.results"
{
	side "model check (SPIN)" nice -n 10 "$root/scripts/model_check.sh"
} >"$work/model.out" 2>&1 &
model_pid=$!
# Beside the sanitizers (their own build, in a relocated copy of PostgreSQL,
# on a private socket), one after another: plain make and make install with
# libmicrohttpd's header hidden, into a relocated copy of PostgreSQL (make
# gateway says it is missing); pg_regress and isolation on the system
# PostgreSQL, in their copy of the tree.  Their output follows the
# sanitizers'.
{
	side "PGXS build without libmicrohttpd" "$root/scripts/build_check.sh"
	side "pg_regress" regress
	side "isolation" isolation
} >"$work/side.out" 2>&1 &
side_pid=$!
layer "sanitizers (regress and isolation under ASan+UBSan)" "$root/scripts/sanitize.sh"
wait "$side_pid"
cat "$work/side.out"
wait "$model_pid"
cat "$work/model.out"
side_results
wait "$tap_pid"
tap_rc=$?
echo
echo "=== TAP (the files $tap_jobs at a time)"
cat "$work/tap.out"
echo
echo "=== TAP (the serial group, alone)"
serial_start=$(date +%s)
tap_serial 2>&1 | tee "$work/tap_serial.out"
serial_rc=${PIPESTATUS[0]}
echo "--- TAP, the serial group: $(($(date +%s) - serial_start)) s, ended at $(since_start) from the start"
[ "$tap_rc" -eq 0 ] && tap_rc=$serial_rc
cat "$work/tap.out" "$work/tap_serial.out" >"$work/tap.log"
layer_result "TAP" "$tap_rc" "$tap_start" "" "$work/tap.log"
# The two last run alone: the version layer runs TAP files of its own in
# chroots, four at a time, and the Debian package layer replaces system files.
# The committed tree on PostgreSQL 15 (the build with warnings as errors),
# 17 and 18 (build, regress, isolation and the restart, crash, clock,
# standby, fleet-outage and gateway TAP files in Debian chroots)
#
# Beside it, the Debian package layer's first part: the Build-Depends check
# and the packages of 15, 17 and 18 (dpkg-buildpackage in scratch copies,
# 17's and 18's in their chroots beside the version layer's runs there,
# nothing installed), which the version layer's chroots, waiting on their
# TAP files' timers, leave the cores for.  After it, only the installs of
# the three, side by side (CI run 17: the 17 and 18 builds and the three
# installs one after another took 117 s after the version layer).
mkdir "$work/debs"
"$root/scripts/deb_check.sh" --build "$work/debs" >"$work/deb_build.out" 2>&1 &
deb_build_pid=$!
layer "PostgreSQL versions (15, 17, 18; make in a minimal Debian 12)" "$root/scripts/versions.sh"
versions_s=$last_took
wait "$deb_build_pid"
# the Debian package (make deb, apt install, load, apt remove): last, since
# installing and removing it replaces and deletes the files `make install`
# put into the system PostgreSQL (scripts/deb_check.sh puts them back)
deb_layer() {
	cat "$work/deb_build.out"
	"$root/scripts/deb_check.sh" --built "$work/debs"
}
layer "Debian package (its builds beside the version layer)" deb_layer

echo
(IFS=';'; echo "seconds per layer:${layer_times[*]/#/ }")
if [ -s "$work/digest" ]; then
	echo "what the layers said of their failures:"
	cat "$work/digest"
fi
if [ "$failed" -gt 0 ]; then
	echo "failed layers: ${failed_names[*]}"
fi
echo "test layers: $passed passed, $failed failed ($(($(date +%s) - run_t0)) s in scripts/test.sh, $(since_start) in all)"
# the budget is 12 minutes for make test and 5 more for the version layer
all_s=$(($(date +%s) - t0))
printf 'make test without the version layer (%d s): %d:%02d\n' "$versions_s" \
	$(((all_s - versions_s) / 60)) $(((all_s - versions_s) % 60))
[ "$failed" -eq 0 ]

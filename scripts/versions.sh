#!/usr/bin/env bash
# make test's version layer (also `make versions`): the committed tree on
# PostgreSQL 15, 17 and 18.
#
#   15  this machine's (Debian 12): the build with warnings as errors; the
#       other layers of make test run everything else on it
#   17  a Debian 13 (trixie) chroot, 18 a Debian unstable chroot
#       (scripts/chroot.sh makes and keeps them): in each, the build with
#       warnings as errors, pg_regress, the isolation specs and the TAP files
#       below, as the chroot's postgres user (scripts/versions_inside.sh)
#   bookworm-min  15 again, in a minimal Debian 12 chroot with only what the
#       README's Installation names: plain make and make install
#       (scripts/bookworm_check.sh)
#
# "The committed tree" is git archive HEAD when the tree is a git checkout,
# the tree itself otherwise (an unpacked release), so what is tested is what
# a clone gets.  17, 18 and bookworm-min run at the same time, 17 and 18
# each its TAP files with prove -j.  Prints each version's figures and time;
# exits non-zero if any version failed.
#
# Needs root (mmdebstrap, chroot, mounts).  As another user it skips with a
# message, unless IDGEN_REQUIRE_VERSIONS=1, which makes that a failure.
# IDGEN_TEST_VERSIONS="17" runs only some of the chroots (17 18 bookworm-min).
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd -P)
# shellcheck source=scripts/chroot.sh
. "$root/scripts/chroot.sh"

versions=${IDGEN_TEST_VERSIONS:-17 18 bookworm-min}
# restart, crash under load, the clock going back (libfaketime) and jumping
# (the clock shim), standby promotion, a fleet through a registry outage,
# the gateway against this version's registry.  prove starts them in this
# order, four at a time: the three long ones (about two minutes each on a
# busy machine) first, the short ones in the gaps.  031 (failover
# timelines) is left out: its loader's 30 s lease must outlive the steps
# before the promotion, which at a load above 15 on 2 cores took longer
# (the standby alone took 33 s to stop streaming), and it fails there
tap=(test/t/022_clock_jump.pl test/t/101_fleet_outage.pl test/t/120_gateway.pl
	test/t/010_restart.pl test/t/011_crash_under_load.pl
	test/t/020_clock_faketime.pl test/t/030_standby.pl)

if [ "$(id -u)" -ne 0 ]; then
	if [ "${IDGEN_REQUIRE_VERSIONS:-}" = 1 ]; then
		echo "versions: FAIL: IDGEN_REQUIRE_VERSIONS=1, but the chroots need root" >&2
		exit 1
	fi
	echo "versions: skipped: the chroots need root (IDGEN_REQUIRE_VERSIONS=1 makes this a failure)"
	exit 0
fi

layer_start=$SECONDS
work=$(mktemp -d /tmp/idgen-versions.XXXXXX)
trap 'rm -rf "$work"' EXIT

# --- the committed tree ------------------------------------------------------------

if [ -d "$root/.git" ] || [ -f "$root/.git" ]; then
	if ! git -C "$root" archive --format=tar HEAD >"$work/tree.tar"; then
		echo "versions: FAIL: git archive HEAD" >&2
		exit 1
	fi
	what="HEAD $(git -C "$root" rev-parse --short HEAD)"
	if [ -n "$(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
		what="$what (uncommitted changes are not tested)"
	fi
else
	tar -C "$root" --exclude='*.o' --exclude='*.so' --exclude='*.bc' --exclude=./tmp_check \
		--exclude=./results --exclude=./log -cf "$work/tree.tar" .
	what="the tree (no .git)"
fi
echo "versions: testing $what"

failed=0
summary=()

# --- 17 and 18, in their chroots --------------------------------------------------------

run_version() {
	local v=$1 dir
	# one user at a time in a chroot: this one installs into its PostgreSQL
	idgen_chroot_lock "$v"
	if ! dir=$(idgen_chroot_ensure "$v"); then
		echo "figures: no chroot"
		return 1
	fi
	rm -rf "$dir/build/idgen"
	mkdir -p "$dir/build/idgen"
	tar -C "$dir/build/idgen" -xf "$work/tree.tar"
	idgen_chroot_run "$v" "/build/idgen/scripts/versions_inside.sh $v ${tap[*]}"
}

all_steps_passed() {
	grep -qE "^figures: build -Werror: ok; regress: All [0-9]+ tests passed; isolation: All [0-9]+ tests passed; All [0-9]+ tests passed; TAP: Files=${#tap[@]}, Tests=[0-9]+ Result: PASS\$" "$1"
}

declare -A pid start
for v in $versions; do
	start[$v]=$SECONDS
	if [ "$v" = bookworm-min ]; then
		"$root/scripts/bookworm_check.sh" "$work/tree.tar" >"$work/$v.log" 2>&1 &
	else
		run_version "$v" >"$work/$v.log" 2>&1 &
	fi
	pid[$v]=$!
done
# --- 15, on this machine, while the chroots run ----------------------------------------

pg15=/usr/lib/postgresql/15/bin/pg_config
t=$SECONDS
mkdir "$work/15"
tar -C "$work/15" -xf "$work/tree.tar"
if [ ! -x "$pg15" ]; then
	echo "versions: FAIL: $pg15 is missing (postgresql-server-dev-15)"
	summary+=("PostgreSQL 15: FAILED: no pg_config")
	failed=$((failed + 1))
elif make -C "$work/15/gateway" -s PG_CONFIG="$pg15" CFLAGS='-O2 -g -Werror' >"$work/15.log" 2>&1 &&
	make -C "$work/15" -s -j2 PG_CONFIG="$pg15" COPT=-Werror with_llvm=no >>"$work/15.log" 2>&1; then
	summary+=("PostgreSQL 15: build -Werror: ok (pg_regress, isolation and TAP: the other layers); $((SECONDS - t)) s")
else
	tail -n 60 "$work/15.log"
	summary+=("PostgreSQL 15: FAILED: build -Werror; $((SECONDS - t)) s")
	failed=$((failed + 1))
fi

for v in $versions; do
	if wait "${pid[$v]}"; then rc=0; else rc=$?; fi
	took=$((SECONDS - start[$v]))
	if [ "$v" = bookworm-min ]; then
		echo
		echo "--- Debian 12 minimal, PostgreSQL 15 ($(idgen_chroot_path "$v")):"
		sed 's/^/  /' "$work/$v.log"
		# the check's last line: its failures and its own time (it ends
		# before the chroots it is waited for after)
		fig=$(sed -n 's/^bookworm: \([0-9]* failure(s)\).*/\1/p' "$work/$v.log" | tail -n 1)
		took=$(sed -n 's/^bookworm: [0-9]* failure(s); \([0-9]*\) s$/\1/p' "$work/$v.log" | tail -n 1)
		if [ "$rc" -eq 0 ] && [ "$fig" = "0 failure(s)" ]; then
			summary+=("Debian 12 minimal (PostgreSQL 15): make, make install, make gateway's one line: ok; ${took:-?} s")
		else
			summary+=("Debian 12 minimal (PostgreSQL 15): FAILED: ${fig:-?}; ${took:-?} s")
			failed=$((failed + 1))
		fi
		continue
	fi
	# a pass is a pass of every step, with its count: a step that did not
	# run at all must not look like one that passed
	if [ "$rc" -eq 0 ] && ! all_steps_passed "$work/$v.log"; then
		echo "versions: FAIL: PostgreSQL $v: the figures do not show every step passing" >>"$work/$v.log"
		rc=1
	fi
	# A version that failed runs once more, alone: the TAP files wait on
	# timers, and in a CI run one failed there once without its log being
	# kept.  The first attempt's failures stay in the output and in the
	# summary, so a flaky step is seen, not hidden.
	first=""
	if [ "$rc" -ne 0 ]; then
		first=$(grep -E 'FAIL|not ok|Failed test' "$work/$v.log" | cut -c1-200 | head -n 8)
		echo
		echo "--- PostgreSQL $v, the first attempt (failed):"
		sed 's/^/  /' "$work/$v.log"
		t=$SECONDS
		if (run_version "$v") >"$work/$v.log" 2>&1 && all_steps_passed "$work/$v.log"; then rc=0; else rc=1; fi
		took=$((took + SECONDS - t))
	fi
	echo
	echo "--- PostgreSQL $v ($(idgen_chroot_path "$v")):"
	sed 's/^/  /' "$work/$v.log"
	fig=$(sed -n 's/^figures: //p' "$work/$v.log" | tail -n 1)
	if [ -n "$first" ]; then
		fig="$fig (the second attempt; the first failed: $(echo "$first" | tr '\n' ' '))"
	fi
	if [ "$rc" -eq 0 ]; then
		summary+=("PostgreSQL $v: ${fig:-?}; $took s")
	else
		summary+=("PostgreSQL $v: FAILED: ${fig:-?}; $took s")
		failed=$((failed + 1))
	fi
done

echo
for s in "${summary[@]}"; do
	echo "versions: $s"
done
echo "versions: $((SECONDS - layer_start)) s in all, $failed version(s) failed"
[ "$failed" -eq 0 ]

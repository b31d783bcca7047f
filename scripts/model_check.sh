#!/usr/bin/env bash
# Check the lease protocol models src/lease.pml and src/lease_regions.pml
# (two levels: regions, issue 22) exhaustively with SPIN.
#
# The V2 runs (the protocol being built, with the model's fixes) must end
# with "errors: 0"; the V1 run (today's protocol) and the V2 run with R7's
# renewal rule as DESIGN13 wrote it must find an error, which shows the
# model can fail.  The gw- runs hold outside holders (gateways): 0.6's
# rules must find issue 19's duplicate, issue 19's must pass, a lost lease
# longer than the hold must fail unless its holder bounds its validity by
# the hold floor (R1a, HFLOOR), which must pass.  Each run is a separate
# configuration, small enough for an exhaustive search in seconds.  Works as root or not, in a temp dir.
#   scripts/model_check.sh          all runs
#   scripts/model_check.sh -v       also print each counterexample's summary
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
model=$root/src/lease.pml
verbose=0
[ "${1:-}" = "-v" ] && verbose=1

if ! command -v spin >/dev/null 2>&1; then
	echo "model check: spin is not installed (Debian package spin; scripts/deps.sh installs it)" >&2
	exit 1
fi
cc=${CC:-gcc}

work=$(mktemp -d /tmp/idgen-model.XXXXXX)
trap 'rm -rf "$work"' EXIT
cp "$model" "$root/src/lease_outside.pml" "$root/src/lease_regions.pml" "$work/"

failed=0
pml=lease.pml

# run_search NAME EXPECT(pass|fail) -D...: one exhaustive search; prints
# its line and returns 1 when it did not come out as expected
run_search() {
	local name=$1 expect=$2
	shift 2
	local dir=$work/$name out errors states depth secs
	mkdir -p "$dir"
	cp "$work/lease.pml" "$work/lease_outside.pml" "$work/lease_regions.pml" "$dir/"
	if ! (cd "$dir" && spin -a "$@" "$pml" >spin.out 2>&1); then
		echo "  $name: spin -a failed"; cat "$dir/spin.out"; return 1
	fi
	# -DSAFETY: the properties are assertions and end states, no cycles;
	# no -DCOLLAPSE (the largest search stores under 1 GB plain, and plain
	# is twice as fast); -O1: gcc takes up to 14 s on pan.c at -O2, for a
	# search a few per cent faster
	if ! (cd "$dir" && "$cc" -O1 -w -DSAFETY -o pan pan.c 2>cc.out); then
		echo "  $name: compiling pan.c failed"; cat "$dir/cc.out"; return 1
	fi
	(cd "$dir" && ./pan -m400000 >pan.out 2>&1)
	out=$dir/pan.out
	errors=$(sed -n 's/.*errors: \([0-9][0-9]*\).*/\1/p' "$out" | tail -1)
	states=$(sed -n 's/^ *\([0-9.e+]*\) states, stored.*/\1/p' "$out" | tail -1)
	depth=$(sed -n 's/.*depth reached \([0-9]*\).*/\1/p' "$out" | tail -1)
	secs=$(sed -n 's/^pan: elapsed time \([0-9.]*\).*/\1/p' "$out" | tail -1)
	if [ -z "$errors" ]; then
		echo "  $name: no result from pan"; tail -20 "$out"; return 1
	fi
	if grep -q "max search depth too small" "$out"; then
		echo "  $name: search depth too small, the search was not exhaustive"; return 1
	fi
	if [ "$expect" = pass ]; then
		if [ "$errors" -eq 0 ]; then
			echo "  $name: ok, errors: 0, $states states, depth $depth, ${secs}s"
		else
			echo "  $name: FAILED, errors: $errors (a counterexample:)"
			(cd "$dir" && spin -t "$@" "$pml" 2>&1 | grep -E '^ *t=|assertion' | sed 's/^ *//' | tail -25)
			return 1
		fi
	else
		if [ "$errors" -gt 0 ]; then
			at=$(sed -n 's/.*assertion violated.*(at depth \([0-9]*\)).*/\1/p' "$out" | head -1)
			echo "  $name: ok, SPIN finds the error it must (errors: $errors, at depth ${at:-?}, after $states states)"
			if [ "$verbose" -eq 1 ]; then
				(cd "$dir" && spin -t "$@" "$pml" 2>&1 | grep -E '^ *t=|assertion' | sed 's/^ *//' | grep -v 'granted 0' | tail -25)
			fi
		else
			echo "  $name: FAILED, SPIN found no error where it must ($states states): the model cannot fail"
			return 1
		fi
	fi
	return 0
}

# run NAME EXPECT -D...: the search in the background, at most
# IDGEN_MODEL_JOBS (2) at once; its line is printed in the order of the
# runs once all have ended.  Each search is one process on one core, and
# the largest stores under 1 GB, so two fit beside the TAP layer.
jobs_max=${IDGEN_MODEL_JOBS:-2}
order=()
run() {
	local name=$1
	while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do
		wait -n || true
	done
	order+=("$name")
	(
		run_search "$@" >"$work/$name.result" 2>&1
		echo $? >"$work/$name.rc"
	) &
}

small="-DTTL=3"
quiet="-DNODE_CRASHES=0 -DCLOCK_STEPS=0"
# V2: registry restart and failover to an asynchronous standby
run v2-failover pass -DV2 $small -DTMAX=7 $quiet -DRELEASES=0
# V2: the same with clean releases (the ceiling as high_water)
run v2-failover-release pass -DV2 $small -DTMAX=6 $quiet
# V2: a synchronous standby (R6) and a restore from a backup
run v2-sync-restore pass -DV2 $small -DTMAX=7 -DSYNC -DRESTORE $quiet -DRELEASES=0
# V2: node crashes, clock steps back and ahead, releases
run v2-node-clock pass -DV2 $small -DTMAX=6 -DREG_EVENTS=0
# V2: a new primary's clock 3 ticks behind the old one's, with the
# registry clock allowance in the renewal rule and R7's floor
run v2-registry-clock pass -DV2 $small -DTMAX=7 -DRSKEW=3 -DFIXRSKEW $quiet -DRELEASES=0
# V1: today's protocol has the failover hole: duplicates (P2, exact)
run v1-failover fail -DV1 $small -DTMAX=7 $quiet -DP2_EXACT
# V2 with R7's renewal rule as written: an expired holder revived
run v2-r7-as-written fail -DV2 -DR7_AS_WRITTEN $small -DTMAX=7 $quiet
# V2 without the registry clock allowance: the same, by a clock behind
run v2-registry-clock-unfixed fail -DV2 $small -DTMAX=7 -DRSKEW=3 $quiet -DRELEASES=0

# V2 with fences: an operator fences the block (every row) on the primary,
# the next holder is granted it; a failover (or a restore) to a copy taken
# before the fence loses both.  0.9's fence frees the row at once: the
# fenced holder, which had not heard of it, renews in the copy and issues
# past its old end while the lost grant's holder issues above it (P2,
# exact duplicate; P1 is off, since a fenced holder runs on by design).
# The fix: the fence keeps the fenced lease's end and nobody is granted the
# block before it, so the copy finds that lease run out (P1 and P2 hold).
# TTL 5: the lost grant's holder must still be valid past end + allowance.
fence="-DV2 -DFENCE -DTTL=5 -DTMAX=8 $quiet -DRELEASES=0"
run fence-lost-0.9 fail $fence -DNO_P1
run fence-keeps-end pass $fence -DFENCE_KEEPS_END

# Outside holders (gateways, src/lease_outside.pml): a gateway frozen across
# a registry that lost its grant (failover, physical or logical restore),
# renewing afterwards.
gw="-DV2 -DOUTSIDE $small $quiet -DRESTORE"
# 0.6: renew and release by (region, worker, generation), an expired lease
# renewed forever, no hold after pg_restore: the duplicate of issue 19 item 1
run gw-0.6-physical fail $gw -DTMAX=7 -DMATCH=0 -DOLD_HOLD -DNO_P1 -DP2_EXACT -DR7_IN_COPY
run gw-0.6-logical fail $gw -DTMAX=7 -DMATCH=0 -DOLD_HOLD -DLOGICAL -DNO_P1 -DP2_EXACT
# issue 19: by the owner too, or by a token unique to each grant; a lease
# whose validity ended given up; the hold after any restore and when R7's
# row is missing, from live rows
new="-DGIVEUP -DLHOLD -DFIRSTHOLD -DLOGICAL"
run gw-owner pass $gw -DTMAX=9 -DMATCH=1 $new
run gw-token pass $gw -DTMAX=9 -DMATCH=2 $new
# ... frozen between the validity check and the stamp, two holders of one
# owner name, a release that lowers high_water to the holder's last ID
run gw-token-adversary pass $gw -DTMAX=8 -DMATCH=2 $new -DSPLIT_ISSUE -DSAMEOWNER -DRELEASE_MARK
# ... a new primary's clock 4 ticks behind, a gateway's clock with it
run gw-registry-clock pass $gw -DTMAX=11 -DMATCH=1 $new -DRSKEW=4 -DGWOFF
# ... a hold after pg_restore only when R7's row is missing: the new
# server's own node leased before the restore ran, and nothing holds
run gw-logical-hold-if-empty fail $gw -DTMAX=9 -DMATCH=1 -DGIVEUP -DLOGICAL -DFIRSTHOLD
# ... no hold when R7's row is missing: a copy older than the first lease
# call ever (a standby or base backup made at setup) holds nothing
run gw-no-first-hold fail $gw -DTMAX=9 -DMATCH=1 -DGIVEUP -DLOGICAL -DLHOLD
# ... a lost lease longer than the hold (lease_ttl + allowance) covers,
# its holder counting its validity on its grant alone
run gw-long-lease fail $gw -DTMAX=10 -DMATCH=1 $new -DGTTL=8
# ... the same with R1a: validity from an answer at most the hold floor
run gw-long-lease-hfloor pass $gw -DTMAX=10 -DMATCH=1 $new -DGTTL=8 -DHFLOOR

# Regions (issue 22, src/lease_regions.pml): a root leasing regions to two
# regional registries, issuers under them.  The fixed rules must pass; each
# hole of the first design must fail (docs/regions.md "The model").
pml=lease_regions.pml
# a region cut off from the root past its region lease, taken over by the
# other registry
run region-cutoff pass -DTMAX=7
run region-hole-grant-past-region fail -DTMAX=7 -DHOLE_GRANT_PAST_REGION
# the root fails over to a standby that lacked a region grant
run region-root-failover pass -DTMAX=7 -DROOT_FAILOVER
run region-hole-no-root-hold fail -DTMAX=7 -DROOT_FAILOVER -DHOLE_NO_ROOT_HOLD
# a regional registry fails over to a standby that lacked a node grant
run region-regional-failover pass -DTMAX=7 -DREGIONAL_FAILOVER
run region-hole-no-regional-hold fail -DTMAX=7 -DREGIONAL_FAILOVER -DHOLE_NO_REGIONAL_HOLD
# a region handed from one registry to the other, IDs checked
run region-handoff pass -DTMAX=7 -DHANDOFF -DIDS
# ... and it is reached: the new owner's issuer issues (a witness, must fail)
run region-handoff-reached fail -DTMAX=7 -DHANDOFF -DIDS -DREACH_HANDOFF
run region-hole-handoff-no-wait fail -DTMAX=7 -DHANDOFF -DIDS -DHOLE_HANDOFF_NO_WAIT
# a layout switch scheduled while a region does not renew (cut off)
run region-layout pass -DTMAX=5 -DLAYOUT -DIDS
run region-layout-reached fail -DTMAX=5 -DLAYOUT -DIDS -DREACH_LAYOUT
run region-hole-layout-node-rule fail -DTMAX=5 -DLAYOUT -DIDS -DHOLE_LAYOUT_NODE_RULE

wait
for name in "${order[@]}"; do
	cat "$work/$name.result"
	[ "$(cat "$work/$name.rc" 2>/dev/null)" = 0 ] || failed=$((failed + 1))
done
if [ "$failed" -gt 0 ]; then
	echo "model check: $failed run(s) failed"
	exit 1
fi
echo "model check: all runs as expected"

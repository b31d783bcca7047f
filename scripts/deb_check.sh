#!/usr/bin/env bash
# make test's "Debian package" layer: first debian/control's Build-Depends
# (scripts/deb_builddeps_check.sh: each is checked for, and the build fails
# without it), then `make deb` builds postgresql-<major>-idgen_<version>_<arch>.deb
# for PostgreSQL 15, 17 and 18 and idgen-gateway_<version>_<arch>.deb
# (scripts/deb.sh), and each extension package is checked where its
# PostgreSQL is: 15, with idgen-gateway, on this machine, 17 and 18 in their
# Debian chroots (scripts/chroot.sh).  The check: `apt install ./<it>.deb`
# installs it, its files are where dpkg says, a throwaway cluster with
# shared_preload_libraries = 'idgen' creates the extension and generates
# IDs, the gateway package's idgen-gateway serves IDs from that cluster and
# its idgen decodes one, `apt remove` takes them away again and their files
# are gone.
#
#   scripts/deb_check.sh                                      build all, check all
#   scripts/deb_check.sh --build DIR                          the Build-Depends check and
#                                                             15's packages into DIR, no install
#   scripts/deb_check.sh --built DIR                          the rest of a plain run, with
#                                                             what --build left in DIR
#   scripts/deb_check.sh --one MAJOR FILE.deb [GATEWAY.deb]   check packages here
#
# Installing the package overwrites, and removing it deletes, the very files
# `make install` put into the system PostgreSQL (idgen.so, the control file,
# the scripts).  So the check first saves those files as they are and puts
# them back at the end, whatever happened, and checks that they are back: it
# leaves the machine (and the chroot) as it found it.  scripts/test.sh runs
# it last, with --build beside the version layer before it.
#
# It has to be root (apt).  As another user it skips with a message, unless
# IDGEN_REQUIRE_DEB=1, which makes that a failure.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd -P)
run_as=${IDGEN_TEST_USER:-postgres}

if [ "$(id -u)" -ne 0 ]; then
	if [ "${IDGEN_REQUIRE_DEB:-}" = 1 ]; then
		echo "deb_check: FAIL: IDGEN_REQUIRE_DEB=1, but installing a package needs root" >&2
		exit 1
	fi
	echo "deb_check: skipped: installing a package needs root (IDGEN_REQUIRE_DEB=1 makes this a failure)"
	exit 0
fi

# --- all: build the packages, check each where its PostgreSQL is -------------------

if [ "${1:-}" != --one ]; then
	# shellcheck source=scripts/chroot.sh
	. "$root/scripts/chroot.sh"
	majors=${IDGEN_DEB_VERSIONS:-15 17 18}
	version=$(sed -n "s/^[[:space:]]*default_version[[:space:]]*=[[:space:]]*'\([^']*\)'.*/\1/p" "$root/idgen.control")
	to_build=$majors
	builddeps=0
	case ${1:-} in
	--build)
		# the Build-Depends and every package, nothing installed (the
		# chroot builds take no install lock: scripts/deb.sh): make test
		# runs this beside the version layer, and --built later
		out=$2
		t=$SECONDS
		rc=0
		if ! "$root/scripts/deb_builddeps_check.sh"; then
			: >"$out/builddeps.failed"
			rc=1
		fi
		# a package missing from $out is a failure of --built
		if ! IDGEN_DEB_VERSIONS=$majors "$root/scripts/deb.sh" "$out"; then
			echo "deb_check: FAIL: make deb (PostgreSQL $majors)" >&2
			rc=1
		fi
		echo "deb_check: the Build-Depends and the packages of PostgreSQL $majors: $((SECONDS - t)) s"
		exit "$rc"
		;;
	--built)
		# what --build left in $2: its failures were printed with it
		out=$2
		[ -e "$out/builddeps.failed" ] && builddeps=1
		to_build=
		;;
	*)
		out=$(mktemp -d /tmp/idgen-debs.XXXXXX)
		trap 'rm -rf "$out"' EXIT
		"$root/scripts/deb_builddeps_check.sh" || builddeps=1
		;;
	esac
	if [ -n "${to_build// /}" ] && ! IDGEN_DEB_VERSIONS=$to_build "$root/scripts/deb.sh" "$out"; then
		echo "deb_check: FAIL: make deb" >&2
		exit 1
	fi
	# check_major V: the packages of PostgreSQL V, installed where that
	# PostgreSQL is; each major's check runs beside the others (this
	# machine's and each chroot's packages are apart), its output kept
	check_major() {
		local v=$1 debs gw
		shopt -s nullglob
		debs=("$out"/postgresql-"$v"-idgen_"$version"_*.deb)
		shopt -u nullglob
		echo
		echo "deb_check: --- PostgreSQL $v"
		if [ ${#debs[@]} -ne 1 ]; then
			echo "deb_check: FAIL: make deb made one postgresql-$v-idgen_${version}_*.deb (found ${#debs[@]})" >&2
			return 1
		fi
		echo "deb_check: ok: make deb built $(basename "${debs[0]}")"
		if [ "$v" = 15 ]; then
			shopt -s nullglob
			gw=("$out"/idgen-gateway_"$version"_*.deb)
			shopt -u nullglob
			if [ ${#gw[@]} -ne 1 ]; then
				echo "deb_check: FAIL: make deb made one idgen-gateway_${version}_*.deb (found ${#gw[@]})" >&2
				return 1
			fi
			echo "deb_check: ok: make deb built $(basename "${gw[0]}")"
			"$0" --one "$v" "${debs[0]}" "${gw[0]}"
			return
		fi
		(
			# one user of a chroot at a time (versions.sh, deb.sh)
			idgen_chroot_lock "$v"
			dir=$(idgen_chroot_ensure "$v") || exit 1
			rm -rf "$dir/build/debcheck"
			mkdir -p "$dir/build/debcheck/scripts"
			cp "$0" "$dir/build/debcheck/scripts/deb_check.sh"
			mkdir -p "$dir/build/debcheck/sql/updates"
			cp "$root/idgen.control" "$dir/build/debcheck/"
			cp "$root"/sql/idgen--0.1.sql "$dir/build/debcheck/sql/"
			cp "$root"/sql/updates/idgen--*--*.sql "$dir/build/debcheck/sql/updates/"
			cp "${debs[0]}" "$dir/build/debcheck/"
			idgen_chroot_run "$v" "/build/debcheck/scripts/deb_check.sh --one $v /build/debcheck/$(basename "${debs[0]}")"
		)
	}
	declare -A check_pid
	for v in $majors; do
		check_major "$v" >"$out/check-$v.log" 2>&1 &
		check_pid[$v]=$!
	done
	failed=()
	for v in $majors; do
		wait "${check_pid[$v]}" || failed+=("$v")
		cat "$out/check-$v.log"
	done
	echo
	if [ "$builddeps" -ne 0 ]; then
		echo "deb_check: FAIL: debian/control's Build-Depends (scripts/deb_builddeps_check.sh, above)"
	fi
	if [ ${#failed[@]} -gt 0 ]; then
		echo "deb_check: FAIL: the packages of PostgreSQL ${failed[*]}"
		exit 1
	fi
	[ "$builddeps" -eq 0 ] || exit 1
	echo "deb_check: the packages of PostgreSQL $majors and idgen-gateway install, load and issue IDs"
	exit 0
fi

# --- one package, here ------------------------------------------------------------------

v=$2
deb=$3
gwdeb=${4:-}
PG_CONFIG=/usr/lib/postgresql/$v/bin/pg_config
package=postgresql-$v-idgen
gwpackage=idgen-gateway
if [ ! -x "$PG_CONFIG" ]; then
	echo "deb_check: FAIL: $PG_CONFIG is missing (postgresql-server-dev-$v)" >&2
	exit 1
fi
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
for p in "$package" ${gwdeb:+"$gwpackage"}; do
	if installed "$p"; then
		echo "deb_check: FAIL: $p is already installed; this check would remove it. Remove it first (apt remove $p)." >&2
		exit 1
	fi
done

version=$(sed -n "s/^[[:space:]]*default_version[[:space:]]*=[[:space:]]*'\([^']*\)'.*/\1/p" "$root/idgen.control")
pkglibdir=$("$PG_CONFIG" --pkglibdir)
sharedir=$("$PG_CONFIG" --sharedir)
bindir=$("$PG_CONFIG" --bindir)

failures=0
ok() { echo "deb_check: ok: $*"; }
fail() {
	echo "deb_check: FAIL: $*" >&2
	failures=$((failures + 1))
}
check() {
	local what=$1
	shift
	if "$@"; then ok "$what"; else fail "$what"; fi
}

work=$(mktemp -d /tmp/idgen-debcheck.XXXXXX)
chmod 755 "$work"

# --- the files make install put there, saved -----------------------------------

# every idgen file of the system PostgreSQL, relative to /, and any file
# at the gateway package's paths (none, unless someone put one there)
saved=()
for f in "$pkglibdir"/idgen.so "$pkglibdir"/bitcode/idgen.index.bc "$pkglibdir"/bitcode/idgen \
	"$sharedir"/extension/idgen.control "$sharedir"/extension/idgen--*.sql \
	${gwdeb:+/usr/bin/idgen-gateway /usr/bin/idgen /usr/share/idgen}; do
	[ -e "$f" ] && saved+=("${f#/}")
done
if [ ${#saved[@]} -gt 0 ]; then
	tar -C / -cf "$work/before.tar" "${saved[@]}" || { echo "deb_check: FAIL: could not save the installed files" >&2; exit 1; }
	cp -p "$pkglibdir/idgen.so" "$work/idgen.so.before" 2>/dev/null || true
fi

pgdata=$work/pg/data
port=$((20000 + RANDOM % 20000))
gw_pid=

cleanup() {
	if [ -n "$gw_pid" ]; then
		kill "$gw_pid" 2>/dev/null
		wait "$gw_pid" 2>/dev/null
	fi
	if [ -f "$pgdata/postmaster.pid" ]; then
		runuser -u "$run_as" -- "$bindir/pg_ctl" -D "$pgdata" -m immediate -w stop >/dev/null 2>&1
	fi
	for p in "$package" ${gwdeb:+"$gwpackage"}; do
		if installed "$p"; then
			DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq "$p" >/dev/null 2>&1
		fi
	done
	# what make install had put there, back as it was
	if [ -f "$work/before.tar" ]; then
		tar -C / -xpf "$work/before.tar"
	fi
	rm -rf "$work"
}
trap cleanup EXIT

# --- the package ---------------------------------------------------------------------

if [ ! -f "$deb" ]; then
	fail "no package $deb"
	exit 1
fi
mkdir -p "$work/out"
cp "$deb" "$work/out/"
deb=$work/out/$(basename "$deb")
check "the package is named $package" test "$(dpkg-deb -f "$deb" Package)" = "$package"
check "its version is idgen.control's default_version $version" test "$(dpkg-deb -f "$deb" Version)" = "$version"
check "it depends on postgresql-$v" grep -q "postgresql-$v" <<<"$(dpkg-deb -f "$deb" Depends)"
debs=("./$(basename "$deb")")
if [ -n "$gwdeb" ]; then
	cp "$gwdeb" "$work/out/"
	gwdeb=$work/out/$(basename "$gwdeb")
	debs+=("./$(basename "$gwdeb")")
	check "the gateway package is named $gwpackage" test "$(dpkg-deb -f "$gwdeb" Package)" = "$gwpackage"
	check "its version is $version too" test "$(dpkg-deb -f "$gwdeb" Version)" = "$version"
	# dh_shlibdeps found the libraries the programs link
	check "it depends on libmicrohttpd and libpq" \
		bash -c 'grep -q libmicrohttpd <<<"$1" && grep -q libpq5 <<<"$1"' _ "$(dpkg-deb -f "$gwdeb" Depends)"
fi

# --- apt install ------------------------------------------------------------------

if ! (cd "$work/out" && DEBIAN_FRONTEND=noninteractive apt install -y -q "${debs[@]}") >"$work/apt-install.log" 2>&1; then
	cat "$work/apt-install.log" >&2
	fail "apt install ${debs[*]}"
	exit 1
fi
ok "apt install ${debs[*]}"
for p in "$package" ${gwdeb:+"$gwpackage"}; do
	check "dpkg reports $p installed" \
		bash -c "dpkg-query -W -f='\${Status} \${Version}' $p | grep -qx 'install ok installed $version'"
done

dpkg -L "$package" >"$work/files"
# the files the package must have: the library, the control file and every
# SQL script the tree installs (the upgrade chain and the current version's)
expected=("$pkglibdir/idgen.so" "$sharedir/extension/idgen.control" "$sharedir/extension/idgen--$version.sql")
# (sql/idgen--0.1.sql, and the upgrade scripts made from sql/updates/)
for f in "$root"/sql/idgen--0.1.sql "$root"/sql/updates/idgen--*--*.sql; do
	expected+=("$sharedir/extension/$(basename "$f")")
done
missing=()
for f in "${expected[@]}"; do
	if ! grep -qx "$f" "$work/files" || [ ! -f "$f" ]; then
		missing+=("$f")
	fi
done
check "dpkg -L lists, and the disk has, idgen.so, idgen.control and the ${#expected[@]} files expected (missing: ${missing[*]:-none})" \
	test ${#missing[@]} -eq 0
check "dpkg --verify: the installed files are the package's" dpkg --verify "$package"

if [ -n "$gwdeb" ]; then
	dpkg -L "$gwpackage" >"$work/gwfiles"
	cat "$work/gwfiles" >>"$work/files"
	# the programs in /usr/bin, and every file of monitoring/ (docs/monitoring.md)
	gwexpected=(/usr/bin/idgen-gateway /usr/bin/idgen)
	for f in "$root"/monitoring/*.yml "$root"/monitoring/*.yaml "$root"/monitoring/*.json; do
		[ -f "$f" ] && gwexpected+=("/usr/share/idgen/monitoring/$(basename "$f")")
	done
	missing=()
	for f in "${gwexpected[@]}"; do
		if ! grep -qx "$f" "$work/gwfiles" || [ ! -f "$f" ]; then
			missing+=("$f")
		fi
	done
	check "dpkg -L $gwpackage lists, and the disk has, the ${#gwexpected[@]} files expected (missing: ${missing[*]:-none})" \
		test ${#missing[@]} -eq 0
	check "dpkg --verify $gwpackage" dpkg --verify "$gwpackage"
	check "idgen-gateway --help prints its usage" \
		bash -c '/usr/bin/idgen-gateway --help | grep -q "^usage: idgen-gateway --registry"'
	check "idgen --help prints its usage" bash -c '/usr/bin/idgen --help | grep -q "^usage: idgen decode"'
fi
check "the control file says default_version '$version'" \
	grep -q "^default_version = '$version'" "$sharedir/extension/idgen.control"

# --- load it in a throwaway cluster -------------------------------------------------

psql_q() {
	runuser -u "$run_as" -- env PGOPTIONS='-c client_min_messages=warning' "$bindir/psql" -X -q -A -t -v ON_ERROR_STOP=1 \
		-h "$work/pg" -p "$port" -d postgres -c "$1"
}

# the package's idgen-gateway leasing a worker from the cluster (its own
# registry) and serving IDs over HTTP; the package's idgen decodes one
check_gateway() {
	local gwport secret ids id decoded
	gwport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	secret=debcheck-$RANDOM$RANDOM
	mkdir -p "$work/gw/state"
	printf 'debcheck:ids:%s\n' "$(printf '%s' "$secret" | sha256sum | cut -d' ' -f1)" >"$work/gw/tokens"
	chown -R "$run_as" "$work/gw"
	runuser -u "$run_as" -- /usr/bin/idgen-gateway --registry "host=$work/pg port=$port dbname=postgres" \
		--listen "127.0.0.1:$gwport" --tokens "$work/gw/tokens" --state-dir "$work/gw/state" \
		--name debcheck >"$work/gw/log" 2>&1 &
	gw_pid=$!
	for _ in $(seq 1 300); do
		curl -sf "http://127.0.0.1:$gwport/healthz" >/dev/null && break
		kill -0 "$gw_pid" 2>/dev/null || break
		sleep 0.1
	done
	ids=$(curl -sf -H "Authorization: Bearer $secret" "http://127.0.0.1:$gwport/v1/ids?count=3")
	if python3 -c 'import json, sys; ids = json.loads(sys.argv[1])["ids"]; sys.exit(not (len(ids) == 3 and len(set(ids)) == 3))' "$ids" 2>/dev/null; then
		ok "the package's idgen-gateway serves 3 distinct IDs from the cluster ($ids)"
	else
		cat "$work/gw/log" >&2
		fail "the package's idgen-gateway serves 3 distinct IDs from the cluster (got: ${ids:-nothing})"
	fi
	id=$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])["ids"][0])' "$ids" 2>/dev/null)
	decoded=$(/usr/bin/idgen decode "$id" 2>&1)
	check "the package's idgen decodes one of them (${decoded//$'\n'/, })" grep -q "^id: $id\$" <<<"$decoded"
	kill "$gw_pid" 2>/dev/null
	wait "$gw_pid" 2>/dev/null
	gw_pid=
}

mkdir -p "$work/pg"
chown "$run_as" "$work/pg"
if runuser -u "$run_as" -- "$bindir/initdb" -D "$pgdata" -A trust --no-sync >"$work/initdb.log" 2>&1; then
	ok "initdb of a throwaway cluster"
	cat >>"$pgdata/postgresql.conf" <<-EOF
		shared_preload_libraries = 'idgen'
		listen_addresses = ''
		unix_socket_directories = '$work/pg'
		port = $port
	EOF
	if runuser -u "$run_as" -- "$bindir/pg_ctl" -D "$pgdata" -l "$work/pg/server.log" -w start >/dev/null 2>&1; then
		ok "the cluster starts with shared_preload_libraries = 'idgen'"
		check "CREATE EXTENSION IF NOT EXISTS idgen" psql_q 'CREATE EXTENSION IF NOT EXISTS idgen'
		check "the extension is version $version" test "$(psql_q "SELECT extversion FROM pg_extension WHERE extname = 'idgen'")" = "$version"
		state=
		for _ in $(seq 1 300); do
			state=$(psql_q 'SELECT state FROM idgen_status()' 2>/dev/null)
			[ "$state" = active ] && break
			sleep 0.1
		done
		check "idgen_status() reaches active (last: ${state:-none})" test "$state" = active
		check "SELECT idgen_next() issues an ID" \
			test "$(psql_q 'SELECT idgen_next() > 0 AND idgen_next128() IS NOT NULL')" = t
		if [ -n "$gwdeb" ]; then
			check_gateway
		fi
		check "and a new database gets the extension too" \
			bash -c "runuser -u '$run_as' -- '$bindir/createdb' -h '$work/pg' -p $port app &&
				runuser -u '$run_as' -- '$bindir/psql' -X -q -A -t -v ON_ERROR_STOP=1 -h '$work/pg' -p $port -d app \
					-c 'CREATE EXTENSION idgen' -c 'SELECT count(DISTINCT i) FROM idgen_next_batch(10) AS i' | grep -qx 10"
		runuser -u "$run_as" -- "$bindir/pg_ctl" -D "$pgdata" -m fast -w stop >/dev/null 2>&1
		check "the cluster stops" test ! -f "$pgdata/postmaster.pid"
	else
		cat "$work/pg/server.log" >&2
		fail "the cluster starts with shared_preload_libraries = 'idgen'"
	fi
else
	cat "$work/initdb.log" >&2
	fail "initdb of a throwaway cluster"
fi

# --- apt remove ---------------------------------------------------------------------

removed=("$package" ${gwdeb:+"$gwpackage"})
if DEBIAN_FRONTEND=noninteractive apt remove -y -q "${removed[@]}" >"$work/apt-remove.log" 2>&1; then
	ok "apt remove ${removed[*]}"
else
	cat "$work/apt-remove.log" >&2
	fail "apt remove ${removed[*]}"
fi
for p in "${removed[@]}"; do
	check "dpkg no longer reports $p installed" bash -c "! dpkg-query -W -f='\${Status}' $p 2>/dev/null | grep -q 'install ok installed'"
done
left=()
while read -r f; do
	[ -f "$f" ] && left+=("$f")
done <"$work/files"
check "every file of the package is gone (left: ${left[*]:-none})" test ${#left[@]} -eq 0

# --- make install's files back --------------------------------------------------------

if [ -f "$work/before.tar" ]; then
	tar -C / -xpf "$work/before.tar"
	check "the files make install had put there are back (${#saved[@]} of them)" \
		bash -c 'cd / && for f in "$@"; do [ -e "$f" ] || exit 1; done' _ "${saved[@]}"
	check "idgen.so is back, the same file as before" cmp -s "$work/idgen.so.before" "$pkglibdir/idgen.so"
else
	echo "deb_check: note: no idgen files were installed before this check, so none are restored"
fi

echo "deb_check: $failures failure(s)"
[ "$failures" -eq 0 ]

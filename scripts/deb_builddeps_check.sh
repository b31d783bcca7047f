#!/usr/bin/env bash
# debian/control's Build-Depends, checked both ways (part of make test's
# "Debian package" layer, scripts/deb_check.sh, before `make deb` builds
# the packages from the source tree here, where they are all installed):
#
#  1. dpkg-checkbuilddeps passes on this machine;
#  2. each Build-Depends is one it checks for: against a copy of dpkg's
#     status without the package that provides it, dpkg-checkbuilddeps
#     fails and names it;
#  3. the build does need the ones whose files it uses, and Build-Depends
#     names them: in a private mount
#     namespace where a copy of /usr/include without libmicrohttpd-dev's
#     (or libpq-dev's) headers is bound over /usr/include,
#     `dpkg-buildpackage -b -d` (no dependency check) of a copy of the tree
#     fails on that header.
#
#   scripts/deb_builddeps_check.sh
#
# Step 3 needs a mount namespace (root, or unshare -rm); without one it
# is skipped with a note.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd -P)

failures=0
ok() { echo "builddeps: ok: $*"; }
fail() {
	echo "builddeps: FAIL: $*" >&2
	failures=$((failures + 1))
}

# --- inside the namespace: one package's headers hidden ------------------------------

if [ "${1:-}" = --inside ]; then
	include=$2 src=$3 log=$4
	mount --make-rprivate / && mount --bind "$include" /usr/include || exit 125
	cd "$src" && dpkg-buildpackage -us -uc -b -d >"$log" 2>&1
	exit
fi

for tool in dpkg-checkbuilddeps dpkg-buildpackage python3; do
	command -v "$tool" >/dev/null 2>&1 || { fail "$tool is missing (dpkg-dev)"; exit 1; }
done

work=$(mktemp -d /tmp/idgen-builddeps.XXXXXX)
trap 'rm -rf "$work"' EXIT

# --- 1. all there -----------------------------------------------------------------------

if (cd "$root" && dpkg-checkbuilddeps) >"$work/check.log" 2>&1; then
	ok "dpkg-checkbuilddeps: debian/control's Build-Depends are installed here"
else
	cat "$work/check.log" >&2
	fail "dpkg-checkbuilddeps: debian/control's Build-Depends are installed here"
fi

# --- 2. each one missing ----------------------------------------------------------------

# the names in Build-Depends, and for each the installed package that
# satisfies it (itself, or one that Provides it: debhelper-compat)
mapfile -t deps < <(python3 - "$root/debian/control" <<-'EOF'
	import re, subprocess, sys
	text = open(sys.argv[1]).read().split('\n\n')[0]
	m = re.search(r'^Build-Depends:(.*?)(?=^\S|\Z)', text, re.M | re.S)
	provides = {}
	q = subprocess.run(['dpkg-query', '-W', '-f=${Package}\t${Provides}\t${db:Status-Abbrev}\n'],
	                   capture_output=True, text=True).stdout
	for line in q.splitlines():
	    pkg, prov, status = (line.split('\t') + ['', ''])[:3]
	    if not status.startswith('ii'):
	        continue
	    provides.setdefault(pkg, pkg)
	    for p in prov.split(','):
	        name = p.strip().split(' ')[0]
	        if name:
	            provides.setdefault(name, pkg)
	for dep in m.group(1).split(','):
	    name = dep.strip().split(' ')[0].split(':')[0]
	    if name:
	        print(name, provides.get(name, '-'))
EOF
)
if [ ${#deps[@]} -eq 0 ]; then
	fail "no Build-Depends read from debian/control"
fi
for d in "${deps[@]}"; do
	name=${d% *} pkg=${d#* }
	if [ "$pkg" = - ]; then
		fail "$name: no installed package satisfies it"
		continue
	fi
	mkdir -p "$work/admin-$name"
	python3 - "$work/admin-$name/status" "$pkg" <<-'EOF'
		import sys
		out, drop = sys.argv[1], sys.argv[2]
		stanzas = open('/var/lib/dpkg/status').read().split('\n\n')
		keep = [s for s in stanzas if ('Package: ' + drop) not in s.split('\n')]
		open(out, 'w').write('\n\n'.join(keep))
	EOF
	out=$(cd "$root" && dpkg-checkbuilddeps --admindir="$work/admin-$name" 2>&1)
	rc=$?
	if [ "$rc" -ne 0 ] && grep -q "Unmet build dependencies:.* $name\\b" <<<"$out"; then
		ok "without $pkg, dpkg-checkbuilddeps fails: ${out#dpkg-checkbuilddeps: error: }"
	else
		fail "without $pkg, dpkg-checkbuilddeps fails naming $name (exit $rc: $out)"
	fi
done

# --- 3. the build without a package's headers -----------------------------------------------

if [ "$(id -u)" -eq 0 ]; then ns=(unshare -m); else ns=(unshare -r -m); fi
if ! "${ns[@]}" true 2>/dev/null; then
	echo "builddeps: note: no mount namespace here (${ns[*]}): the builds without a package's headers are not tried"
else
	version=$(dpkg-parsechangelog -l "$root/debian/changelog" -S Version)
	# package, and what its build log must show: the failure at its header
	for want in "libmicrohttpd-dev:^gateway: libmicrohttpd's header microhttpd.h is missing" \
		"libpq-dev:libpq-fe.h: No such file"; do
		pkg=${want%%:*} sign=${want#*:}
		# the build needs it, so Build-Depends must name it
		if printf '%s\n' "${deps[@]}" | grep -q "^$pkg "; then
			ok "Build-Depends names $pkg"
		else
			fail "Build-Depends names $pkg, which the build needs (below)"
		fi
		headers=$(dpkg -L "$pkg" 2>/dev/null | grep '^/usr/include/.*\.h$')
		if [ -z "$headers" ]; then
			fail "$pkg lists no header under /usr/include (dpkg -L)"
			continue
		fi
		inc=$work/include-$pkg
		cp -al /usr/include "$inc" 2>/dev/null || cp -a /usr/include "$inc"
		for f in $headers; do rm -f "$inc${f#/usr/include}"; done
		src=$work/$pkg/idgen-$version
		mkdir -p "$src"
		tar -C "$root" --exclude=.git --exclude='*.o' --exclude='*.so' --exclude='*.bc' --exclude='*.deb' \
			--exclude=./gateway/idgen --exclude=./gateway/idgen-gateway --exclude='./sql/idgen--*.sql' \
			--exclude=./tmp_check --exclude=./results --exclude=./debian/.debhelper \
			--exclude='./debian/postgresql-*-idgen' --exclude=./debian/idgen-gateway \
			-cf - . | tar -C "$src" -xf -
		cp "$root/sql/idgen--0.1.sql" "$src/sql/"
		"${ns[@]}" "$0" --inside "$inc" "$src" "$work/build-$pkg.log"
		rc=$?
		if [ "$rc" -eq 125 ]; then
			fail "could not bind a copy of /usr/include without $pkg's headers"
		elif [ "$rc" -ne 0 ] && grep -qE "$sign" "$work/build-$pkg.log"; then
			ok "without $pkg's $(wc -w <<<"$headers") header(s), dpkg-buildpackage -b -d fails: $(grep -m1 -E "$sign" "$work/build-$pkg.log")"
		else
			tail -n 30 "$work/build-$pkg.log" >&2
			fail "without $pkg's headers, dpkg-buildpackage -b -d fails on them (exit $rc)"
		fi
	done
fi

echo "builddeps: $failures failure(s)"
[ "$failures" -eq 0 ]

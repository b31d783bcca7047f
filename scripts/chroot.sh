#!/usr/bin/env bash
# The Debian chroots: Debian 13 (trixie) with PostgreSQL 17 and Debian
# unstable (sid) with 18, the versions this machine does not run, with all
# that idgen's build, tests and packages need; and bookworm-min, a minimal
# Debian 12 with only what the README's Installation asks of a user
# (postgresql-server-dev-15, libpq-dev, build-essential), where
# scripts/bookworm_check.sh proves that plain `make && make install` needs
# nothing more.  Sourced by scripts/versions.sh, scripts/deb.sh,
# scripts/deb_check.sh and scripts/bookworm_check.sh.
#
# KIND is a PostgreSQL major version (17, 18) or bookworm-min.
#
#   idgen_chroot_lock KIND      wait for and take the chroot of KIND: one
#                               user at a time, who may install into it; the
#                               lock goes with the shell that took it (or
#                               idgen_chroot_unlock)
#   idgen_chroot_ensure KIND    make the chroot of KIND unless it is there and
#                               works; prints its path (hold the lock)
#   idgen_chroot_run KIND CMD   run CMD (a bash -c string) as root in it, with
#                               /proc, /dev and /dev/shm mounted
#
# The chroots are kept between runs in $IDGEN_CHROOT_DIR (default
# /var/cache/idgen-chroots), outside any clone, and rebuilt only when one is
# missing or broken (no ready mark, another package list, or its pg_config
# does not answer with the right major version).  mmdebstrap makes them from
# the Debian mirror apt on this machine uses; nothing else is fetched.
# Making one takes a few minutes; using one takes a second.
#
# Every mount lives in a private mount namespace (unshare --mount) that dies
# with the command, and is also unmounted by exact path when the command ends,
# whatever happened: nothing stays mounted on the machine.  The command runs
# in its own PID namespace too (unshare --pid, with /proc mounted for it):
# a test that signals a recorded pid can reach only the chroot's processes,
# never a process of the machine that reused that pid (pid_max may be
# 32768), and whatever the command leaves running ends with it.

IDGEN_CHROOT_DIR=${IDGEN_CHROOT_DIR:-/var/cache/idgen-chroots}

# which Debian release ships which PostgreSQL major version
idgen_chroot_suite() {
	case $1 in
	17) echo trixie ;;
	18) echo unstable ;;
	bookworm-min) echo bookworm ;;
	*) return 1 ;;
	esac
}

# the PostgreSQL major version in the chroot of KIND
idgen_chroot_major() {
	case $1 in
	bookworm-min) echo 15 ;;
	*) echo "$1" ;;
	esac
}

# what building idgen, its TAP files and its package need; for bookworm-min
# only what the README's Installation names (the compiler and make come
# with build-essential), nothing that make test or the gateway needs
idgen_chroot_packages() {
	local v=$1
	case $v in
	bookworm-min)
		echo "postgresql-server-dev-15 libpq-dev build-essential"
		return
		;;
	esac
	echo "postgresql-$v postgresql-server-dev-$v postgresql-server-dev-all" \
		"libpq-dev libmicrohttpd-dev libipc-run-perl gcc make" \
		"curl openssl libfaketime faketime procps" \
		"build-essential debhelper dpkg-dev"
}

# mmdebstrap's base: apt and the Essential packages for the test chroots;
# for bookworm-min the "required" priority too (minbase, what debootstrap
# and the debian:12 container image start from), as a user's Debian 12
# has at least those
idgen_chroot_variant() {
	case $1 in
	bookworm-min) echo minbase ;;
	*) echo apt ;;
	esac
}

# the mirror apt on this machine uses (the first deb.debian.org-style URI of
# its sources), so the chroots reach no other host than apt already does
idgen_chroot_mirror() {
	local uri
	uri=$(grep -hE '^[[:space:]]*(URIs:|deb )' /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
		/etc/apt/sources.list.d/*.sources 2>/dev/null |
		grep -oE '(https?)://[^[:space:]]+/debian/?([[:space:]]|$)' | head -1 | tr -d '[:space:]')
	echo "${uri:-http://deb.debian.org/debian}"
}

idgen_chroot_path() {
	case $1 in
	bookworm-min) echo "$IDGEN_CHROOT_DIR/pg15-bookworm-min" ;;
	*) echo "$IDGEN_CHROOT_DIR/pg$1-$(idgen_chroot_suite "$1")" ;;
	esac
}

# the mounts a command in the chroot needs, made in a private namespace;
# the inner shell unmounts them by exact path when CMD ends
idgen_chroot_run() {
	local v=$1 cmd=$2 dir
	dir=$(idgen_chroot_path "$v")
	unshare --mount --propagation private --pid --fork -- bash -c '
		dir=$1; cmd=$2
		umount_all() {
			for m in "$dir/dev/shm" "$dir/dev/pts" "$dir/dev" "$dir/proc"; do
				mountpoint -q "$m" && umount -l "$m"
			done
		}
		trap umount_all EXIT
		mount -t proc proc "$dir/proc" &&
		mount --bind /dev "$dir/dev" &&
		mount -t devpts -o newinstance,ptmxmode=0666 devpts "$dir/dev/pts" &&
		mount -t tmpfs -o mode=1777,size=512m tmpfs "$dir/dev/shm" || exit 1
		chroot "$dir" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
			/bin/bash -c "$cmd"
	' _ "$dir" "$cmd"
}

idgen_chroot_ok() {
	local v=$1 dir major
	dir=$(idgen_chroot_path "$v")
	major=$(idgen_chroot_major "$v")
	[ -f "$dir/.idgen-ready" ] || return 1
	[ "$(cat "$dir/.idgen-ready")" = "$(idgen_chroot_packages "$v")" ] || return 1
	idgen_chroot_run "$v" "/usr/lib/postgresql/$major/bin/pg_config --version" 2>/dev/null |
		grep -q "^PostgreSQL $major\."
}

idgen_chroot_lock() {
	mkdir -p "$IDGEN_CHROOT_DIR"
	exec {idgen_chroot_lockfd}>"$IDGEN_CHROOT_DIR/.lock-$1"
	flock "$idgen_chroot_lockfd"
}

idgen_chroot_unlock() {
	exec {idgen_chroot_lockfd}>&-
}

idgen_chroot_ensure() {
	local v=$1 dir suite mirror tmp start major variant
	suite=$(idgen_chroot_suite "$v") || { echo "chroot: no Debian release known for $v" >&2; return 1; }
	dir=$(idgen_chroot_path "$v")
	major=$(idgen_chroot_major "$v")
	variant=$(idgen_chroot_variant "$v")
	if idgen_chroot_ok "$v"; then
		echo "$dir"
		return 0
	fi
	if ! command -v mmdebstrap >/dev/null 2>&1; then
		echo "chroot: mmdebstrap is missing (apt-get install mmdebstrap, or make deps)" >&2
		return 1
	fi
	mirror=$(idgen_chroot_mirror)
	tmp=$dir.new
	rm -rf "$tmp" "$dir"
	start=$(date +%s)
	echo "chroot: making $dir (Debian $suite, PostgreSQL $major) with mmdebstrap" >&2
	# packages, comma-separated for --include
	local include
	include=$(idgen_chroot_packages "$v" | tr -s ' ' ',')
	# the server package would make and start a cluster "main": the tests
	# start their own, so postgresql-common is told not to (set up before
	# the packages install, kept as the machine's own configuration)
	if ! mmdebstrap --variant="$variant" --mode=root \
		--aptopt='Acquire::Check-Valid-Until "false"' \
		--aptopt='APT::Install-Recommends "false"' \
		--dpkgopt=force-confold --dpkgopt=force-confdef \
		--setup-hook='mkdir -p "$1/etc/postgresql-common" && echo "create_main_cluster = false" > "$1/etc/postgresql-common/createcluster.conf"' \
		--include="$include" \
		"$suite" "$tmp" "$mirror" >"$IDGEN_CHROOT_DIR/mmdebstrap-$v.log" 2>&1; then
		tail -n 30 "$IDGEN_CHROOT_DIR/mmdebstrap-$v.log" >&2
		echo "chroot: mmdebstrap failed (log: $IDGEN_CHROOT_DIR/mmdebstrap-$v.log)" >&2
		rm -rf "$tmp"
		return 1
	fi
	idgen_chroot_packages "$v" >"$tmp/.idgen-ready"
	mv "$tmp" "$dir"
	echo "chroot: made $dir in $(($(date +%s) - start)) s" >&2
	if ! idgen_chroot_ok "$v"; then
		echo "chroot: $dir was made but its pg_config does not answer PostgreSQL $major" >&2
		return 1
	fi
	echo "$dir"
}

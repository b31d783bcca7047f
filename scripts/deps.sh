#!/usr/bin/env bash
# Install what building and testing idgen needs, if anything is missing.
# Runs as root on a fresh Debian 12 machine; does nothing when all is there.
set -euo pipefail

packages=(
	postgresql-15 postgresql-server-dev-15 postgresql-contrib
	postgresql-15-pgtap libipc-run-perl
	postgresql-15-partman
	clang libclang-rt-14-dev
	gcc libasan8 libubsan1
	libfaketime faketime
	python3-psycopg2
	python3-psycopg python3-sqlalchemy python3-django libpostgresql-jdbc-java ruby-pg
	gnuplot-nox
	pgbouncer libdbd-pg-perl
	prometheus-postgres-exporter prometheus
	debhelper postgresql-server-dev-all dpkg-dev
	libmicrohttpd-dev libpq-dev wrk openssl curl
	patroni python3-etcd etcd-server etcd-client
	spin
	mmdebstrap
)

# node-postgres round trips need node and npm; use the machine's if it has them
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	packages+=(nodejs npm)
fi

# the JDBC recipe compiles with javac; use the machine's JDK if it has one
if ! command -v javac >/dev/null 2>&1; then
	packages+=(default-jdk-headless)
fi

missing=()
for p in "${packages[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$p")
	fi
done

if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing packages: ${missing[*]}; run as root or install them." >&2
	exit 1
fi

echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# the Debian server package would start a cluster on 5432; nothing here needs it
mkdir -p /etc/postgresql-common
if [ ! -f /etc/postgresql-common/createcluster.conf ] || ! grep -q '^create_main_cluster' /etc/postgresql-common/createcluster.conf; then
	echo 'create_main_cluster = false' >> /etc/postgresql-common/createcluster.conf
fi
# pgbouncer, prometheus and the exporter ship services; the tests start
# their own on loopback ports, so the packages must not start theirs (the
# Debian maintainer scripts ask policy-rc.d, under systemd as well)
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
	printf '#!/bin/sh\n# scripts/deps.sh: no service starts while it installs\nexit 101\n' > "$policy"
	chmod 755 "$policy"
	trap 'rm -f "$policy"' EXIT
fi
apt-get install -y -qq --no-install-recommends \
	-o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
	"${missing[@]}"
# and they stay off at boot: only what this run installed, a service the
# machine had before is left as it was
if [ -d /run/systemd/system ]; then
	for unit in pgbouncer prometheus prometheus-postgres-exporter; do
		case " ${missing[*]} " in
		*" $unit "*) systemctl disable --now "$unit" >/dev/null 2>&1 || true ;;
		esac
	done
fi

#!/usr/bin/env bash
# Install what building and testing idgen needs, if anything is missing.
# Runs as root on a fresh Debian 12 machine; does nothing when all is there.
set -euo pipefail

packages=(
	postgresql-15 postgresql-server-dev-15 postgresql-contrib
	postgresql-15-pgtap libipc-run-perl
	clang libclang-rt-14-dev
	gcc libasan8 libubsan1
	libfaketime faketime
	python3-psycopg2
	gnuplot-nox
	spin
)

# node-postgres round trips need node and npm; use the machine's if it has them
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	packages+=(nodejs npm)
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
apt-get install -y -qq --no-install-recommends \
	-o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
	"${missing[@]}"

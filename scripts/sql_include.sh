#!/bin/sh
# Writes the given SQL files one after the other on stdout, each line
# "\ir path" replaced by the file it names, relative to the directory of
# the file that has the line (psql's \ir).  The Makefile makes the install
# script (sql/install/*.sql) and the upgrade scripts (sql/updates/) with
# it: an extension script is plain SQL, without psql's meta-commands.
# "\ir ../udfs/<function>/latest.sql" names that function's newest
# <version>.sql (by version order): the install script takes the function
# as the upgrade to its newest version defines it, from the one file.
#
#   scripts/sql_include.sh file...  > script.sql
set -eu

# the file an "\ir" line names; latest.sql: the newest version beside it
resolve() {
	case $(basename "$1") in
	latest.sql)
		newest=$(ls "$(dirname "$1")" 2>/dev/null | grep -E '^[0-9]+(\.[0-9]+)*\.sql$' | sort -V | tail -n 1)
		[ -n "$newest" ] && echo "$(dirname "$1")/$newest" ;;
	*) echo "$1" ;;
	esac
}

status=0
map=$(mktemp)
trap 'rm -f "$map"' EXIT
for f in "$@"; do
	dir=$(dirname "$f")
	for inc in $(sed -n 's/^\\ir[[:space:]]\{1,\}//p' "$f"); do
		path=$(resolve "$dir/$inc")
		if [ -z "$path" ] || [ ! -f "$path" ]; then
			echo "sql_include: $f: no such file: $dir/$inc" >&2
			status=1
		else
			printf '%s\t%s\n' "$dir/$inc" "$path" >>"$map"
		fi
	done
done
[ $status -eq 0 ] || exit 1

awk -v map="$map" '
BEGIN { FS = "\t"; while ((getline m < map) > 0) { split(m, kv, "\t"); file[kv[1]] = kv[2] } FS = " " }
FNR == 1 { dir = FILENAME; sub(/[^\/]*$/, "", dir) }
/^\\ir[ \t]+/ {
	path = $0; sub(/^\\ir[ \t]+/, "", path); sub(/[ \t]+$/, "", path)
	key = dir path
	real = (key in file) ? file[key] : key
	while ((r = (getline line < real)) > 0)
		print line
	close(real)
	next
}
{ print }
' "$@"

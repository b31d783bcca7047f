#!/bin/sh
# Writes the given SQL files one after the other on stdout, each line
# "\ir path" replaced by the file it names, relative to the directory of
# the file that has the line (psql's \ir).  The Makefile makes the install
# script (sql/install/*.sql) and the upgrade scripts (sql/updates/) with
# it: an extension script is plain SQL, without psql's meta-commands.
# An included sql/udfs/<function>/latest.sql must equal that function's
# newest <version>.sql, so the install script and the upgrade to the
# newest version define the function alike.
#
#   scripts/sql_include.sh file...  > script.sql
set -eu

status=0
for f in "$@"; do
	dir=$(dirname "$f")
	for inc in $(sed -n 's/^\\ir[[:space:]]\{1,\}//p' "$f"); do
		path=$dir/$inc
		if [ ! -f "$path" ]; then
			echo "sql_include: $f: no such file: $path" >&2
			status=1
		elif [ "$(basename "$path")" = latest.sql ]; then
			newest=$(ls "$(dirname "$path")" | grep -E '^[0-9]+(\.[0-9]+)*\.sql$' | sort -V | tail -n 1)
			if ! cmp -s "$path" "$(dirname "$path")/$newest"; then
				echo "sql_include: $path differs from $newest, the newest version beside it" >&2
				status=1
			fi
		fi
	done
done
[ $status -eq 0 ] || exit 1

awk '
FNR == 1 { dir = FILENAME; sub(/[^\/]*$/, "", dir) }
/^\\ir[ \t]+/ {
	path = $0; sub(/^\\ir[ \t]+/, "", path); sub(/[ \t]+$/, "", path)
	while ((r = (getline line < (dir path))) > 0)
		print line
	close(dir path)
	next
}
{ print }
' "$@"

#!/bin/sh
# Writes the given SQL files one after the other on stdout, each line
# "\ir path" replaced by the file it names, relative to the directory of
# the file that has the line (psql's \ir), and so on into included files
# (an upgrade template includes the install piece of the objects new at
# its version, which includes their functions).  The Makefile makes the
# install script (sql/install/*.sql) and the upgrade scripts
# (sql/updates/) with it: an extension script is plain SQL, without psql's
# meta-commands.  "\ir ../udfs/<function>/latest.sql" names that
# function's newest <version>.sql (by version order): the install script
# takes the function as the upgrade to its newest version defines it, from
# the one file.
#
#   scripts/sql_include.sh file...  > script.sql
set -eu

resolve() {
	case $(basename "$1") in
	latest.sql)
		newest=$(ls "$(dirname "$1")" 2>/dev/null | grep -E '^[0-9]+(\.[0-9]+)*\.sql$' | sort -V | tail -n 1)
		[ -n "$newest" ] && echo "$(dirname "$1")/$newest" ;;
	*) echo "$1" ;;
	esac
}

# every line of $1, its includes expanded; depth $2 stops a file that
# includes itself
expand() {
	if [ "$2" -gt 8 ]; then
		echo "sql_include: $1: includes nested too deep (a file that includes itself?)" >&2
		return 1
	fi
	dir=$(dirname "$1")
	while IFS= read -r line || [ -n "$line" ]; do
		case $line in
		'\ir '* | '\ir	'*)
			inc=$(printf '%s\n' "$line" | sed 's/^\\ir[[:space:]]\{1,\}//; s/[[:space:]]*$//')
			path=$(resolve "$dir/$inc")
			if [ -z "$path" ] || [ ! -f "$path" ]; then
				echo "sql_include: $1: no such file: $dir/$inc" >&2
				return 1
			fi
			# a subshell: dir and line stay this file's
			(expand "$path" $(($2 + 1))) || return 1 ;;
		*)
			printf '%s\n' "$line" ;;
		esac
	done <"$1"
}

for f in "$@"; do
	expand "$f" 0
done

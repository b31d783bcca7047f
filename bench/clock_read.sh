#!/usr/bin/env bash
# Build bench/clock_read.c and run it RUNS times (default 7); print each
# run and the median ns per read of each variant.  Needs only a C compiler.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
runs=${1:-7}
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT

${CC:-cc} -O2 -Wall -Wextra -o "$bin/clock_read" "$here/clock_read.c"
echo "clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo unknown)"
echo "cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((i = 1; i <= runs; i++)); do
	"$bin/clock_read"
done | tee "$bin/all" | sed 's/^/  /'
echo "median of $runs runs, ns per read:"
sed 's/ \{2,\}/\t/; s/ ns$//' "$bin/all" |
	awk -F '\t' '
		{
			if (!($1 in n)) order[++k] = $1
			c = ++n[$1]
			# insertion sort: keep the values of each variant ascending
			for (j = c; j > 1 && v[$1, j - 1] > $2 + 0; j--)
				v[$1, j] = v[$1, j - 1]
			v[$1, j] = $2 + 0
		}
		END {
			for (i = 1; i <= k; i++)
				printf "  %-36s %6.2f\n", order[i], v[order[i], int((n[order[i]] + 1) / 2)]
		}'

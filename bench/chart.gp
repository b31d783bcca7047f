# bench/chart.gp: the per-ID cost chart of a bench run (bench/run.sh calls it).
#
#   gnuplot -e "datafile='chart.tsv'; outfile='chart.png'; machine='...'; sizes='...'" chart.gp
#
# datafile is what bench/chart.sql prints: label, median ns/ID, fastest and
# slowest round's ns/ID, family (0 floor, 1 idgen, 2 peers), N, caption.  One
# horizontal bar per variant, the whisker spanning its fastest to slowest
# round, so run-to-run noise is visible next to the difference it qualifies.

if (!exists("datafile")) datafile = "bench/out/chart.tsv"
if (!exists("outfile")) outfile = "bench/out/chart.png"
if (!exists("machine")) machine = ""
if (!exists("sizes")) sizes = ""

# stats honours the axis ranges, so it runs before any is set
set datafile separator "\t"
stats datafile using 4 nooutput
rows = STATS_records
xmax = STATS_max
stats datafile using ($5 == 0 ? $2 : 0) nooutput
floor_ns = STATS_max

# noenhanced: underscores in the function names are text, not subscripts
set terminal pngcairo noenhanced size 1100, 540 font "Sans,11"
set output outfile

set title "Server-side cost per ID, median of the rounds (lower is faster)\n".machine."\n".sizes
set xlabel "ns per ID (bar: median; whisker: fastest to slowest round)"
set xrange [0:xmax * 1.45]
set yrange [rows - 0.5:-0.5]
set ytics scale 0 nomirror
set xtics nomirror
set grid xtics lc rgb "#dddddd"
set border 3
set key top right box opaque
set style fill solid 0.85 border -1

colour(f) = f == 0 ? 0x999999 : (f == 1 ? 0x2e6fb0 : 0xe07b28)
h = 0.34

# the floor's median as a dashed line through every bar
set arrow from floor_ns, graph 0 to floor_ns, graph 1 nohead dt 2 lc rgb "#555555"

plot datafile using ($5 == 1 ? 0 : NaN):0:(0):2:($0 - h):($0 + h):ytic(1) \
		with boxxyerror lc rgb colour(1) title "idgen", \
	 datafile using ($5 == 2 ? 0 : NaN):0:(0):2:($0 - h):($0 + h):ytic(1) \
		with boxxyerror lc rgb colour(2) title "nextval(), gen_random_uuid()", \
	 datafile using ($5 == 0 ? 0 : NaN):0:(0):2:($0 - h):($0 + h):ytic(1) \
		with boxxyerror lc rgb colour(0) title "no-op floor", \
	 datafile using 2:0:3:4 with xerrorbars pt -1 lc rgb "#222222" notitle, \
	 datafile using 4:0:7 \
		with labels left offset 1, 0 notitle

# Description: the hostile-input table (issue 16): >= 150 invocations a
# new user (or a fuzzer) might type, across every subcommand. Each row has
# its expected exit code and stderr pattern; before every row a file of
# known bytes stands at @OUT, and afterwards it must be byte-for-byte the
# same with no temporary left beside it, whatever the command did with
# it: a refusal must never destroy a result. Refusals (exit 2) must be one
# line. No row runs a workload longer than needed (runs are cut with
# --events/-n/--customers). Placeholders: @OUT the precious file, @IN a
# valid .hlog, @HGRM a valid .hgrm, @T the scratch folder.
# Cost: 8 (rough seconds: ctest -j starts the costly tests first)
. "$(dirname "$0")/t_lib.sh"
: "${LATLAB_SRC:?}"

IN=$T_TMP/in.hlog
HGRM=$T_TMP/in.hgrm
OUT=$T_TMP/keep/precious.out
mkdir -p "$T_TMP/keep" "$T_TMP/adir"
cp "$LATLAB_SRC/tests/data/report-small.hlog" "$IN"
cp "$LATLAB_SRC/tests/data/report-ones.hgrm" "$HGRM"
printf 'precious result, do not lose\n%s\n' "$(head -c 64 /dev/urandom | od -An -tx1 | tr -d ' \n')" >"$T_TMP/orig"
# hostile inputs
head -c 8192 /dev/zero >"$T_TMP/nul"
printf 'HIST\0\0\0garbage' >"$T_TMP/somenul"
# random bytes, without a NUL or a newline, led by a byte no .hlog line
# starts with: a leading digit, blank or '#' would make the file read as
# a log cut short or a bare header instead (~4 % of draws)
{ printf 'x'; head -c 4096 /dev/urandom | tr -d '\000\n'; } >"$T_TMP/random"
: >"$T_TMP/empty"
printf '#[StartTime: 1700000000.000 (s)]\n"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"\n' >"$T_TMP/header.hlog"
b64=$(sed -n 's/^0\.000,1\.000,0\.001,//p' "$IN" | head -1)
printf -- '-5.000,1.000,0.001,%s\n' "$b64" >"$T_TMP/negative.hlog"
printf '0.000,-1.000,0.001,%s\n' "$b64" >"$T_TMP/neglen.hlog"
printf '5.000,1.000,0.001,%s\n1.000,1.000,0.001,%s\n' "$b64" "$b64" >"$T_TMP/backward.hlog"
printf 'Tag=a\033]0;pwned\007b,0.000,1.000,0.001,%s\n' "$b64" >"$T_TMP/esc.hlog"
head -c 300000 /dev/zero | tr '\0' 'a' >"$T_TMP/longline"
printf 'Value Percentile TotalCount 1/(1-Percentile)\n1.0 0.5 \0 2\n' >"$T_TMP/nul.hgrm"
# 25 tags: one line more than an SVG draws
for i in $(seq 25); do printf 'Tag=t%d,0.000,1.000,0.001,%s\n' "$i" "$b64"; done >"$T_TMP/manytags.hlog"

rows=0
# t EXIT PATTERN ARGS...: one row (see the header).
t() {
	local want=$1 pat=$2 a args=() got
	shift 2
	for a in "$@"; do
		a=${a//@OUT/$OUT}
		a=${a//@IN/$IN}
		a=${a//@HGRM/$HGRM}
		a=${a//@T/$T_TMP}
		args+=("$a")
	done
	cp "$T_TMP/orig" "$OUT"
	timeout 30 "$LATLAB" "${args[@]}" >"$T_TMP/out" 2>"$T_TMP/err" </dev/null
	got=$?
	rows=$((rows + 1))
	[ "$got" -eq "$want" ] ||
		fail "row $rows 'latlab ${args[*]}' exited $got, expected $want: $(head -c 300 "$T_TMP/err")"
	[ -z "$pat" ] || grep -Eq -- "$pat" "$T_TMP/err" ||
		fail "row $rows 'latlab ${args[*]}': stderr does not match /$pat/: $(head -c 300 "$T_TMP/err")"
	if [ "$want" -eq 2 ] && [ "$(wc -l <"$T_TMP/err")" -ne 1 ]; then
		fail "row $rows 'latlab ${args[*]}': refusal is not one line: $(head -c 300 "$T_TMP/err")"
	fi
	cmp -s "$OUT" "$T_TMP/orig" ||
		fail "row $rows 'latlab ${args[*]}': the file at @OUT was changed"
	[ -z "$(ls -A "$T_TMP/keep" | grep -v '^precious.out$')" ] ||
		fail "row $rows 'latlab ${args[*]}': left $(ls -A "$T_TMP/keep" | tr '\n' ' ')"
	rm -f "$T_TMP/keep/"* 2>/dev/null
	grep -q $'\033' "$T_TMP/out" "$T_TMP/err" &&
		fail "row $rows 'latlab ${args[*]}': an escape byte reached the terminal"
	return 0
}

R='^latlab '
# ---- the command itself
t 2 "not a latlab command" nosuch
t 2 "not a latlab command" ''
t 2 "no command 'x'" help x
t 2 "not a latlab command" -x

# ---- report: inputs of every kind, outputs that name them
t 2 "no file given" report
t 2 "cannot open.*No such file" report @T/nope.hlog
t 2 "is a directory, not a file" report @T
t 2 "binary data" report /dev/zero
t 2 "binary data" report @T/nul
t 2 "binary data" report @T/somenul
t 2 "malformed: not an .hlog" report @T/random
t 2 "empty file" report @T/empty
t 2 "header with no intervals" report @T/header.hlog
t 2 "negative or backward" report @T/negative.hlog
t 2 "negative or backward" report @T/neglen.hlog
t 2 "negative or backward" report @T/backward.hlog
t 2 "malformed" report @T/longline
t 2 "not a readable .hgrm|binary" report @T/nul.hgrm
t 2 "--hgrm '.*' is an input file; refusing" report --hgrm @IN @IN
t 2 "--svg '.*' is an input file; refusing" report --svg @IN @IN
t 2 "--hgrm '.*' is an input file" report --hgrm @T/./in.hlog @IN
t 2 "--hgrm and --svg are the same file" report --hgrm @OUT --svg @OUT @IN
t 2 "directory '.*nodir' does not exist" report --hgrm @T/nodir/x.hgrm @IN
t 2 "is a directory" report --hgrm @T/adir @IN
t 2 "is not a regular file" report --hgrm /dev/null @IN
t 2 "--hgrm: empty file name" report --hgrm '' @IN
t 2 "--tag given twice" report --tag a --tag b @IN
t 2 "--ticks must be between 1 and 1000" report --hgrm @OUT --ticks 0 @IN
t 2 "--ticks must be between 1 and 1000" report --hgrm @OUT --ticks 99999999999999999999 @IN
t 2 "--ticks needs a whole number" report --hgrm @OUT --ticks -1 @IN
t 2 "--hgrm-ratio needs a number" report --hgrm @OUT --hgrm-ratio nan @IN
t 2 "--hgrm-ratio needs a number" report --hgrm @OUT --hgrm-ratio inf @IN
t 2 "--hgrm-ratio must be between.*out of range" report --hgrm @OUT --hgrm-ratio 1e400 @IN
t 2 "--hgrm-ratio must be between" report --hgrm @OUT --hgrm-ratio 0 @IN
t 2 "^latlab report: --ticks needs --hgrm$" report --ticks 3 @IN
t 2 "^latlab report: --linear needs --svg$" report --linear @IN
t 2 "--compare needs two files" report --compare @IN
t 2 "one file at a time" report @IN @IN
t 2 "--hgrm takes one input file" report --hgrm @OUT --svg @T/s.svg @IN @HGRM
# refused before --hgrm is written: @OUT must stay as it was
t 2 "--svg draws at most 24 lines" report --hgrm @OUT --svg @T/s.svg @T/manytags.hlog
t 2 "unknown option '--bogus'" report --bogus @IN
t 2 "'--tag' needs a value" report @IN --tag
t 2 "--tag applies to .hlog" report --tag e2e @HGRM
t 2 "no interval with tag" report --tag nosuch @IN
t 2 "unit-ns-per-value must be between" report --unit-ns-per-value -1 @IN
t 2 "binary data" report --hgrm @OUT @T/nul
t 2 "malformed" report --svg @OUT @T/random
t 0 "" report @T/esc.hlog
t 0 "" report --json @T/esc.hlog
t 0 "" report @IN

# ---- queue
t 2 "--rho must be in \(0, 1\)" queue --rho 1
t 2 "--rho must be in \(0, 1\)" queue --rho 0
t 2 "--rho needs a number" queue --rho nan
t 2 "--rho needs a number" queue --rho ''
t 2 "--rho given twice" queue --rho 0.5 --rho 0.6
t 2 "--servers must be between" queue --servers 0
t 2 "--servers must be between" queue --servers 99999999999999999999
t 2 "--servers needs a whole number" queue --servers 1.5
t 2 "--customers needs a whole number" queue --customers 1e6
t 2 "--customers" queue --customers 0
t 2 "--batches" queue --batches 1
t 2 "--batches" queue --batches 100000
t 2 "^latlab queue: --svg needs --sweep$" queue --svg @OUT
t 2 "^latlab queue: --sweep and --target-p99 exclude each other$" queue --sweep 0.1:0.9:0.1 --target-p99 20
t 2 "--sweep and --rho" queue --sweep 0.1:0.9:0.1 --rho 0.5
t 2 "--sweep needs" queue --sweep 0.1:0.9
t 2 "--sweep" queue --sweep 0.9:0.1:0.1
t 2 "--sweep" queue --sweep 0.1:0.9:0
t 2 "--sweep" queue --sweep nan:0.9:0.1
t 2 "directory '.*nodir' does not exist" queue --sweep 0.1:0.9:0.1 --svg @T/nodir/q.svg
t 2 "is a directory" queue --sweep 0.1:0.9:0.1 --svg @T/adir
t 2 "--svg .*is the input" queue --sweep 0.5:0.9:0.1 --svg @IN --service-from @IN
t 2 "--knee-slope needs --sweep" queue --knee-slope 5
t 2 "--target-p99" queue --target-p99 -1
t 2 "--target-p99" queue --target-p99 0
t 2 "--ca" queue --ca -1
t 2 "--cs" queue --cs nan
t 2 "--cs: must be 0 \(deterministic\) or between 0.001" queue --cs 1e-300
t 2 "--ca: must be 0 \(deterministic\) or between 0.001" queue --ca 1e-200
t 2 "--cs and --service|--service and --cs" queue --cs 1 --service exp
t 2 "^latlab queue: --service-mean and --service-from exclude each other$" queue --service-mean 1us --service-from @IN
t 2 "--service" queue --service nosuch
t 2 "--service" queue --service lognormal:-1
t 2 "--arrival" queue --arrival hyper:0
t 2 "--service-mean" queue --service-mean 0ns
t 2 "--service-mean" queue --service-mean 5parsecs
t 2 "binary data" queue --service-from /dev/zero
t 2 "binary data" queue --service-from @T/nul
t 2 "cannot open" queue --service-from @T/nope.hlog
t 2 "is a directory" queue --service-from @T
t 2 "header with no intervals" queue --service-from @T/header.hlog
t 2 "negative or backward" queue --service-from @T/backward.hlog
t 2 "no interval with tag|tag" queue --service-from @IN:nosuch
t 2 "--service-from and --service-mean|--service-mean and --service-from" queue --service-from @IN --service-mean 1us
t 0 "achieved utilization .* is far from the 0.5 asked" queue --servers 1000 --customers 2000 --rho 0.5
t 2 "unknown option" queue --nope
t 2 "needs a value" queue --rho
t 2 "unexpected|operand|argument" queue extra

# ---- co
t 2 "--requests|-n" co -n 0
t 2 "--requests|-n" co -n 99999999999999999999
t 2 "given twice" co -n 5 --requests 6
t 2 "--rate" co --rate 0
t 2 "--rate" co --rate -5
t 2 "--rate" co --rate nan
t 2 "--service" co --service 0
t 2 "--service" co --service -1us
t 2 "--stall" co --stall -1ms
t 2 "--stall-at" co -n 10 --stall-at 10
t 2 "--clock" co --clock sundial
t 2 "rate x service|below 1|busier" co --rate 100000 --service 20us
t 2 "directory '.*nodir' does not exist" co --svg @T/nodir/co.svg
t 2 "is a directory" co --svg @T/adir
t 2 "--svg .*is not a regular file" co --svg /dev/null
t 2 "unknown option" co --bogus
t 2 "needs a value" co --svg
t 2 "operand|argument|unexpected" co stray

# ---- pipeline
t 2 "--events" pipeline --events 0
t 2 "--events" pipeline --events 99999999999999999999
t 2 "given twice" pipeline --events 5 --events 6
t 2 "--rate" pipeline --rate 0
t 2 "--rate" pipeline --rate nan
t 2 "--rate: '1e400' is out of a number's range" pipeline --rate 1e400
t 2 "--duration must be at least 1 ns, not '-1s'" pipeline --duration -1s
t 2 "--stages" pipeline --stages 0
t 2 "--stages" pipeline --stages 9
t 2 "--capacity" pipeline --capacity 1000
t 2 "--wait" pipeline --wait forever
t 2 "--arrivals" pipeline --arrivals chaotic
t 2 "--duration" pipeline --duration -1s
t 2 "--duration" pipeline --duration 10lightyears
t 2 "^latlab pipeline: --events and --duration exclude each other$" pipeline --events 10 --duration 1s
t 2 "--duration is shorter than one event at --rate 0.001/s" pipeline --duration 2min --rate 0.001 --hlog @OUT
t 2 "--work-ns" pipeline --work-ns -5ns
t 2 "--work-dist" pipeline --work-dist lognormal:nan
t 2 "--cpus" pipeline --cpus 99999
t 2 "--cpus" pipeline --cpus a-b
t 2 "^latlab pipeline: --interval needs --hlog$" pipeline --interval 1s
t 2 "^latlab pipeline: --flight-out needs --freeze-above$" pipeline --flight-out @OUT
t 2 "^latlab pipeline: --flight-post needs --freeze-above$" pipeline --flight-post 3
t 2 "^latlab pipeline: --cpu-period needs --cpu-quota$" pipeline --cpu-period 50ms
t 2 "^latlab pipeline: --cpus and --no-pin exclude each other$" pipeline --no-pin --cpus 0
t 2 "^latlab pipeline: --freeze-above and --no-stamps exclude each other$" pipeline --no-stamps --freeze-above 1ms
t 2 "--hlog '.*' is another output" pipeline --events 10 --hlog @OUT --freeze-above 1ms --flight-out @OUT
t 2 "another output" pipeline --events 10 --hlog @OUT --svg @OUT
t 2 "directory '.*nodir' does not exist" pipeline --events 10 --hlog @T/nodir/x.hlog
t 2 "is a directory" pipeline --events 10 --hlog @T/adir
t 2 "--hlog: empty file name" pipeline --events 10 --hlog ''

t 2 "is not a regular file" pipeline --events 10 --hlog /dev/null
t 2 "directory '.*nodir' does not exist" pipeline --events 10 --hlog @OUT --svg @T/nodir/x.svg
t 2 "not a directory" pipeline --events 10 --hlog @T/h.hlog --hgrm @OUT
t 2 "--freeze-above" pipeline --freeze-above -1ms
t 2 "--flight-post" pipeline --freeze-above 1ms --flight-post 99999999999999999999
t 2 "--stall-at" pipeline --stall-at nonsense
t 2 "--cpu-quota" pipeline --cpu-quota 0
t 2 "--cpu-quota" pipeline --cpu-quota 101
t 2 "--spins" pipeline --spins -1
t 2 "unknown option" pipeline --bogus
t 2 "needs a value" pipeline --hlog
t 2 "operand|argument|experiment|unexpected" pipeline stray
# the option table's kinds: a word list, an optional value, a short
# option given twice, a CPU list longer than the threads it places
t 2 "--wait must be spin, yield or block, not 'forever'" pipeline --wait forever
t 2 "--alloc must be between 1 and" pipeline --alloc=0
t 2 "--alloc given twice \(the second is '2'\)" pipeline --alloc=1M --alloc=2
t 2 "--alloc given twice: give it once" pipeline --alloc=1M --alloc
t 2 "-r given twice \(the second is '4'\)" bench -r 3 -r 4
t 2 "--cpus lists more than 64 CPUs" pipeline --cpus 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,61,62,63,64

# ---- knee
t 2 "--points" knee --points 0
t 2 "^latlab knee: --points and --rho-list exclude each other$" knee --points 4 --rho-list 0.5,0.6
t 2 "--rho-list" knee --rho-list 0.6,0.5
t 2 "--rho-list" knee --rho-list 1.5
t 2 "--work-ns" knee --work-ns 1ns
t 2 "--work-ns" knee --work-ns 1h
t 2 "--point-time" knee --point-time 0s
t 2 "--work-dist" knee --work-dist nosuch
t 2 "--nice" knee --nice 99
t 2 "given twice" knee --points 3 --points 4
t 2 "directory '.*nodir' does not exist" knee --svg @T/nodir/k.svg
t 2 "is a directory" knee --svg @T/adir
t 2 "unknown option" knee --bogus

# ---- mem
t 2 "--steps" mem --steps 0
t 2 "--steps" mem --steps 17
t 2 "--min-size" mem --min-size 1
t 2 "--samples" mem --samples 0
t 2 "--svg draws the chase" mem c2c --svg @OUT
t 2 "directory '.*nodir' does not exist" mem chase --svg @T/nodir/m.svg
t 2 "is a directory" mem chase --svg @T/adir
t 2 "--cpus" mem --cpus 99999
t 2 "--threads" mem --threads 0
t 2 "--duration" mem --duration -1s
t 2 "given twice" mem --steps 2 --steps 3
t 2 "experiment|unknown|not" mem nosuchexperiment
t 2 "unknown option" mem --bogus

# ---- clock, bench, doctor, lab
t 2 "--drift-seconds" clock --drift-seconds 0
t 2 "--drift-seconds" clock --drift-seconds 1e400
t 2 "--calib-ms" clock --calib-ms 0
t 2 "--pairs" clock --pairs 99999999999999999999
t 2 "given twice" clock --pairs 1000 --pairs 2000
t 2 "unknown option" clock --bogus
t 2 "--reps|-r" bench --reps 0
t 2 "--reps|-r" bench --reps 65
t 2 "--iters|-n" bench -n 0
t 2 "given twice" bench -r 3 --reps 4
t 2 "unknown option" bench --bogus
t 2 "--steal" doctor --steal -1s
t 2 "--root" doctor --root @T/nope
t 2 "unknown option" doctor --bogus
t 2 "--rounds" lab --rounds 0
t 2 "--rounds" lab --rounds 21
t 2 "--only" lab --only nosuch
t 2 "^latlab lab: --sham and --only exclude each other$" lab --only stall --sham
t 2 "--events" lab --events 0
t 2 "given twice" lab --rounds 2 --rounds 3
t 2 "directory '.*nodir' does not exist" lab --svg @T/nodir/l.svg
t 2 "is a directory" lab --svg @T/adir
t 2 "given twice" lab --svg @OUT --svg @T/x.svg
t 2 "unknown option" lab --bogus

# ---- profile and sched
t 2 "nothing to profile" profile
t 2 "no command after" profile --
t 2 "exclude each other" profile -p 1 -- true
t 2 "--freq" profile --freq 0 -- true
t 2 "--palette" profile --palette neon --render @IN
t 2 "--diff needs two files" profile --diff @IN
t 2 "^latlab profile: --render and --pid exclude each other$" profile --render @IN -p 1
t 2 "^latlab profile: --rounds needs --overhead$" profile --rounds 2 -- true
t 2 "an input or another output" profile --render @IN --svg @IN
t 2 "an input or another output" profile --folded @OUT --svg @OUT -- true
t 2 "only one output may be '-'" profile --folded - --svg - -- true
t 2 "directory '.*nodir' does not exist" profile --svg @T/nodir/p.svg -- true
t 2 "given twice" profile --freq 99 --freq 100 -- true
t 2 "unknown option" profile --bogus
t 2 "nothing to trace" sched
t 2 "not both" sched -p 1 -- true
t 2 "--pid must be between 1 and" sched -p 999999999
t 2 "--duration" sched --duration -1s -- true
t 2 "--cpus" sched --cpus 99999 -- true
t 2 "directory '.*nodir' does not exist" sched --hlog @T/nodir/s.hlog -- true
t 2 "is a directory" sched --hlog @T/adir -- true
t 2 "given twice" sched --duration 1s --duration 2s -- true
t 2 "unknown option" sched --bogus

[ "$rows" -ge 150 ] || fail "only $rows rows; the table promises 150"
echo "$rows hostile invocations"
done_

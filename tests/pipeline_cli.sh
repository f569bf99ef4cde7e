# Description: latlab pipeline end to end on small runs: exact accounting,
# every delta's count, --json fields, --hlog decoded by latlab's reader and
# by the official HdrHistogram (Java) reader, --hgrm files, SIGINT/SIGTERM
# mid-run (exit 130/143, partial results, valid files), bad flags (exit 2,
# one line), and the oversubscription warning when CPUs are short.
# Cost: 8 (rough seconds: ctest -j starts the costly tests first)
. "$(dirname "$0")/t_lib.sh"

NAMES='["pace", "q1+wake", "work1", "q2+wake", "e2e"]'

# check_run FILE EVENTS INTERRUPTED: accounting and counts in a JSON result.
check_run() {
	python3 - "$@" <<'PY' || fail "run checks on $1"
import json, sys
r = json.load(open(sys.argv[1]))
events, interrupted = int(sys.argv[2]), sys.argv[3] == "yes"
a = r["accounting"]
errs = []
if not a["exact"]:
    errs.append("accounting not exact")
if a["produced"] != a["consumed"] or a["consumed"] != a["recorded"] + a["dropped"]:
    errs.append("produced/consumed/recorded/dropped disagree: %s" % a)
if interrupted:
    if not (0 < a["produced"] < events):
        errs.append("interrupted run produced %d of %d" % (a["produced"], events))
elif a["produced"] != events:
    errs.append("produced %d, expected %d" % (a["produced"], events))
elif events <= 65536 and any(d["count"] != events for d in r["deltas"]):
    # the whole run fits in the sample ring: nothing can be dropped
    errs.append("a delta does not hold every event: %s" % r["deltas"])
for d in r["deltas"]:
    if d["count"] + d["over_range"] != a["recorded"]:
        errs.append("delta %s holds %d, recorded %d" % (d["name"], d["count"], a["recorded"]))
if a["sum_check_failures"] or a["clock_backwards"]:
    errs.append("stamp checks failed: %s" % a)
if r["interrupted"] != interrupted:
    errs.append("interrupted is %s" % r["interrupted"])
if errs:
    print("\n".join(errs), file=sys.stderr)
    sys.exit(1)
PY
}

# report_counts HLOG N: latlab's reader sees N values under every tag.
report_counts() {
	"$LATLAB" report --json "$1" >"$T_TMP/report.json" 2>"$T_TMP/report.err" ||
		{ fail "latlab report $1: $(cat "$T_TMP/report.err")"; return; }
	python3 - "$T_TMP/report.json" "$2" "$NAMES" <<'PY' || fail "report of $1"
import json, sys
r, n, names = json.load(open(sys.argv[1])), int(sys.argv[2]), json.loads(sys.argv[3])
tags = {t["tag"]: t["count"] for t in r["tags"]}
if sorted(tags) != sorted(names) or any(c != n for c in tags.values()):
    print("tags/counts %s, expected %d each of %s" % (tags, n, names), file=sys.stderr)
    sys.exit(1)
PY
}

# --- a normal run with every output ---------------------------------------
expect_exit 0 "$LATLAB" pipeline --events 20000 --json --hlog "$T_TMP/run.hlog" \
	--interval 20ms --hgrm "$T_TMP/hgrm"
cp "$T_TMP/out" "$T_TMP/run.json"
cp "$T_TMP/err" "$T_TMP/run.err"
json_has "$T_TMP/run.json" command config.events config.rate config.arrivals \
	config.stages config.capacity config.work_ns config.wait config.pin \
	placement.oversubscribed placement.compromises placement.threads.0.name \
	placement.threads.0.cpu placement.threads.2.yields deltas.0.name \
	deltas.4.p50_ns deltas.4.p99_ns deltas.4.p999_ns deltas.4.max_ns \
	deltas.4.count deltas.4.over_range accounting.planned accounting.produced \
	accounting.consumed accounting.recorded accounting.dropped \
	accounting.over_range accounting.exact offered_rate achieved_rate wall_s \
	interrupted cycles_per_ns work.target_ns work.check_p50_ns \
	share_line.stage_counter_addr share_line.consumer_counter_addr \
	hlog_intervals hlog hgrm_dir signal diagnosis.worst_part.name \
	diagnosis.worst_part.kind diagnosis.worst_part.p999_ns \
	diagnosis.shared_cpus diagnosis.work_calibration sched_ask.hot_nice \
	sched_ask.nice_error sched_ask.guard_ns sched_ask.guards
check_run "$T_TMP/run.json" 20000 no
# the diagnosis is data: the worst part is a part, and shared CPUs are
# the placement's own fact
json_true "$T_TMP/run.json" 'd["diagnosis"]["worst_part"]["name"] in [x["name"] for x in d["deltas"][:-1]] and
	d["diagnosis"]["worst_part"]["kind"] in ("pace", "queue", "work") and
	d["diagnosis"]["shared_cpus"] == d["placement"]["oversubscribed"] and
	d["diagnosis"]["work_calibration"] in ("ok", "below_overhead", "missed")' ||
	fail "diagnosis does not match the run: $(head -c 300 "$T_TMP/run.json")"
python3 - "$T_TMP/run.json" "$NAMES" <<'PY' || fail "delta names"
import json, sys
r = json.load(open(sys.argv[1]))
assert [d["name"] for d in r["deltas"]] == json.loads(sys.argv[2])
PY

# This machine may be short of CPUs: then the run says so, and still ends.
usable=$(nproc)
if [ "$usable" -lt 3 ]; then
	grep -q "warning: 3 hot threads on $usable usable CPUs" "$T_TMP/run.err" ||
		fail "no oversubscription warning with $usable CPUs: $(cat "$T_TMP/run.err")"
	json_true "$T_TMP/run.json" \
		'd["placement"]["oversubscribed"] and d["config"]["wait"] != "spin"' ||
		fail "oversubscribed run spins"
	# sharing CPUs with each other is sharing with the machine: weight
	# (refused without CAP_SYS_NICE, and then said) and a guard per CPU
	json_true "$T_TMP/run.json" \
		'd["sched_ask"]["hot_nice"] < 0 and d["sched_ask"]["guard_ns"] > 0 and
		d["sched_ask"]["guards"] == len({t["cpu"] for t in d["placement"]["threads"]}) and
		d["sched_ask"]["guard_error"] == 0' ||
		fail "shared CPUs without nice and guards: $(head -c 300 "$T_TMP/run.json")"
else
	grep -q "warning: 3 hot threads" "$T_TMP/run.err" &&
		fail "oversubscription warning with $usable CPUs"
fi

# The interval log, read back by latlab and by the official reader.
report_counts "$T_TMP/run.hlog" 20000
jar=""
for j in /usr/share/java/hdrhistogram.jar /usr/share/java/HdrHistogram.jar; do
	[ -r "$j" ] && jar=$j && break
done
if [ -n "$jar" ] && command -v java >/dev/null; then
	(cd "$T_TMP" && java -cp "$jar" "$LATLAB_SRC/tests/interop/PipeHlog.java" \
		run.hlog >java.out 2>java.err) || fail "java reader: $(cat "$T_TMP/java.err")"
	awk '$3 != 20000 { bad = 1 } END { exit bad || NR != 5 }' "$T_TMP/java.out" ||
		fail "official reader counts: $(cat "$T_TMP/java.out")"
else
	echo "note: official HdrHistogram reader not found (apt-get install" \
		"libhdrhistogram-java); checked with latlab's reader only"
fi

# One .hgrm per delta, each readable, each holding every event.
for n in pace q1+wake work1 q2+wake e2e; do
	[ -s "$T_TMP/hgrm/$n.hgrm" ] || { fail "no $n.hgrm"; continue; }
	"$LATLAB" report --json "$T_TMP/hgrm/$n.hgrm" >"$T_TMP/h.json" \
		2>"$T_TMP/h.err" || fail "latlab report $n.hgrm: $(cat "$T_TMP/h.err")"
	json_true "$T_TMP/h.json" 'd["total"]["count"] == 20000' ||
		fail "$n.hgrm does not hold 20000 values"
done

# --- the table, other shapes ---------------------------------------------
expect_exit 0 "$LATLAB" pipeline --duration 20ms --rate 100000 --stages 2 \
	--arrivals poisson --work-ns 1us
grep -q '^e2e  *2000 ' "$T_TMP/out" || fail "table has no e2e row of 2000"
grep -q '^work2 ' "$T_TMP/out" || fail "table has no work2 row"
grep -q -- '-> exact' "$T_TMP/out" || fail "table accounting not exact"
grep -q '^threads: producer' "$T_TMP/out" || fail "table shows no placement"
expect_exit 0 "$LATLAB" pipeline --events 3000 --no-pin --json --share-line \
	--stall-at 100:1ms
json_true "$T_TMP/out" 'd["placement"]["threads"][1]["cpu"] == -1 and
	d["share_line"]["consumer_counter_addr"] - d["share_line"]["stage_counter_addr"] == 8 and
	d["deltas"][2]["max_ns"] >= 990000' ||
	fail "--no-pin/--share-line/--stall-at not reflected: $(head -c 300 "$T_TMP/out")"

# --- signals: stop, drain, print, valid files -----------------------------
for sig in INT TERM; do
	want=130; [ $sig = TERM ] && want=143
	rm -f "$T_TMP/sig.hlog"
	"$LATLAB" pipeline --events 100000000 --json --hlog "$T_TMP/sig.hlog" \
		--interval 100ms >"$T_TMP/sig.json" 2>"$T_TMP/sig.err" &
	pid=$!
	# wait for the run itself (first interval written), not a fixed time.
	# --hlog writes into a hidden file beside sig.hlog (.sig.hlog.XXXXXX)
	# and renames it at exit: sig.hlog itself does not exist mid-run, so
	# polling only it waited out the whole 30 s limit.
	started=no
	for _ in $(seq 300); do
		grep -qs '^Tag=' "$T_TMP"/.sig.hlog.* && { started=yes; break; }
		kill -0 $pid 2>/dev/null || break
		sleep 0.05
	done
	[ $started = yes ] || fail "SIG$sig: no interval written before the signal"
	kill -$sig $pid
	wait $pid
	got=$?
	[ $got -eq $want ] || fail "SIG$sig: exit $got, expected $want: $(cat "$T_TMP/sig.err")"
	check_run "$T_TMP/sig.json" 100000000 yes
	recorded=$(json_get "$T_TMP/sig.json" 'd["accounting"]["recorded"]')
	[ -n "$recorded" ] && report_counts "$T_TMP/sig.hlog" "$recorded"
done

# --- bad input: one line, exit 2 ------------------------------------------
for bad in "--rate 0" "--rate -5" "--events -5" "--events 0" "--stages 0" \
	"--stages 9" "--capacity 1000" "--capacity 0" "--cpus 1023" \
	"--cpus x" "--wait nap" "--arrivals burst" "--events 5 --duration 1s" \
	"--stall-at 7" "--stall-at 99:1ms --events 10" "--work-ns 2s" \
	"--alloc=0" "--interval 0" "--no-pin --cpus 0" "extra" \
	"--interval 20ms" "--seed 3"; do
	# shellcheck disable=SC2086
	expect_exit 2 "$LATLAB" pipeline $bad
	expect_one_line_error
done
expect_exit 2 "$LATLAB" pipeline --events 10 --hlog /nonexistent/dir/x.hlog
expect_one_line_error
# --hgrm on a file: refused before the run, and no empty --hlog left over
: >"$T_TMP/plain"
rm -f "$T_TMP/left.hlog"
expect_exit 2 "$LATLAB" pipeline --events 10 --hgrm "$T_TMP/plain" \
	--hlog "$T_TMP/left.hlog"
expect_one_line_error
[ -e "$T_TMP/left.hlog" ] && fail "a refused run left '$T_TMP/left.hlog'"
# one file for two outputs would interleave them
expect_exit 2 "$LATLAB" pipeline --events 10 --hlog "$T_TMP/both" \
	--freeze-above 1ms --flight-out "$T_TMP/./both"
expect_one_line_error
if command -v taskset >/dev/null && [ "$usable" -ge 2 ]; then
	# a CPU that exists but is outside this process's affinity mask
	expect_exit 2 taskset -c 0 "$LATLAB" pipeline --events 10 --cpus 1
	expect_one_line_error
	grep -q "cpu 1 is not" "$T_TMP/err" || fail "mask error does not name cpu 1"
fi
done_

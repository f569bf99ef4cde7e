# Description: latlab knee: bad input refused with one line and exit 2
# before anything runs; a short real sweep (two points) gives JSON with
# every point's measurement and predictions, per-point .hlog files and an
# SVG; D/M/1 in latlab queue prints its exact wait; SIGINT keeps the
# points already finished (valid JSON, exit 130). Figures are not
# asserted: the real run is a benchmark, not a timed test.
# Cost: 11 (rough seconds: ctest -j starts the costly tests first)
. "$(dirname "$0")/t_lib.sh"
K="$LATLAB knee"

expect_exit 0 $K --help
for w in EXAMPLES --work-dist --rho-list --points --svg --hlog-dir --force \
	 'SYSTEM STATE' 'nice 0' SIGKILL; do
	grep -q -- "$w" "$T_TMP/out" || fail "--help does not mention $w"
done

# Bad input: one line, exit 2, before any run: the first thing a run
# prints is its "measuring the wake-up floor" line, so one line on stderr
# means nothing ran (no clock: the machine is loaded).
for args in "--rho-list 0.5,1.2" "--rho-list 0.5,0.4" "--rho-list 0.5" \
	    "--rho-list 0.5,x" "--points 1" "--points 65" \
	    "--work-dist lognormal:x" "--work-dist foo" "--work-dist det,bimodal:2:1us" \
	    "--work-ns 100ns" "--work-ns 0" "--work-ns 5us --work-dist bimodal:0.5:20us" \
	    "--points 4 --rho-list 0.5,0.6" "--arrivals bursty" \
	    "--hlog-dir /nonexistent/dir" "--knee-slope -1" "--bogus" "extra"; do
	# shellcheck disable=SC2086
	expect_exit 2 $K $args
	expect_one_line_error
	grep -q 'measuring the wake-up floor' "$T_TMP/err" && fail "'$args' was refused after a run started"
done

# latlab queue: the exact D/M/1 wait beside the simulation.
expect_exit 0 "$LATLAB" queue --arrival det --rho 0.9 --customers 20000
grep -q 'exact D/M/1: W_q = 4.1787 τ' "$T_TMP/out" || fail "no exact D/M/1 wait 4.1787"
expect_exit 0 "$LATLAB" queue --arrival det --rho 0.9 --customers 20000 --json
python3 - "$T_TMP/out" <<'PY' || fail "queue --json lacks the exact D/M/1 wait"
import json, sys
d = json.load(open(sys.argv[1]))
e = d["formulas"]["exact"]
assert d["config"]["time_unit"] == "tau" and e["name"] == "D/M/1", e
assert abs(e["wait"] - 4.1787) < 5e-5, e  # sigma = exp(-(1 - sigma) / 0.9)
PY

# A short real sweep; --force because a loaded machine may measure a
# floor above the 20us / 20 this work allows.
mkdir "$T_TMP/h"
# In a session of its own, whose autogroup only it uses: the other tests
# of this session (every pipeline run sharing CPUs raises its session's
# autogroup too) must not move the weight read before and after it.
expect_exit 0 setsid -w sh -c 'cut -d" " -f2- /proc/self/autogroup \
	>"$0.ag0" 2>/dev/null; "$@"; rc=$?; cut -d" " -f2- \
	/proc/self/autogroup >"$0.ag1" 2>/dev/null; exit $rc' "$T_TMP/ag" \
	$K --rho-list 0.3,0.6 --point-time 300ms --work-ns 30us \
	--customers 20000 --force --json --hlog-dir "$T_TMP/h" --svg "$T_TMP/k.svg"
cp "$T_TMP/out" "$T_TMP/k.json"
json_has "$T_TMP/k.json" wakeup_floor_ns threads.0.cpu runs.0.tau_ns \
	runs.0.points.1.rho runs.0.points.1.ca runs.0.points.1.cs \
	runs.0.points.1.wait.p999_ns runs.0.points.1.e2e.p99_ns \
	runs.0.points.1.kingman_ns runs.0.points.1.sim_ns runs.0.knee.slope
python3 - "$T_TMP/k.json" <<'PY' || fail "knee JSON values are wrong"
import json, sys
d = json.load(open(sys.argv[1]))
r = d["runs"][0]
assert r["work_dist"] == "det" and len(r["points"]) == 2
for p in r["points"]:
    assert p["events"] >= 200 and p["unchained"] >= 0
    assert 0 < p["rho"] and p["tau_ns"] > 0 and p["kingman_ns"] >= 0
    assert p["wait"]["p50_ns"] <= p["wait"]["p99_ns"] <= p["wait"]["p999_ns"]
    # the replay in measured order is the measurement (Lindley exact)
    rp = p["replay"]
    assert rp["events"] == p["events"], rp
    assert abs(rp["in_order_ns"] - p["wait"]["mean_ns"]) <= 1e-6 * max(1, p["wait"]["mean_ns"]), (rp, p["wait"])
    assert p["closer"] in ("kingman", "simulator", "tie"), p["closer"]
    assert p["why"] in ("agree", "bunched_sends", "spread_sends", "clustered_services",
                        "wakeup_in_service", "service_order", "sample"), p["why"]
    assert p["why_text"] and isinstance(p["sim_within_ci95"], bool)
    # the trace-fed simulation and the log errors of all three
    assert p["sim_trace_ns"] > 0 and p["sim_trace_ci95_half_ns"] >= 0, p
    for k in ("kingman", "simulator", "simulator_trace"):
        assert k in p["log_err"], p["log_err"]
sc = r["score"]
assert sc["points"] <= 2 and "gain_over_kingman" in sc["simulator_trace"], sc
assert sc["simulator"]["closer"] == "none", sc  # under 3 points: no verdict
assert d["signal"] == 0
pr = d["priority"]  # the default changes priorities, and says so
assert pr["thread_nice"] == -20, pr
assert pr["autogroup_nice"] in (-20, None), pr
assert (pr["autogroup_nice"] is None) == (pr["autogroup_restored_to"] is None), pr
PY
grep -q 'autogroup at nice -20, given back on exit' "$T_TMP/err" ||
	fail "the default did not announce its priority change on stderr"
# the session's autogroup weight (nice -20 during the sweep) is given back
[ "$(cat "$T_TMP/ag.ag1")" = "$(cat "$T_TMP/ag.ag0")" ] ||
	fail "autogroup not restored: '$(cat "$T_TMP/ag.ag0")' -> '$(cat "$T_TMP/ag.ag1")'"
n=$(find "$T_TMP/h" -name 'knee-det-rho*.hlog' | wc -l)
[ "$n" -eq 2 ] || fail "expected 2 .hlog files, got $n"
"$LATLAB" report "$T_TMP/h/knee-det-rho0.300.hlog" >/dev/null 2>&1 ||
	fail "latlab report cannot read the per-point .hlog"
grep -q '</svg>' "$T_TMP/k.svg" || fail "SVG not finished"
grep -q 'Kingman' "$T_TMP/k.svg" || fail "SVG lacks the Kingman curve"

# SIGINT during the sweep: the finished points are kept, exit 130.
# The err of the sweep above has ' rho ' lines too, and the job below may
# truncate it only after the loop first looks: start from no file.
rm -f "$T_TMP/err"
$K --rho-list 0.3,0.4,0.5,0.6 --point-time 2s --work-ns 30us --force \
	--nice 0 --customers 20000 --json --svg "$T_TMP/i.svg" \
	>"$T_TMP/i.json" 2>"$T_TMP/err" &
pid=$!
# interrupt once the first point is finished (its progress line is out)
for _ in $(seq 1200); do
	grep -q ' rho ' "$T_TMP/err" 2>/dev/null && break
	kill -0 $pid 2>/dev/null || break
	sleep 0.1
done
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] || fail "SIGINT: exit $rc, expected 130"
python3 - "$T_TMP/i.json" <<'PY' || fail "SIGINT JSON is not complete"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["signal"] == 2
assert d["priority"]["changed"] is False and d["priority"]["autogroup_nice"] is None
assert d["runs"], "no run was kept"
for r in d["runs"]:
    assert 1 <= len(r["points"]) < 4 and r["interrupted"], r["points"]
PY
# the chart of a stopped sweep says so under its title
grep -q 'class="partial"' "$T_TMP/i.svg" && grep -q 'stopped after [1-3] of 4 points' "$T_TMP/i.svg" ||
	fail "the SVG of an interrupted sweep is not marked partial"

# A signal that kills the sweep still gives the session its autogroup
# weight back, and two overlapping sweeps in one session leave it where
# it was: sweeps A then B run in a session of their own, each is hung up
# once it is running (nice -20 then in place), A first; the shell left in
# that session reads the weight afterwards. (B saw -20 as its old value:
# restoring that would leave the user's session at -20.)
if [ "$(id -u)" -eq 0 ] && [ -w /proc/self/autogroup ] && command -v setsid >/dev/null; then
	setsid bash -c '
		sweep() { # stderr file: start a sweep, wait until it runs
			"$L" knee --rho-list 0.3,0.4 --point-time 2s --work-ns 30us \
				--force --customers 20000 >/dev/null 2>"$1" &
			pid=$!
			for _ in $(seq 1200); do
				grep -q "measuring the wake-up floor" "$1" && break
				kill -0 $pid 2>/dev/null || break
				sleep 0.1
			done
		}
		L=$1
		before=$(cut -d" " -f2- /proc/self/autogroup)
		sweep "$2.a"; a=$pid
		during=$(cut -d" " -f2- /proc/$a/autogroup)
		sweep "$2.b"; b=$pid
		kill -HUP $a; wait $a; rc=$?
		kill -HUP $b; wait $b
		echo "$rc|$before|$during|$(cut -d" " -f2- /proc/self/autogroup)"
	' _ "$LATLAB" "$T_TMP/hup" >"$T_TMP/hup" 2>/dev/null
	IFS='|' read -r rc before during after <"$T_TMP/hup"
	[ "$rc" = 129 ] || fail "SIGHUP: exit '$rc', expected 129: $(cat "$T_TMP/hup")"
	[ "$during" = "nice -20" ] || fail "the sweep did not set its autogroup: '$during'"
	[ "$after" = "$before" ] || fail "SIGHUP left the session at '$after' (was '$before')"
else
	echo "note: not root or no autogroups: the SIGHUP restore was not checked"
fi

# The chart as a reader sees it: rendered by headless Chromium, with the
# measured points (blue) and the axis labels drawn.
chromium=$(sed -n 's/^LATLAB_CHROMIUM:[A-Z]*=//p' "$LATLAB_BUILD/CMakeCache.txt")
case $chromium in
""|*NOTFOUND) [ "$t_failures" -eq 0 ] || done_
	skip "chromium not found (apt-get install -y chromium): the knee SVG was not rendered" ;;
esac
python3 "$LATLAB_SRC/tests/tools/svg_check.py" "$chromium" "$T_TMP/k.svg" \
	"$T_TMP/k.png" --label "achieved utilization rho (busy / wall)" \
	--label "work det: measured W_q/τ, 95% CI" --color "#1f77b4" \
	>"$T_TMP/check" 2>&1 || fail "$(cat "$T_TMP/check")"
done_

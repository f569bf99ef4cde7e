# Description: latlab sched end to end: -- command and -p pid (a sleeping
# process, one that exits mid-trace, Ctrl-C), --json and --hlog, the /proc
# fallback, and bad input (one line, exit 2). The probe parts skip, with
# the reason, when the probe cannot run here; the rest always runs.
. "$(dirname "$0")/t_lib.sh"

# ---- bad input: one line on stderr, exit 2 ----
expect_exit 2 "$LATLAB" sched
expect_one_line_error
expect_exit 2 "$LATLAB" sched -p abc
expect_one_line_error
expect_exit 2 "$LATLAB" sched -p 4194000
expect_one_line_error
grep -q 'no process 4194000' "$T_TMP/err" || fail "bad pid message: $(cat "$T_TMP/err")"
expect_exit 2 "$LATLAB" sched -p 1 --duration 10parsecs
expect_one_line_error
expect_exit 2 "$LATLAB" sched -p 1 --duration 0
expect_one_line_error
expect_exit 2 "$LATLAB" sched -p 1 -- sleep 1
expect_one_line_error
expect_exit 2 "$LATLAB" sched --cpus 100000 -p 1
expect_one_line_error
expect_exit 2 "$LATLAB" sched --frobnicate -p 1
expect_one_line_error
expect_exit 2 "$LATLAB" sched -- /nonexistent/command
expect_one_line_error
expect_exit 2 "$LATLAB" sched --hlog /nonexistent/dir/x.hlog -- true
expect_one_line_error
expect_exit 0 "$LATLAB" sched --help
grep -q '^EXAMPLES:' "$T_TMP/out" || fail "--help has no EXAMPLES:"

# ---- the /proc fallback (any user) ----
expect_exit 0 "$LATLAB" sched --proc --json -- sleep 0.2
json_has "$T_TMP/out" source probe_unavailable threads.0.switches_voluntary
python3 - "$T_TMP/out" <<'PY' || fail "fallback counts"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["source"] == "proc", r
t = r["threads"][0]
# sleep blocks once in nanosleep: at least one voluntary switch
assert t["switches_voluntary"] >= 1, t
PY

# ---- the probe ----
"$LATLAB" sched -- true >"$T_TMP/avail" 2>&1
if grep -q '^probe: unavailable' "$T_TMP/avail"; then
	skip "probe unavailable here: $(sed -n 's/^probe: unavailable: //p' "$T_TMP/avail")"
fi

# A command to its exit: sleep 1 blocks once for a second.
expect_exit 0 "$LATLAB" sched --json -- sleep 1
json_has "$T_TMP/out" flavour lost total.rq_wakeup.p99_ns total.blocked.max_ns
python3 - "$T_TMP/out" <<'PY' || fail "sched -- sleep 1: $(head -c 400 "$T_TMP/out")"
import json, sys
r = json.load(open(sys.argv[1]))
t = r["total"]
assert r["exited"] and not r["interrupted"], r
assert r["lost"] == 0, r["lost"]
assert t["switches_voluntary"] >= 1, t
# The one long block is the sleep itself: measured, unless this VM's
# kernel did not report its end (events go missing while its agent's
# threads run: 1 run in 450 in docs/sched.md); then the stretch is
# counted and timed as hidden, and only then may the blocked interval be
# missing.
if t["hidden"] == 0:
    assert t["blocked"]["max_ns"] >= 900_000_000, t["blocked"]
else:
    assert t["blocked"]["count"] and t["blocked"]["max_ns"] >= 900_000_000 \
        or t["hidden_ns"] >= 900_000_000, t
# the release from the start line and the end of the sleep: each either
# measured as a run-queue latency after a wakeup or counted as hidden
assert t["rq_wakeup"]["count"] + t["hidden"] >= 2, t
# every nanosecond the child was seen is in one of the four times
seen = t["oncpu_ns"] + t["runnable_ns"] + t["blocked_ns"] + t["hidden_ns"]
assert 950_000_000 <= seen <= r["window_ns"], (seen, r["window_ns"], t)
PY
expect_exit 0 "$LATLAB" sched -- sleep 0.1
grep -q '^command: sleep (pid [0-9]*), exited 0' "$T_TMP/out" || fail "text: $(head -3 "$T_TMP/out")"
grep -q '^probe: .* 0 lost' "$T_TMP/out" || fail "text accounting: $(tail -1 "$T_TMP/out")"

# A sleeping process, for a fixed window; with --per-thread and --hlog.
sleep 30 &
sleeper=$!
expect_exit 0 "$LATLAB" sched -p "$sleeper" --duration 200ms --per-thread --cpus 0 --hlog "$T_TMP/s.hlog" --json
json_has "$T_TMP/out" pid cpus.0.silent total.switches_voluntary
python3 - "$T_TMP/out" "$sleeper" <<'PY' || fail "sched -p sleeping: $(head -c 400 "$T_TMP/out")"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["pid"] == int(sys.argv[2]) and not r["exited"], r
assert r["window_ns"] >= 200_000_000, r["window_ns"]
# asleep the whole window: no switch of its own
assert r["total"]["switches_voluntary"] + r["total"]["switches_involuntary"] == 0, r["total"]
PY
grep -q 'Tag=rq_wakeup,' "$T_TMP/s.hlog" || fail "hlog has no rq_wakeup interval"

# Ctrl-C: what was gathered is printed, exit 130.
"$LATLAB" sched -p "$sleeper" >"$T_TMP/int.out" 2>"$T_TMP/int.err" &
tracer=$!
for _ in $(seq 1 200); do
	grep -q 'tracing pid' "$T_TMP/int.err" && break
	sleep 0.05 # polling for the "tracing" line, not timing a race
done
kill -INT "$tracer"
wait "$tracer"
rc=$?
[ "$rc" -eq 130 ] || fail "Ctrl-C exit $rc, expected 130: $(cat "$T_TMP/int.err")"
grep -q '^probe: ' "$T_TMP/int.out" || fail "Ctrl-C printed nothing: $(cat "$T_TMP/int.out")"
kill "$sleeper"

# A process that exits mid-trace ends the trace cleanly.
sleep 0.3 &
short=$!
expect_exit 0 "$LATLAB" sched -p "$short" --duration 60s
grep -q 'exited during the trace' "$T_TMP/out" || fail "exit mid-trace: $(head -2 "$T_TMP/out")"
done_

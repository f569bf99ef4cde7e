# Description: latlab pipeline --sched: the probe around a short run, the
# attribution of the events above p99.9 (causes add up to their time, the
# named share, no ring-buffer loss; the JSON diagnosis carries the same
# shares), the flight recorder's window explained when --freeze-above
# fires, and the text table with the probe's tail: line. Skips, with the
# reason, when the probe cannot run here.
. "$(dirname "$0")/t_lib.sh"

"$LATLAB" pipeline --sched --events 2000 >"$T_TMP/avail" 2>&1
if grep -q 'probe unavailable' "$T_TMP/avail"; then
	skip "$(grep -o 'probe unavailable: .*' "$T_TMP/avail" | head -1)"
fi
expect_exit 2 "$LATLAB" pipeline --sched --no-stamps --events 1000
expect_one_line_error

# 50,000 events: 50 above p99.9. A stall of stage 1 on event 20,000 makes
# the flight recorder freeze around it (or earlier: this machine is shared
# and an e2e above 1 ms may come first).
expect_exit 0 "$LATLAB" pipeline --sched --events 50000 --rate 100000 \
	--stall-at 20000:2ms --freeze-above 1ms --flight-post 32 --json
json_has "$T_TMP/out" sched.ran sched.threshold_ns sched.above_p999.causes \
	sched.probe.lost sched.flight_window.events sched.clock_pairs \
	sched.reader.tid sched.reader.cpu sched.reader.pinned \
	diagnosis.scheduler.shares.probe
python3 - "$T_TMP/out" <<'PY' || fail "pipeline --sched attribution: $(head -c 600 "$T_TMP/out")"
import json, sys
r = json.load(open(sys.argv[1]))
s = r["sched"]
a = s["above_p999"]
assert s["ran"], s
p = s["probe"]
assert p["missed"] == 0, p
# the records were copied during the run and decoded after it
assert p["deferred_bytes"] > 0 and p["decode_ns"] > 0, p
# Records are lost only when the reader cannot keep up: allowed (counted,
# and shown) only if the probe's own reader sat runnable, off its CPU, for
# over a quarter of the window, as on a machine busy with other tests;
# with the reader running, a loss is a bug
if p["lost"]:
    rt = [t for t in p["threads"] if t["tid"] == s["reader"]["tid"]]
    assert rt and rt[0]["runnable_ns"] > p["window_ns"] / 4, \
        ("lost", p["lost"], rt and rt[0]["runnable_ns"], p["window_ns"])
    print("note: %d records lost, the reader runnable %.0f%% of the window"
          % (p["lost"], 100.0 * rt[0]["runnable_ns"] / p["window_ns"]))
e2e = [d for d in r["deltas"] if d["name"] == "e2e"][0]
# none above p99.9 only when the slowest share p99.9's histogram bucket
assert a["events"] >= 1 or e2e["max_ns"] <= s["threshold_ns"] * 1.001, (a, e2e)
# the probe's own reader is a cause of its own, never "own threads"
assert "probe" in [c["cause"] for c in a["causes"]], a["causes"]
assert all(w["name"] != "latlab-sched" for w in a["own"]), a["own"]
# it ran, and away from every hot thread when it was pinned
rd = s["reader"]
hot = {t["cpu"] for t in r["placement"]["threads"]}
assert rd["tid"] > 0 and rd["pinned"] == (rd["cpu"] >= 0), rd
assert rd["cpu"] not in hot or not rd["pinned"], (rd, hot)
# every nanosecond of their time is given to exactly one cause
assert sum(c["ns"] for c in a["causes"]) == a["total_ns"], a
# and the events are the run's slowest: each above the threshold
assert all(w["e2e_ns"] > s["threshold_ns"] for w in s["worst"]), s["worst"]
# the recorder's window, explained: the same events it kept
f = r["flight"]
w = s["flight_window"]
assert f["state"] == "frozen", f
assert w["events"] == f["window"], (w["events"], f["window"])
assert s["flight_first_seq"] <= f["trigger"]["seq"] <= s["flight_last_seq"], (s, f["trigger"])
assert sum(c["ns"] for c in w["causes"]) == w["total_ns"], w
assert s["clock_pairs"] >= 2 and abs(s["mono_vs_raw_ppm"]) < 1000, s
# the diagnosis carries the same facts, as shares of the same time
d = r["diagnosis"]["scheduler"]
assert d is not None, r["diagnosis"]
assert d["threshold_ns"] == s["threshold_ns"] and d["events"] == a["events"], (d, a)
assert d["total_ns"] == a["total_ns"], (d, a)
want = {c["cause"]: c["share"] for c in a["causes"]}
assert set(d["shares"]) == set(want), (d["shares"], want)
for k in ("own", "probe", "foreign", "irq", "unexplained"):
    assert abs(d["shares"][k] - want[k]) < 1e-9, (k, d["shares"], want)
if a["total_ns"]:
    big = max(want.values())
    L = d["largest"]
    assert L is not None and abs(want[L["cause"]] - big) < 1e-9, (L, want)
    names = {"foreign": a["foreign"], "own": a["own"], "irq": a["irq"],
             "probe": [{"name": "latlab-sched", "pid": rd["tid"]}]}.get(L["cause"], [])
    assert L["who"] == (names[0]["name"] if names else None), (L, names)
    assert L["who_pid"] == (names[0]["pid"] if names else 0), (L, names)
    assert L["who_foreign"] == (L["cause"] == "foreign" and bool(names) and names[0]["pid"] > 0), L
else:
    assert d["largest"] is None, d
print("above p99.9: %d events, named %.1f%%" % (a["events"], 100 * a["named_share"]))
PY

expect_exit 0 "$LATLAB" pipeline --sched --events 20000
grep -q '^sched: [0-9]* events above p99.9' "$T_TMP/out" || fail "no attribution table: $(tail -5 "$T_TMP/out")"
grep -q '^  covered by named causes: ' "$T_TMP/out" || fail "no coverage line"
grep -q "^tail: with the scheduler probe: " "$T_TMP/out" || fail "no tail: line from the probe: $(grep '^sched' "$T_TMP/out")"
# among the other tail: lines, before the probe's own table
awk '/^tail: with the scheduler probe: /{t=NR} /^sched: [0-9]* events above/{s=NR} END{exit !(t && s && t < s)}' "$T_TMP/out" ||
	fail "the probe's tail: line is not with the diagnosis"
grep -q "^sched: the probe's reader (latlab-sched, tid [1-9][0-9]*) ran " "$T_TMP/out" ||
	fail "where the reader ran: $(grep '^sched' "$T_TMP/out")"
grep -q '^sched: probe .*, 0 lost' "$T_TMP/out" || fail "probe accounting: $(grep '^sched: probe' "$T_TMP/out")"

# without the probe the diagnosis says so: null, not a made-up table
expect_exit 0 "$LATLAB" pipeline --events 2000 --json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["diagnosis"]; assert "scheduler" in d and d["scheduler"] is None, d' "$T_TMP/out" ||
	fail "diagnosis.scheduler without --sched: $(head -c 300 "$T_TMP/out")"
done_

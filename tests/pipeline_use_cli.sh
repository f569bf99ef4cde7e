# Description: the USE audit of a pipeline run: one line per resource in
# the text (each hot CPU, each ring, the aggregator, its sample ring,
# memory) and an object per resource in --json; ring depths sampled and
# consistent; zero errors on a short run; each CPU's hot-thread time is
# the counters' task-clock of the threads pinned there, exactly, with
# what their CPU clocks say beyond it shown as switches x a per-switch
# figure that multiplies out (--perf-counters: perf's task-clock); the
# CPU clocks fit in the CPU's busy time; with the default counters (from
# /proc, where "task-clock" is the CPU clock again) the share is still
# the table's task-clock, exactly, and says so; without counters the row
# says it counts by the CPU clocks.
. "$(dirname "$0")/t_lib.sh"

expect_exit 0 "$LATLAB" pipeline --events 30000 --perf-counters
cp "$T_TMP/out" "$T_TMP/out.txt"
grep -q '^USE (utilization, saturation, errors):$' "$T_TMP/out" || fail "no USE section"
for r in 'cpu[0-9]' q1 q2 aggregator samples memory; do
	grep -Eq "^  $r.* U .* S .* E " "$T_TMP/out" || fail "no USE line for $r"
done

expect_exit 0 "$LATLAB" pipeline --events 30000 --perf-counters --json
python3 - "$T_TMP/out" <<'PY' || fail "USE JSON is wrong"
import json, sys
d = json.load(open(sys.argv[1]))
use = d["use"]
threads = d["placement"]["threads"]
tc = {t["name"]: t for t in d["threads_counters"]}
kinds = sorted(v["resource"] for v in use.values())
assert kinds.count("ring") == 3 and "aggregator" in kinds and "memory" in kinds, kinds
cpus = {k: v for k, v in use.items() if v["resource"] == "cpu"}
assert set(cpus) == {"cpu%d" % t["cpu"] for t in threads}, cpus.keys()
for name, v in use.items():
    assert v["errors"]["total"] == 0, (name, v["errors"])
    if v["resource"] == "ring":
        s = v["saturation"]
        assert s["looks"] > 0, (name, s)
        assert 0 <= s["depth_p50"] <= s["depth_p99"] <= s["depth_max"] <= s["capacity"], (name, s)
        assert 0 <= v["utilization"]["nonempty_pct"] <= 100
assert "producer_late_p99_ns" in use["q1"]["saturation"]
for name, v in cpus.items():
    cpu = int(name[3:])
    mine = [t["name"] for t in threads if t["cpu"] == cpu]
    u = v["utilization"]
    ours = u["hot_threads_on_cpu_ns"]
    # adds up with the counters table by construction
    assert u["hot_threads_source"] == "task-clock", u
    assert ours == sum(tc[n]["task_clock_ns"] for n in mine), (name, u)
    clocks = sum(t["on_cpu_ns"] for t in threads if t["cpu"] == cpu)
    switches = sum(tc[n]["ctx_switches"] for n in mine)
    assert u["cpu_clock_ns"] == clocks, (name, u)
    assert u["switching_ns"] == clocks - ours, (name, u)
    assert u["context_switches"] == switches, (name, u)
    if switches:
        per = u["switching_ns_per_switch"]
        assert abs(per * switches - u["switching_ns"]) <= 1e-6 * abs(u["switching_ns"]) + 1, (name, u)
    # both clocks fit in what /proc/stat says the CPU did (10 ms ticks)
    if u["busy_ns"] is not None:
        assert max(ours, clocks) <= u["busy_ns"] * 1.05 + 2e7, (name, u)
    assert v["saturation"]["run_delay_ns"] >= 0
mem = use["memory"]
assert mem["utilization"]["rss_bytes"] > 0
PY
# the text says the same: by task-clock, and (on CPUs whose threads
# switched) the CPU clocks' surplus as switches x a per-switch figure
grep -Eq '^  cpu[0-9].* U busy .*% \(hot threads .*% by task-clock[;)]' "$T_TMP/out.txt" \
	|| fail "the text CPU line does not count by task-clock"
if grep 'CPU clocks' "$T_TMP/out.txt" | grep -Evq 'by task-clock; CPU clocks [-+][0-9.]+% = [0-9]+ switches x [-+][0-9.]+ [nµm]?s\)'; then
	fail "a CPU line shows the switches badly: $(grep 'CPU clocks' "$T_TMP/out.txt")"
fi

# the default counters (/proc): the table's task-clock again, exactly;
# without counters: the CPU clocks
for opt in --no-counters ""; do
expect_exit 0 "$LATLAB" pipeline --events 20000 $opt --json
python3 - "$T_TMP/out" "$opt" <<'PY' || fail "USE with '$opt' is wrong"
import json, sys
d = json.load(open(sys.argv[1]))
counters = sys.argv[2] != "--no-counters"
threads = d["placement"]["threads"]
tc = {t["name"]: t for t in d.get("threads_counters") or []}
for name, v in d["use"].items():
    if v["resource"] != "cpu":
        continue
    u = v["utilization"]
    mine = [t for t in threads if "cpu%d" % t["cpu"] == name]
    if counters:
        assert u["hot_threads_source"] == "task-clock-proc", u
        assert u["hot_threads_on_cpu_ns"] == sum(tc[t["name"]]["task_clock_ns"] for t in mine), u
    else:
        assert u["hot_threads_source"] == "cpu-clock", u
        assert u["hot_threads_on_cpu_ns"] == sum(t["on_cpu_ns"] for t in mine), u
    assert u["switching_ns"] is None and u["context_switches"] is None, u
PY
done
done_

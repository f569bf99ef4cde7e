# Description: the USE audit of a pipeline run: one line per resource in
# the text (each hot CPU, each ring, the aggregator, its sample ring,
# memory) and an object per resource in --json; ring depths sampled and
# consistent; zero errors on a short run; each CPU's hot-thread time adds
# up with the counters' task-clock of the threads pinned there (within
# what the context switches themselves cost, which the thread CPU clock
# counts and task-clock does not) and fits in the CPU's busy time.
. "$(dirname "$0")/t_lib.sh"

expect_exit 0 "$LATLAB" pipeline --events 30000
grep -q '^USE (utilization, saturation, errors):$' "$T_TMP/out" || fail "no USE section"
for r in 'cpu[0-9]' q1 q2 aggregator samples memory; do
	grep -Eq "^  $r.* U .* S .* E " "$T_TMP/out" || fail "no USE line for $r"
done

expect_exit 0 "$LATLAB" pipeline --events 30000 --json
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
    assert ours == sum(t["on_cpu_ns"] for t in threads if t["cpu"] == cpu)
    task_clock = sum(tc[n]["task_clock_ns"] for n in mine)
    switches = sum(tc[n]["ctx_switches"] or 0 for n in mine)
    # The two clocks are read at slightly different edges of each
    # thread's run (counters opened and read around it, the thread CPU
    # clock read inside it), so they agree within 1 ms + 2 % either way;
    # above that, task-clock stops while a switch is in progress and the
    # CPU clock does not (about 2 us a switch here).
    edge = 1e6 + 0.02 * task_clock
    assert task_clock - edge <= ours <= task_clock + edge + 2000 * switches, \
        (name, ours, task_clock, switches)
    # and it fits in what /proc/stat says the CPU did (10 ms ticks)
    if u["busy_ns"] is not None:
        assert ours <= u["busy_ns"] * 1.05 + 2e7, (name, ours, u["busy_ns"])
    assert v["saturation"]["run_delay_ns"] >= 0
mem = use["memory"]
assert mem["utilization"]["rss_bytes"] > 0
PY
done_

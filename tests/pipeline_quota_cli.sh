# Description: `latlab pipeline --cpu-quota`, the CFS-throttling experiment:
# a short run at 20 % of one CPU is throttled (nr_throttled > 0, throttled
# time, a p99.9 of the order of period - quota, the fingerprint named in
# the table and in the JSON); its cgroup is gone after a normal exit,
# after SIGINT (exit 130, partial results printed), and a group left by a
# SIGKILLed run is removed by the next run; as `nobody` it refuses in one
# line with exit 2; bad values exit 2 with one line.
# Cost: 10 (rough seconds: ctest -j starts the costly tests first)
. "$(dirname "$0")/t_lib.sh"

for args in "--cpu-quota 0" "--cpu-quota 150" "--cpu-quota abc" \
	"--cpu-quota 20 --cpu-period 1ns" "--cpu-quota 20 --cpu-period 2s" \
	"--cpu-period 50ms" "--burst-threads 2" "--cpu-quota 20 --burst-threads 65" \
	"--cpu-quota 0.5 --cpu-period 10ms"; do
	# shellcheck disable=SC2086
	expect_exit 2 "$LATLAB" pipeline $args --events 1000
	expect_one_line_error
done

[ "$(id -u)" -eq 0 ] || skip "the experiment needs root to make a cgroup"
# where this process's cpu cgroup lives (v1 cpu controller, or v2)
cgdir=$(python3 - <<'PY'
import os
mi = [l.split() for l in open("/proc/self/mountinfo")]
cg = [l.strip().split(":", 2) for l in open("/proc/self/cgroup")]
for f in mi:
    dash = f.index("-")
    if f[dash + 1] == "cgroup" and "cpu" in f[dash + 3].split(","):
        path = next(c[2] for c in cg if "cpu" in c[1].split(","))
        print(f[4] + (path if path != "/" else ""))
        break
else:
    for f in mi:
        dash = f.index("-")
        if f[dash + 1] == "cgroup2":
            path = next(c[2] for c in cg if c[0] == "0")
            d = f[4] + (path if path != "/" else "")
            if "cpu" in open(d + "/cgroup.controllers").read().split():
                print(d)
            break
PY
)
[ -n "$cgdir" ] && [ -w "$cgdir" ] || skip "no writable cgroup cpu controller here"

if command -v setpriv >/dev/null; then
	chmod o+rx "$T_TMP"
	expect_exit 2 setpriv --reuid=nobody --regid=nogroup --clear-groups \
		--inh-caps=-all "$LATLAB" pipeline --cpu-quota 20 --events 1000
	expect_one_line_error
	grep -q 'needs root' "$T_TMP/err" || fail "unprivileged refusal does not say why: $(cat "$T_TMP/err")"
fi

# A short throttled run: 20 % of one CPU, 50 ms periods, ~0.3 s of events.
run=(--cpu-quota 20 --cpu-period 50ms --events 60000 --no-counters)
expect_exit 0 "$LATLAB" pipeline "${run[@]}" --json
cp "$T_TMP/out" "$T_TMP/quota.json"
python3 - "$T_TMP/quota.json" <<'PY' || fail "the throttled run does not show throttling"
import json, sys
d = json.load(open(sys.argv[1]))
q = d["cpu_quota"]
assert q["quota_us"] == 10000 and q["period_us"] == 50000, q
assert q["nr_throttled"] > 0 and q["throttled_ns"] > 0, q
assert q["nr_throttled"] <= q["nr_periods"], q
assert q["cleanup_error"] is None, q
e2e = next(x for x in d["deltas"] if x["name"] == "e2e")
stall_ns = (q["period_us"] - q["quota_us"]) * 1000
# of the order of period - quota: a frozen group cannot do better
assert e2e["p999_ns"] >= stall_ns / 4, (e2e["p999_ns"], stall_ns)
dg = d["diagnosis"]
assert dg["throttled"] is True and dg["stall_ns"] == stall_ns, dg
# USE: the throttled periods are the CPUs' errors
cpus = [v for v in d["use"].values() if v["resource"] == "cpu"]
assert cpus and all(c["errors"]["throttled_periods"] == q["nr_throttled"] for c in cpus)
assert d["accounting"]["exact"] is True
PY
child=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cpu_quota"]["cgroup"])' "$T_TMP/quota.json")
[ -n "$child" ] && [ ! -e "$cgdir/${child##*/}" ] || fail "cgroup $child left after a normal exit"

expect_exit 0 "$LATLAB" pipeline "${run[@]}"
grep -q '^cpu quota: 10.0 ms per 50.0 ms period' "$T_TMP/out" || fail "no 'cpu quota:' line beside the table"
grep -q '^tail: CPU quota throttling: .*period - quota = 40.0 ms' "$T_TMP/out" ||
	fail "the fingerprint line does not name throttling"

# A pool bursting past the quota throttles the group, pipeline and all.
expect_exit 0 "$LATLAB" pipeline --cpu-quota 20 --cpu-period 50ms --burst-threads 2 \
	--events 20000 --no-counters --json
python3 - "$T_TMP/out" <<'PY' || fail "--burst-threads run is wrong"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["config"]["burst_threads"] == 2, d["config"]
assert d["cpu_quota"]["nr_throttled"] > 0, d["cpu_quota"]
assert d["accounting"]["exact"] is True
PY

# wait_for_group PID: until latlab-PID exists (the run is inside), max 20 s
wait_for_group() {
	local i
	for ((i = 0; i < 400; i++)); do
		[ -d "$cgdir/latlab-$1" ] && return 0
		kill -0 "$1" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

# SIGINT: partial results, exit 130, group gone.
"$LATLAB" pipeline --cpu-quota 20 --events 20000000 --no-counters --json >"$T_TMP/int.out" 2>"$T_TMP/int.err" &
pid=$!
if wait_for_group "$pid"; then
	kill -INT "$pid"
	wait "$pid"
	rc=$?
	[ "$rc" -eq 130 ] || fail "SIGINT: exit $rc, not 130: $(head -c 300 "$T_TMP/int.err")"
	python3 - "$T_TMP/int.out" <<'PY' || fail "SIGINT: no partial results in the JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["interrupted"] is True and d["signal"] == 2, (d["interrupted"], d["signal"])
assert d["accounting"]["exact"] is True, d["accounting"]
PY
	[ ! -e "$cgdir/latlab-$pid" ] || fail "SIGINT: cgroup latlab-$pid left behind"
else
	kill -KILL "$pid" 2>/dev/null
	fail "the run never entered its cgroup: $(head -c 300 "$T_TMP/int.err")"
fi

# SIGKILL leaves the group; the next run removes it.
"$LATLAB" pipeline --cpu-quota 20 --events 20000000 --no-counters >/dev/null 2>&1 &
pid=$!
if wait_for_group "$pid"; then
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
	[ -d "$cgdir/latlab-$pid" ] || fail "SIGKILL: expected a leftover latlab-$pid to clean"
	expect_exit 0 "$LATLAB" pipeline --cpu-quota 50 --events 2000 --no-counters
	[ ! -e "$cgdir/latlab-$pid" ] || fail "the next run did not remove the leftover latlab-$pid"
else
	kill -KILL "$pid" 2>/dev/null
	fail "the second run never entered its cgroup"
fi
done_

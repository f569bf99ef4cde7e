# Description: 'latlab mem': the quick chase reports every size with
# consistent percentiles, plateaus named against the caches and a verdict;
# the contention experiments report exact counts and no torn reads, in
# JSON and for people; Ctrl-C prints what finished and exits 130; bad
# input exits 2 with one line. Nothing here asserts a timing.
. "$(dirname "$0")/t_lib.sh"

expect_exit 0 "$LATLAB" mem chase --quick --json --svg "$T_TMP/chase.svg"
cp "$T_TMP/out" "$T_TMP/chase.json"
json_has "$T_TMP/chase.json" machine.caches machine.cycles_per_ns \
	chase.points.0.random.p50_ns chase.points.0.sequential.p50_ns \
	chase.plateaus.0.name chase.verdict chase.counter_cycles_per_ns \
	interrupted wall_s
python3 - "$T_TMP/chase.json" <<'PY' || fail "chase JSON is inconsistent"
import json, sys
d = json.load(open(sys.argv[1]))
c = d["chase"]
pts = c["points"]
# 4 KiB .. 2 MiB at 4 steps per doubling: 9 doublings
assert len(pts) == 37, len(pts)
assert pts[0]["bytes"] == 4096 and pts[-1]["bytes"] == 2 << 20
for a, b in zip(pts, pts[1:]):
    assert b["bytes"] > a["bytes"]
for p in pts:
    for v in ("random", "sequential", "page_local"):
        f = p[v]
        assert 0 < f["min_ns"] <= f["p50_ns"] <= f["p90_ns"] <= f["p99_ns"] <= f["max_ns"], p
        assert f["loads"] == c["samples"] * c["loads_per_sample"]
        assert f["over_range"] == 0
    assert "random_huge" not in p
assert c["complete"] and not d["interrupted"]
pl = c["plateaus"]
# named in order after the caches (where each one starts and ends is a
# measurement on a shared machine, so it is not asserted here)
assert pl and pl[0]["name"] == "L1d", pl
assert all(a["last_bytes"] < b["first_bytes"] for a, b in zip(pl, pl[1:]))
assert c["verdict"].startswith("%d plateau" % len(pl))
for p in pl:  # each plateau's level is the median of its sizes' minima
    mins = sorted(q["random"]["min_ns"] for q in pts
                  if p["first_bytes"] <= q["bytes"] <= p["last_bytes"])
    assert mins[0] <= p["level_ns"] <= mins[-1], p
# the finder ran on the page-by-page curve too; the quick sweep stops
# below the last-level cache, and the note says so instead of a verdict
assert c["plateaus_by_curve"]["random"] == pl
assert c["plateaus_by_curve"]["page_local"][0]["name"] == "L1d"
llc = c["llc"]
assert not llc["seen_at_sysfs_size"]
assert "not measured" in llc["note"], llc
assert c["thp_enabled"] in ("always", "madvise", "never", "")
PY
python3 -c "import xml.dom.minidom, sys; xml.dom.minidom.parse(sys.argv[1])" \
	"$T_TMP/chase.svg" || fail "the chase SVG is not well-formed XML"

# --hugepages adds a variant and says what the kernel gave.
expect_exit 0 "$LATLAB" mem chase --quick --hugepages --max-size 256K --json
python3 - "$T_TMP/out" <<'PY' || fail "hugepages JSON"
import json, sys
c = json.load(open(sys.argv[1]))["chase"]
assert c["huge_pages"] in ("MAP_HUGETLB", "transparent huge pages (madvise)", "base pages")
assert all("random_huge" in p for p in c["points"])
# what the kernel gave is reported after the buffer is gone, not zeroed
assert c["huge_buffer_bytes"] == 256 << 10, c["huge_buffer_bytes"]
assert 0 <= c["huge_bytes"] <= c["huge_buffer_bytes"]
assert c["huge_pages"] != "base pages" or c["huge_errno"] > 0
assert "random_huge" in c["plateaus_by_curve"]
PY

# Past the last-level cache (when sysfs names one): the effective
# capacity and, when no curve shows the sysfs size, the lap-by-lap drift
# are data, consistent with the note. Few samples: relations, not figures.
llc=$(python3 -c "import json,sys; c=json.load(open(sys.argv[1]))['machine']['caches']; print(max([x['size_bytes'] for x in c] or [0]))" "$T_TMP/chase.json" 2>/dev/null || echo 0)
if [ "$llc" -gt 0 ] && [ "$llc" -le $((64 << 20)) ]; then
	expect_exit 0 "$LATLAB" mem chase --quick --steps 2 --samples 4 \
		--hugepages --max-size $((2 * llc)) --json
	python3 - "$T_TMP/out" "$llc" <<'PY' || fail "last-level JSON"
import json, sys
doc = json.load(open(sys.argv[1]))
c = doc["chase"]
llc = c["llc"]
assert llc["sysfs_bytes"] == int(sys.argv[2])
assert set(llc["effective_bytes"]) == {"random", "random_huge", "page_local"}, llc
assert llc["effective_bytes"]["page_local"] is None
for v in llc["effective_bytes"].values():
    assert v is None or 0 <= v <= 2 * int(sys.argv[2]), llc
d = llc.get("drift")
if llc["seen_at_sysfs_size"]:
    assert d is None, llc
if d:
    # the drift chases one of the sweep's sizes
    assert d["bytes"] in [p["bytes"] for p in c["points"]], d
    # a part of the run: no bound in seconds, which a loaded machine
    # can stretch (the probe's length is lat_mem's, not this test's)
    assert 1 <= d["laps"] and 0 < d["seconds"] < doc["wall_s"]
    ln, cap = d["lap_ns"], d["capacity_bytes"]
    assert ln["min"] <= ln["p10"] <= ln["p50"] <= ln["p90"] <= ln["max"]
    assert 0 <= cap["min"] <= cap["p50"] <= cap["max"] <= d["bytes"]
    assert "lap after lap" in llc["note"]
    assert ("it changes from one lap" in llc["note"]) == d["changes_lap_to_lap"]
    assert d["changes"] >= d["changes_lap_to_lap"]
    assert ("so the cache is shared with work outside" in llc["note"]) == d["changes"]
    p = [q for q in c["points"] if q["bytes"] == d["bytes"]][0]
    assert p[d["curve"]]["p50_ns"] == d["sweep_p50_ns"], (p, d)
PY
else
	echo "SKIP-PART: no last-level cache of at most 64 MiB in sysfs"
fi

# The contention experiments, short, at normal priority: the default.
expect_exit 0 "$LATLAB" mem c2c false-sharing read-mostly --quick \
	--rounds 1 --threads 1,2 --json
cp "$T_TMP/out" "$T_TMP/contend.json"
json_has "$T_TMP/contend.json" c2c.verdict false_sharing.rows.0.p50_ns \
	false_sharing.verdict read_mostly.rows.0.read_p99_ns read_mostly.verdict
python3 - "$T_TMP/contend.json" <<'PY' || fail "contention JSON is inconsistent"
import json, sys
d = json.load(open(sys.argv[1]))
n = len(d["machine"]["cpus"])
assert len(d["c2c"]["pairs"]) == n * (n - 1) // 2
assert d["c2c"]["fifo_runs"] == 0 and not d["c2c"]["fifo_asked"]
fs = d["false_sharing"]["rows"]
assert len(fs) == (6 if n >= 2 else 3), len(fs)
for r in fs:
    assert r["exact"], r
    assert r["offset_bytes"] in (8, 64, 128)
    assert r["fifo_runs"] == 0 and not r["fifo_asked"]
rm = d["read_mostly"]["rows"]
assert len(rm) == 6
for r in rm:
    assert r["torn"] == 0, r
    assert r["reads"] > 0
    assert r["read_p50_ns"] <= r["read_p99_ns"] <= r["read_p999_ns"]
    assert r["oversubscribed"] == (r["readers"] > n)
assert {r["kind"] for r in rm} == {"rwlock", "rcu", "sharded"}
# every key snake_case (lowercase, digits, _), like every latlab document
def keys(x):
    if isinstance(x, dict):
        for k, v in x.items():
            yield k
            yield from keys(v)
    elif isinstance(x, list):
        for v in x:
            yield from keys(v)
bad = [k for k in keys(d) if not all(c.islower() or c.isdigit() or c == "_" for c in k)]
assert not bad, bad
# the findings are the rows' own numbers, not separate guesses
f = d["read_mostly"]["finding"]
assert f["readers"] == 2
by = {r["kind"]: r for r in rm if r["readers"] == 2}
assert abs(f["rwlock_over_rcu_p99"] -
           by["rwlock"]["read_p99_ns"] / by["rcu"]["read_p99_ns"]) < 1e-9
assert f["rcu_p99_below_rwlock"] == (f["rwlock_over_rcu_p99"] > 1)
g = d["false_sharing"]["finding"]
if n >= 2:
    same, padded = fs[0], fs[2]
    assert abs(g["two_cpus_same_over_padded_p50"] -
               same["p50_ns"] / padded["p50_ns"]) < 1e-9
one = [r for r in fs if r["placement"] == "one CPU"]
assert abs(g["one_cpu_same_over_padded_p50"] -
           one[0]["p50_ns"] / one[2]["p50_ns"]) < 1e-9
PY

# People get tables with units and a verdict line per experiment.
expect_exit 0 "$LATLAB" mem false-sharing read-mostly --quick \
	--rounds 1 --threads 2
grep -q 'same line (8 B apart)' "$T_TMP/out" || fail "no same-line row"
grep -q 'rwlock/rcu p99 ratio' "$T_TMP/out" || fail "no rwlock/rcu ratio"
[ "$(grep -c '^  -> ' "$T_TMP/out")" -ge 2 ] || fail "a verdict line is missing"
grep -q '^wall time ' "$T_TMP/out" || fail "no wall time"

# --rt asks for SCHED_FIFO; without the privilege the refusal is counted
# and said, and the run goes on at normal priority (exit 0).
if command -v setpriv >/dev/null 2>&1 &&
	[ "$(python3 -c 'import os; print(len(os.sched_getaffinity(0)))')" -ge 2 ]; then
	expect_exit 0 setpriv --bounding-set -sys_nice --inh-caps -sys_nice \
		"$LATLAB" mem c2c false-sharing --quick --rounds 1 --rt --json
	python3 - "$T_TMP/out" <<'PY' || fail "--rt refusal JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["c2c"]["fifo_asked"] and d["c2c"]["fifo_runs"] == 0
two = [r for r in d["false_sharing"]["rows"] if r["placement"] != "one CPU"]
assert two and all(r["fifo_asked"] and r["fifo_runs"] == 0 for r in two)
PY
	expect_exit 0 setpriv --bounding-set -sys_nice --inh-caps -sys_nice \
		"$LATLAB" mem c2c --quick --rounds 1 --rt
	grep -q 'SCHED_FIFO asked for: 0 of .* the kernel refused' "$T_TMP/out" ||
		fail "--rt refused without saying so"
else
	echo "note: setpriv or a second CPU missing: the --rt refusal is not checked"
fi

# A run that fails mid-way (here: no thread may be created, so the c2c
# after a finished chase fails) exits 1 and its JSON stays well-formed:
# what finished, then "error", "failed_in" and "complete": false.
# As nobody, since root is exempt from RLIMIT_NPROC.
if command -v setpriv >/dev/null 2>&1 && command -v prlimit >/dev/null 2>&1 &&
	setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$LATLAB"; then
	for exp in c2c false-sharing read-mostly; do
		# LeakSanitizer needs a thread to scan at exit, which nproc=1
		# forbids: leak checking is off for this row only.
		expect_exit 1 setpriv --reuid=65534 --regid=65534 --clear-groups \
			env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
			prlimit --nproc=1 "$LATLAB" mem chase "$exp" --quick \
			--max-size 64K --rounds 1 --threads 1 --json
		grep -q "latlab mem: .*failed: " "$T_TMP/err" ||
			fail "$exp: no failure line on stderr: $(cat "$T_TMP/err")"
		python3 - "$T_TMP/out" "$exp" <<'PY' || fail "$exp: JSON after a failure"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["failed_in"] == sys.argv[2].replace("-", "_"), d["failed_in"]
assert d["error"] and not d["complete"] and not d["interrupted"]
assert d["chase"]["complete"] and d["chase"]["points"]
assert sys.argv[2].replace("-", "_") not in d
PY
	done
else
	echo "note: setpriv, prlimit or a binary nobody may run is missing: the failure JSON is not checked"
fi

# Ctrl-C: what finished is printed, exit 130 (JSON stays valid).
interrupt() { # output file, then latlab mem arguments
	local out=$1 pid rc; shift
	"$LATLAB" mem "$@" >"$out" 2>"$T_TMP/err" &
	pid=$!
	wait_sigint_ready "$pid" "$T_TMP/err"
	kill -INT "$pid"
	wait "$pid"
	rc=$?
	[ "$rc" -eq 130 ] || fail "interrupted 'mem $*' exited $rc, expected 130"
}
interrupt "$T_TMP/int.json" chase --samples 3000 --json
python3 - "$T_TMP/int.json" <<'PY' || fail "interrupted JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["interrupted"] is True and d["chase"]["complete"] is False
PY
interrupt "$T_TMP/int.txt" chase --samples 3000
grep -q '^interrupted: ' "$T_TMP/int.txt" || fail "no 'interrupted' line"

expect_exit 0 "$LATLAB" mem --help
grep -q 'EXAMPLES' "$T_TMP/out" || fail "--help has no EXAMPLES"

usable=$(python3 -c 'import os; print(max(os.sched_getaffinity(0)))')
for bad in "--min-size 32" "--min-size 0" "--max-size 1023G" \
	   "--max-size 2P" "--min-size 1M --max-size 64K" \
	   "--cpus $((usable + 1))" "--cpus 5000" "--cpus x" \
	   "--threads 0" "--threads 1,0" "--threads x" "--steps 0" \
	   "--rounds 0" "--duration 5" "--frobnicate" "bogus" "--svg" \
	   "chase --svg /nonexistent-dir/c.svg" "c2c --svg $T_TMP/x.svg"; do
	# shellcheck disable=SC2086
	expect_exit 2 "$LATLAB" mem $bad
	expect_one_line_error
done
# the refusal names what is available, not the size asked for twice.
# MemAvailable moves by more than 5% in a fraction of a second on a
# shared machine (other jobs allocate and free), so the figure is not
# compared with a second reading: it is bounded by MemTotal, which does
# not move, and the asked size is above that. Which meminfo field is read
# is test_mem's check, on a fixture.
expect_exit 2 "$LATLAB" mem chase --max-size 1023G
python3 - "$T_TMP/err" <<'PY' || fail "available memory misreported: $(cat "$T_TMP/err")"
import re, sys
msg = open(sys.argv[1]).read()
kb = [l.split()[1] for l in open("/proc/meminfo") if l.startswith("MemTotal:")]
total = int(kb[0]) * 1024
m = re.search(r"only ([0-9.]+) (KiB|MiB|GiB|TiB) is available", msg)
scale = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}
got = float(m.group(1)) * scale[m.group(2)]
# 3 significant digits: up to 0.5% above the figure printed from (the
# size asked, 1023 GiB, is above MemTotal on any machine this runs on)
assert 0 < got <= total * 1.005, (got, total)
PY
done_

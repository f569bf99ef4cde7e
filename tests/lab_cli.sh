# Description: latlab lab end to end, judged from its JSON (never from
# prose): bad input exits 2 with one line; a short lab alternates
# baselines and experiments, each experiment between two baselines of its
# own placement, with one verdict per experiment as data (the sham null
# always among them) and the exact counters deciding alloc; --sham runs
# the false-positive check alone; Ctrl-C judges the runs done and exits
# 130.
. "$(dirname "$0")/t_lib.sh"

# py FILE SCRIPT: run a python check on a JSON file; fail with its output.
py() {
	local file=$1 script=$2
	python3 -c "$script" "$file" || fail "check on $file failed"
}

for bad in "--rounds 0" "--rounds 21" "--only alloc,nonsense" "--only null" \
	   "--only ," "--sham --only stall" "--events 10" "--rate 0"; do
	# shellcheck disable=SC2086
	expect_exit 2 "$LATLAB" lab $bad
	expect_one_line_error
done
expect_exit 2 "$LATLAB" lab --only ""
expect_one_line_error

# The lab itself, short: 2000 events per run.
expect_exit 0 "$LATLAB" lab --quick --events 2000 --json
py "$T_TMP/out" '
import json, sys
r = json.load(open(sys.argv[1]))
rows = r["rows"]
assert r["runs_done"] == r["runs_planned"] == len(rows), r["runs_done"]
assert not r["stopped"]
exps = [x for x in rows if x["kind"] == "experiment"]
for i, x in enumerate(rows):
    assert x["exact"], x
    assert x["fell_behind"] == (x["achieved_per_s"] < 0.9 *
                                x["offered_per_s"]), x
    if x["kind"] == "experiment":
        for nb in (rows[i - 1], rows[i + 1]):
            assert nb["kind"] == "baseline" and nb["arm"] == x["arm"], (x, nb)
v = {x["experiment"]: x for x in r["verdicts"]}
want = ["null", "alloc", "alloc-mmap", "no-pin", "noise", "stall",
        "share-line", "share-line-1cpu"]
assert sorted(v) == sorted(want), list(v)
outcomes = {"seen", "not_seen", "within_drift", "cannot_show", "no_data"}
for name, x in v.items():
    assert x["outcome"] in outcomes, x
    assert x["seen"] == (x["outcome"] == "seen"), x
    assert x["expected"] and x["expected_text"], x
    if x["outcome"] in ("cannot_show", "no_data"):
        assert x["why"], x
    else:
        assert x["runs"] >= 1, x
        for s in ("p50", "p99", "p999", "mean"):
            c = x["e2e"][s]
            assert c["tolerance"] >= 1.25 and c["ratio"] > 0, x
assert v["null"]["expected"] == "no_effect"
assert v["stall"]["expected"] == "stall_window"
stall = [x for x in rows if x["experiment"] == "stall"][0]
assert stall["stall_ns"] >= 2e6 and "frozen" in stall["flight"], stall
if r["placement"]["usable_cpus"] < 2:
    assert v["share-line"]["outcome"] == "cannot_show", v["share-line"]
else:
    sl = [x for x in rows if x["experiment"] == "share-line"][0]
    assert sl["arm"] in ("split", "default"), sl
if "allocations" in r["unavailable"]:
    assert v["alloc"]["outcome"] == "cannot_show", v["alloc"]
else:
    # exact counters: one allocation per event, none in the baselines
    assert v["alloc"]["outcome"] == "seen", v["alloc"]
    assert v["alloc"]["per_event"] == 1.0, v["alloc"]
    assert all(x["allocations"] == 0 for x in rows
               if x["kind"] == "baseline"), rows
'

# The false-positive check alone: baseline and null, alternating.
expect_exit 0 "$LATLAB" lab --sham --quick --events 2000 --rounds 2 --json
py "$T_TMP/out" '
import json, sys
r = json.load(open(sys.argv[1]))
names = [x["name"] for x in r["rows"]]
assert names == ["baseline", "null", "baseline", "null", "baseline"], names
assert [x["experiment"] for x in r["verdicts"]] == ["null"], r["verdicts"]
assert r["verdicts"][0]["runs"] == 2, r["verdicts"]
'

# Ctrl-C mid-run: exit 130; the cut row is marked and nothing after it ran.
"$LATLAB" lab --only alloc --events 100000000 --json \
	>"$T_TMP/int.out" 2>"$T_TMP/int.err" &
pid=$!
# the progress line comes after the signal handlers are in place
for _ in $(seq 300); do
	grep -q 'run 1 of' "$T_TMP/int.err" && break
	sleep 0.1
done
kill -INT $pid
wait $pid
got=$?
[ $got -eq 130 ] || fail "lab SIGINT: exit $got, expected 130"
py "$T_TMP/int.out" '
import json, sys
r = json.load(open(sys.argv[1]))
assert r["stopped"] and r["signal"] == 2, r
assert r["runs_done"] == 1 and r["rows"][0]["interrupted"], r["rows"]
assert r["rows"][0]["events"] < r["rows"][0]["events_planned"]
assert r["verdicts"][0]["outcome"] == "no_data", r["verdicts"]
'
done_

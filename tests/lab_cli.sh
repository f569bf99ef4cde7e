# Description: latlab lab end to end: --quick finishes on this machine,
# its JSON has a row per run (3 baselines, 5 experiments) with a derived
# fingerprint per experiment and the allocations --alloc makes; --only
# picks experiments; bad flags exit 2 with one line.
. "$(dirname "$0")/t_lib.sh"

# py FILE SCRIPT: run a python check on a JSON file; fail with its output.
py() {
	local file=$1 script=$2
	python3 -c "$script" "$file" || fail "check on $file failed"
}

expect_exit 2 "$LATLAB" lab --only alloc,nonsense
expect_one_line_error
expect_exit 2 "$LATLAB" lab --runs 0
expect_one_line_error
# an empty list named no experiment: refused, not a baseline-only run
for only in "" ","; do
	expect_exit 2 "$LATLAB" lab --only "$only"
	expect_one_line_error
done

# The lab itself, short.
expect_exit 0 "$LATLAB" lab --quick --json
py "$T_TMP/out" '
import json, sys
r = json.load(open(sys.argv[1]))
rows = r["rows"]
names = [x["name"] for x in rows]
assert names == ["baseline 1", "baseline 2", "baseline 3", "alloc",
                 "no-pin", "share-line", "noise", "stall"], names
for x in rows:
    assert x["exact"], x
    assert x["events"] == 20000, x
    if x["kind"] == "experiment":
        assert x["fingerprint"] and "×" in x["fingerprint"], x
    else:
        assert x["fingerprint"] is None
by = {x["name"]: x for x in rows}
if by["alloc"]["allocations"] is None:
    assert r["unavailable"]["allocations"]
else:
    assert by["alloc"]["allocations"] == 20000, by["alloc"]
    assert by["baseline 1"]["allocations"] == 0
    assert "allocations +20000" in by["alloc"]["fingerprint"]
'
expect_exit 0 "$LATLAB" lab --quick --only stall --runs 1
grep -q '^  stall ' "$T_TMP/out" || fail "no verdict line for stall"

# Ctrl-C mid-run: exit 130, and the cut row is named as partial (it used
# to look like a full run and sit in the baseline unmarked).
"$LATLAB" lab --runs 1 --only alloc --events 100000000 \
	>"$T_TMP/int.out" 2>"$T_TMP/int.err" &
pid=$!
# the line comes after the signal handlers are in place
for _ in $(seq 300); do
	grep -q 'running the baseline' "$T_TMP/int.err" && break
	sleep 0.1
done
kill -INT $pid
wait $pid
got=$?
[ $got -eq 130 ] || fail "lab SIGINT: exit $got, expected 130"
grep -q '^interrupted: baseline 1 stopped after' "$T_TMP/int.out" ||
	fail "the interrupted row is not named: $(tail -3 "$T_TMP/int.out")"
done_

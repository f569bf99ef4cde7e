# Description: latlab report --svg, pipeline --svg, co --svg, lab --svg
# and report --compare. Each percentile spectrum is well-formed SVG with its axis
# labels and one line per tag/file/hop/lane, and renders in headless
# Chromium to a picture that is not blank (each line's colour is on it);
# --compare of a run with itself is noise at
# every percentile and a run whose work stage is 50x longer is 'higher'
# at work1's p50; bad input (--svg into a missing directory or over an
# input or another output, --compare with one file or different tags) is
# one line, exit 2, and writes nothing. The PNGs are kept in build/svg-shots/ to look at.
# Cost: 15 (rough seconds: ctest -j starts the costly tests first)
. "$(dirname "$0")/t_lib.sh"
: "${LATLAB_SRC:?}" "${LATLAB_BUILD:?}"
data=$LATLAB_SRC/tests/data
hlog=$data/report-small.hlog
hgrm=$data/report-ones.hgrm
shots=$LATLAB_BUILD/svg-shots
mkdir -p "$shots"

# A short pipeline run with 1 work stage of $1 and 8 intervals in its log.
run() {
	local work=$1 log=$2; shift 2
	"$LATLAB" pipeline --events 8000 --rate 40000 --work-ns "$work" \
		--interval 25ms --hlog "$log" --no-counters "$@" >/dev/null 2>&1 ||
		fail "pipeline run for $log failed"
}
run 100ns "$T_TMP/a.hlog" --svg "$shots/pipeline.svg"
run 5us "$T_TMP/slow.hlog"
! grep -q 'class="partial"' "$shots/pipeline.svg" ||
	fail "a whole run's pipeline.svg is marked partial"
"$LATLAB" co -n 2000 --stall 20ms --svg "$shots/co.svg" >/dev/null 2>&1 ||
	fail "co --svg failed"
"$LATLAB" lab --quick --only alloc --svg "$shots/lab.svg" >/dev/null 2>&1 ||
	fail "lab --svg failed"

# --- bad input: one line, exit 2, nothing written -------------------
expect_exit 2 "$LATLAB" report --svg "$T_TMP/missing/x.svg" "$hlog"
expect_one_line_error
[ ! -e "$T_TMP/missing" ] || fail "--svg into a missing directory created it"
cp "$hlog" "$T_TMP/in.hlog"
expect_exit 2 "$LATLAB" report --svg "$T_TMP/in.hlog" "$T_TMP/in.hlog"
expect_one_line_error
cmp -s "$hlog" "$T_TMP/in.hlog" || fail "--svg over an input changed it"
expect_exit 2 "$LATLAB" report --svg "$T_TMP/x.svg" "$T_TMP/a.hlog" "$T_TMP/in.hlog" --compare
expect_one_line_error
grep -q "different tags" "$T_TMP/err" || fail "different tags not named: $(cat "$T_TMP/err")"
[ ! -e "$T_TMP/x.svg" ] || fail "a refused --compare wrote the svg"
expect_exit 2 "$LATLAB" report --compare "$hlog" "$hgrm"
expect_one_line_error
expect_exit 2 "$LATLAB" report --compare "$hlog"
expect_one_line_error
expect_exit 2 "$LATLAB" report --svg "$T_TMP/x.svg" "$T_TMP/nonexistent.hlog"
expect_one_line_error
[ ! -e "$T_TMP/x.svg" ] || fail "an unreadable input still wrote the svg"
expect_exit 2 "$LATLAB" report --linear "$hlog"
expect_one_line_error
expect_exit 2 "$LATLAB" report "$hlog" "$hgrm"
expect_one_line_error
expect_exit 2 "$LATLAB" pipeline --events 1000 --svg "$T_TMP/missing/p.svg"
expect_one_line_error
expect_exit 2 "$LATLAB" pipeline --events 1000 --hlog "$T_TMP/p.hlog" --svg "$T_TMP/p.hlog"
expect_one_line_error
[ ! -e "$T_TMP/p.hlog" ] || fail "a refused pipeline --svg left its --hlog behind"
expect_exit 2 "$LATLAB" co -n 1000 --svg "$T_TMP/missing/c.svg"
expect_one_line_error
expect_exit 2 "$LATLAB" co -n 1000 --svg "$T_TMP"
expect_one_line_error
expect_exit 2 "$LATLAB" lab --quick --svg "$T_TMP/missing/l.svg"
expect_one_line_error

# --- --compare -------------------------------------------------------
expect_exit 0 "$LATLAB" report --compare --json "$T_TMP/a.hlog" "$T_TMP/a.hlog" "$T_TMP/slow.hlog"
cp "$T_TMP/out" "$T_TMP/cmp.json"
json_has "$T_TMP/cmp.json" files.2.intervals tags.0.tag \
	tags.0.percentiles.0.files.0.value_ns tags.0.percentiles.4.files.1.band_lo_ns \
	tags.0.percentiles.5.files.2.verdict tags.0.percentiles.3.level
python3 - "$T_TMP/cmp.json" <<'PY' || fail "--compare verdicts"
import json, sys
d = json.load(open(sys.argv[1]))
tags = {t["tag"]: {p["name"]: p["files"] for p in t["percentiles"]}
        for t in d["tags"]}
assert set(tags) == {"pace", "q1+wake", "work1", "q2+wake", "e2e"}, tags.keys()
for name, t in tags.items():
    assert list(t) == ["p50", "p90", "p99", "p99.9", "p99.99", "max"], list(t)
    for k, cells in t.items():
        assert cells[0]["verdict"] == "baseline", (name, k, cells[0])
        # the same file twice: equal values, equal bands, so noise
        assert cells[1]["verdict"] == "noise", (name, k, cells[1])
        assert cells[1]["ratio"] == 1, (name, k, cells[1])
        assert cells[2]["verdict"] in ("noise", "higher", "lower"), cells[2]
w = tags["work1"]["p50"][2]
assert w["verdict"] == "higher" and w["ratio"] > 10, w
PY
expect_exit 0 "$LATLAB" report --compare "$T_TMP/a.hlog" "$T_TMP/slow.hlog"
grep -q "^work1: .*slow.hlog against .*a.hlog" "$T_TMP/out" || fail "no work1 block"
grep -Eq "^p50 .* higher$" "$T_TMP/out" || fail "no 'higher' p50 row"

# --- --svg -----------------------------------------------------------
expect_exit 0 "$LATLAB" report --svg "$shots/report-one.svg" "$T_TMP/a.hlog"
expect_exit 0 "$LATLAB" report --svg "$shots/report-two.svg" --tag e2e "$T_TMP/a.hlog" "$T_TMP/slow.hlog"
expect_exit 0 "$LATLAB" report --svg "$shots/report-linear.svg" --linear --tag work1 "$T_TMP/a.hlog" "$T_TMP/slow.hlog"
expect_exit 0 "$LATLAB" report --svg "$shots/report-hgrm.svg" "$hlog" "$hgrm"
[ -s "$shots/report-one.svg" ] || fail "no svg written"

chromium=$(sed -n 's/^LATLAB_CHROMIUM:[A-Z]*=//p' "$LATLAB_BUILD/CMakeCache.txt")
case $chromium in
""|*NOTFOUND) [ "$t_failures" -eq 0 ] || done_
	skip "chromium not found (apt-get install -y chromium): SVG screenshots not checked" ;;
esac
check() { # svg, then svg_check.py options
	local svg=$1; shift
	python3 "$LATLAB_SRC/tests/tools/svg_check.py" "$chromium" "$svg" \
		"${svg%.svg}.png" "$@" >"$T_TMP/check" 2>&1 ||
		fail "$(cat "$T_TMP/check")"
}
axes=(--label "50%" --label "99%" --label "99.9%" --label "99.99%"
      --label "percentile (axis: log 1/(1-p))")
check "$shots/report-one.svg" "${axes[@]}" --label "latency (log scale)" \
	--label "latency by percentile: $T_TMP/a.hlog" --label e2e --label work1 \
	--label pace --label "1 µs" --color "#2ca02c" --color "#9467bd"
check "$shots/report-two.svg" "${axes[@]}" --label a.hlog --label slow.hlog \
	--color "#1f77b4" --color "#d62728"
check "$shots/report-linear.svg" "${axes[@]}" --label latency --label 0 \
	--color "#1f77b4" --color "#d62728"
check "$shots/pipeline.svg" "${axes[@]}" --label pace --label "q1+wake" \
	--label work1 --label "q2+wake" --label e2e --color "#000000" --color "#2ca02c"
check "$shots/co.svg" "${axes[@]}" \
	--label "open loop: from the intended send (what users waited)" \
	--label "closed loop: from the actual send (the benchmark's lie)" \
	--color "#d62728" --color "#2ca02c" --color "#1f77b4"
check "$shots/lab.svg" "${axes[@]}" --label "null (1 run)" --label "alloc (1 run)" \
	--label "latlab lab: e2e of the baselines and each experiment" \
	--color "#000000" --color "#1f77b4" --color "#d62728"
check "$shots/report-hgrm.svg" "${axes[@]}" --label "report-small.hlog: e2e" \
	--label "report-ones.hgrm: (untagged)" --label "99.99999%"
done_

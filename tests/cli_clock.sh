# Description: `latlab clock` — a short run succeeds and reports every
# section; --json parses and has every field; bad flag values exit 2 with
# one line. No timing is asserted: the values only have to be sane.
. "$(dirname "$0")/t_lib.sh"

quick=(--calib-ms 20 --drift-seconds 0.05 --pairs 2000)

expect_exit 0 "$LATLAB" clock "${quick[@]}"
for section in 'calibration against CLOCK_MONOTONIC_RAW' 'spread of the three' \
	'drift vs CLOCK_MONOTONIC_RAW' 'cost of one read' 'invariant counter' \
	'kernel clocksource'; do
	grep -q "$section" "$T_TMP/out" || fail "text report lacks '$section'"
done
[ "$(grep -c 'cycles/ns' "$T_TMP/out")" -ge 3 ] || fail "fewer than three calibrations shown"
grep -Eq '^  #1  [0-9]+\.[0-9]{4} cycles/ns' "$T_TMP/out" ||
	fail "calibration not shown with 4 decimals"

expect_exit 0 "$LATLAB" clock "${quick[@]}" --json
cp "$T_TMP/out" "$T_TMP/clock.json"
fields=(arch source cpus calib_ms calibrations.0.cycles_per_ns
	calibrations.2.window_spread_ppm calibrations.2.windows cycles_per_ns
	calibration_spread_ppm calibration_stable
	drift.seconds drift.ppm drift.uncertainty_ppm
	invariant.verdict invariant.cpuid invariant.constant_tsc
	invariant.nonstop_tsc invariant.tsc_reliable invariant.tsc_known_freq
	clocksource kernel_uses_counter warnings)
for k in raw start end rdtscp monotonic monotonic_raw; do
	fields+=("read_cost.$k.how" "read_cost.$k.available"
		"read_cost.$k.pairs" "read_cost.$k.backwards")
done
fields+=(read_cost.rdtscp.cpuid_claims read_cost.rdtscp.cpuinfo_claims
	read_cost.rdtscp.executes read_cost.rdtscp.note)
json_has "$T_TMP/clock.json" "${fields[@]}"
# Values, not just keys: sane, internally consistent, nothing silently lost.
python3 - "$T_TMP/clock.json" <<'PY' || fail "clock --json values are not sane"
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["calibrations"]) == 3
# a frequency, or null where the hardware states none; never a made-up 0
assert d["hw_hz"] is None or d["hw_hz"] > 0, d["hw_hz"]
assert 1e-3 < d["cycles_per_ns"] < 100
for c in d["calibrations"]:
    assert abs(c["cycles_per_ns"] / d["cycles_per_ns"] - 1) < 0.01, c
for k, c in d["read_cost"].items():
    if not c["available"]:
        assert c["p50_ns"] is None and c["pairs"] == 0, (k, c)
        continue
    assert c["pairs"] == 2000, (k, c)
    if c["backwards"] < c["pairs"]:
        assert 0 <= c["p50_ns"] <= c["p99_ns"], (k, c)
for k in ("raw", "start", "end", "monotonic", "monotonic_raw"):
    assert d["read_cost"][k]["available"], k
assert d["drift"]["seconds"] > 0.04
assert isinstance(d["warnings"], list)
if not d["invariant"]["verdict"]:
    assert any("NOT invariant" in w for w in d["warnings"])
PY

# Bad values: zero, negative, not numbers, out of range, unknown flags.
for bad in "--drift-seconds 0" "--drift-seconds -1" "--drift-seconds abc" \
	"--drift-seconds 1e9" "--calib-ms 0" "--calib-ms -5" "--calib-ms 2.5" \
	"--calib-ms 5" "--pairs 0" "--pairs many" "--pairs -100" \
	"--drift-seconds" "--bogus" "extra-arg"; do
	# shellcheck disable=SC2086
	expect_exit 2 "$LATLAB" clock $bad
	expect_one_line_error
	[ -s "$T_TMP/out" ] && fail "'clock $bad' printed to stdout"
done
done_

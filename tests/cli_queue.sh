# Description: latlab queue: one point, sweep (unstable points, knee, SVG
# well-formed with the expected elements), target-p99, JSON, usage errors.
. "$(dirname "$0")/t_lib.sh"
Q="$LATLAB queue"
N="--customers 20000"

expect_exit 0 $Q --help
for w in EXAMPLES KNEE DISTRIBUTIONS --sweep --target-p99 --svg; do
	grep -q -- "$w" "$T_TMP/out" || fail "--help does not mention $w"
done

# One point: the formulas beside the simulation, Little's law printed.
expect_exit 0 $Q --rho 0.8 $N
for w in 'M/M/1' Kingman 'mean wait W_q' 'sojourn p99' "Little's law" p99.9; do
	grep -q "$w" "$T_TMP/out" || fail "point output lacks '$w'"
done
expect_exit 0 $Q --rho 0.8 --servers 3 $N
grep -q 'Erlang C' "$T_TMP/out" || fail "M/M/3 output lacks Erlang C"
# GI/M/c: the exact value (Takacs) printed beside the simulation.
expect_exit 0 $Q --arrival det --servers 3 --rho 0.8 $N
grep -q 'exact D/M/c: W_q = 0\.' "$T_TMP/out" || fail "D/M/3 lacks its exact wait: $(cat "$T_TMP/out")"
expect_exit 0 $Q --arrival det --servers 3 --rho 0.8 $N --json
python3 - "$T_TMP/out" <<'PY' || fail "D/M/3 JSON lacks the exact GI/M/c values"
import json, sys
d = json.load(open(sys.argv[1]))["formulas"]
assert d["exact"]["name"] == "D/M/c", d
assert 0 < d["exact_p_wait"] < 1 and 0 < d["sigma"] < 1, d
PY
expect_exit 0 $Q --rho 0.5 --service-mean 20us --arrival erlang:4 --service gamma:0.5 $N
grep -q 'µs' "$T_TMP/out" || fail "--service-mean does not show time units"
grep -q ' τ' "$T_TMP/out" && fail "--service-mean output still in tau"

# JSON for a point, and reproducibility by seed.
expect_exit 0 $Q --rho 0.9 --cs 0.5 $N --json --seed 7
cp "$T_TMP/out" "$T_TMP/a.json"
json_has "$T_TMP/a.json" mode config.servers wait_mean wait_mean_ci95_half \
	sojourn_p99 sojourn_p99_ci95_half little.rel_diff wait.p999 \
	sojourn.max formulas.approx.name formulas.exact.name utilization
expect_exit 0 $Q --rho 0.9 --cs 0.5 $N --json --seed 7
cmp -s "$T_TMP/out" "$T_TMP/a.json" || fail "same seed gave different output"
expect_exit 0 $Q --rho 0.9 --cs 0.5 $N --json --seed 8
cmp -s "$T_TMP/out" "$T_TMP/a.json" && fail "different seeds gave the same output"
python3 - "$T_TMP/a.json" <<'PY' || fail "point JSON values are wrong"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["formulas"]["exact"]["name"] == "M/G/1 (P-K)"  # Erlang-4 service
assert abs(d["little"]["rel_diff"]) < 0.01
assert 0.85 < d["utilization"] < 0.95
assert d["wait"]["count"] == 20000 and d["wait"]["over_range"] == 0
PY

# A sweep with no exact formula shows '-' in that column, never 'nan'.
expect_exit 0 $Q --sweep 0.5:0.7:0.1 --ca 0.5 --cs 2 $N
grep -qi 'nan' "$T_TMP/out" && fail "sweep table prints nan: $(cat "$T_TMP/out")"

# Sweep: rho >= 1 is reported unstable, not simulated; knee; SVG.
expect_exit 0 $Q --sweep 0.3:1.05:0.05 $N --svg "$T_TMP/k.svg"
grep -q 'unstable' "$T_TMP/out" || fail "sweep does not report unstable points"
grep -q 'knee' "$T_TMP/out" || fail "sweep does not report the knee"
python3 - "$T_TMP/k.svg" <<'PY' || fail "SVG is not well-formed or lacks elements"
import sys, xml.etree.ElementTree as ET
ns = {"s": "http://www.w3.org/2000/svg"}
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "{http://www.w3.org/2000/svg}svg", root.tag
texts = [t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text")]
assert any("knee" in t for t in texts), "no knee label"
assert any("utilization" in t for t in texts), "no x label"
assert any("mean service time" in t for t in texts), "no y label"
assert any("Kingman" in t for t in texts), "no Kingman legend"
assert any("p99" in t for t in texts), "no p99 legend"
assert sum(1 for t in root.iter() if t.get("class") == "tick") >= 8, "too few ticks"
assert len(root.findall(".//s:polyline", ns)) >= 2, "no curves"
assert len(root.findall(".//s:circle", ns)) >= 14, "no simulated points"
assert len([p for p in root.findall(".//s:path", ns) if p.get("class") == "errorbar"]) >= 14, "no CI bars"
assert any(l.get("class") == "marker" for l in root.findall(".//s:line", ns)), "no knee marker"
PY
expect_exit 0 $Q --sweep 0.5:1.2:0.1 $N --json
python3 - "$T_TMP/out" <<'PY' || fail "sweep JSON is wrong"
import json, sys
d = json.load(open(sys.argv[1]))
pts = d["points"]
assert len(pts) == 8, len(pts)
assert [p["stable"] for p in pts] == [True] * 5 + [False] * 3
assert all("wait_mean" not in p for p in pts if not p["stable"])
w = [p["wait_mean"] for p in pts if p["stable"]]
assert w == sorted(w), "common random numbers: waits must rise with rho"
assert d["complete"] and d["knee"]["slope"] == 10
PY

# Target p99: M/M/1 has p99 = ln(100)/(1-rho), 20 tau at rho 0.770. With
# 100k customers the answer's spread over seeds is sd ~0.015 (measured on
# 10 seeds), so 0.06 is 4 sd: this checks the plumbing; test_qsim checks
# the accuracy with more customers. The bisection's invariant is exact:
# the same seed at the answer meets the target.
expect_exit 0 $Q --target-p99 20 --customers 100000 --json
python3 - "$T_TMP/out" <<'PY' || fail "target-p99 JSON is wrong"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "found"
assert abs(d["rho"] - 0.770) < 0.06, d["rho"]
assert d["at_rho"]["sojourn_p99"] < 20, d["at_rho"]["sojourn_p99"]
assert d["runs"] == 12 and d["precision"] == 0.001
PY
expect_exit 0 $Q --target-p99 2 $N
grep -q 'no utilization' "$T_TMP/out" || fail "unreachable target not reported"
expect_exit 0 $Q --target-p99 100us --service-mean 10us $N
grep -q 'highest utilization' "$T_TMP/out" || fail "target with units failed"

# Usage errors: one line on stderr, exit 2.
for args in "--rho 1" "--rho 1.5" "--rho 0" "--rho abc" "--ca -1" \
	"--cs -0.5" "--servers 0" "--arrival foo" "--service gamma:0" \
	"--service erlang:2.5" "--sweep 0.1:0.9" "--sweep a:b:c" \
	"--sweep 0.9:0.1:0.1" "--sweep 0.1:0.9:0" "--sweep 0.1:0.9:-1" \
	"--sweep 0:0.9:0.1" "--sweep 0.1:0.9:0.1x" "--svg x.svg" \
	"--ca 1 --arrival exp" "--cs 0 --service det" "--target-p99 2ms" \
	"--customers 10" "--batches 1" "--sweep 0.1:0.9:0.1 --rho 0.5" \
	"--sweep 0.1:0.9:0.1 --target-p99 5" "--sweep 0.0001:10:0.0001" \
	"--knee-slope 0" "--service-mean 0ns" "stray" "--knee-slope 5" \
	"--target-p99 nan" "--target-p99 abc"; do
	expect_exit 2 $Q $args
	expect_one_line_error
done

# 'nan' is a bad number, not a duration with a unit
expect_exit 2 $Q --target-p99 nan
grep -q 'needs a number' "$T_TMP/err" || fail "--target-p99 nan: $(cat "$T_TMP/err")"

# --service-from: a missing file is bad input.
expect_exit 2 $Q --service-from "$T_TMP/none.hlog" $N
expect_one_line_error

# --service-from with a real .hlog (V2, compressed, base64; written here so
# the test depends on no other command): tag "work" holds service times
# uniform on 1000..1999 ns (mean 1499.5 ns, cv 0.1925), tag "other" holds
# 5000 ns. The work tag must give tau ~ 1.5 us and cv ~ 0.19.
python3 - "$T_TMP/svc.hlog" <<'PY'
import base64, struct, sys, zlib
def leb(z):
    out = bytearray()
    while True:
        b = z & 0x7f; z >>= 7
        out.append(b | (0x80 if z else 0))
        if not z: return bytes(out)
def zz(n): return ((n << 1) ^ (n >> 63)) & (2**64 - 1)
def hist(values):
    # lowest 1, 3 digits: indexes below 2048 are the values themselves.
    top = max(values); counts = [0] * (top + 1)
    for v in values: counts[v] += 1
    pay = bytearray(); i = 0
    while i <= top:
        if counts[i]: pay += leb(zz(counts[i])); i += 1; continue
        j = i
        while j <= top and not counts[j]: j += 1
        pay += leb(zz(-(j - i))) if j - i > 1 else leb(0); i = j
    raw = struct.pack(">iiiiqqd", 0x1c849313, len(pay), 0, 3, 1, 3600000000000, 1.0) + bytes(pay)
    c = zlib.compress(raw)
    return base64.b64encode(struct.pack(">ii", 0x1c849314, len(c)) + c).decode()
with open(sys.argv[1], "w") as f:
    f.write("#[Histogram log format version 1.3]\n#[StartTime: 1700000000.000 (seconds since epoch)]\n")
    f.write('"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"\n')
    f.write("Tag=work,0.000,1.000,0.002,%s\n" % hist(list(range(1000, 2000))))
    f.write("Tag=other,0.000,1.000,0.005,%s\n" % hist([1900] * 10))
PY
expect_exit 0 $Q --service-from "$T_TMP/svc.hlog:work" --rho 0.5 $N --json
python3 - "$T_TMP/out" <<'PY' || fail "--service-from: wrong tau or cv"
import json, sys
d = json.load(open(sys.argv[1]))
assert abs(d["config"]["tau_ns"] - 1500) < 5, d["config"]["tau_ns"]
assert abs(d["config"]["service"]["cv"] - 0.1925) < 0.005, d["config"]["service"]
assert d["config"]["service"]["dist"] == "empirical"
PY
expect_exit 0 $Q --service-from "$T_TMP/svc.hlog" --target-p99 5us $N
grep -q 'highest utilization' "$T_TMP/out" || fail "--service-from with --target-p99 failed"
expect_exit 2 $Q --service-from "$T_TMP/svc.hlog:nosuchtag" $N
expect_one_line_error
expect_exit 2 $Q --service-from "$T_TMP/svc.hlog:work" --service exp $N
expect_one_line_error
done_

# Description: latlab's own threads profiled. pipeline --profile DIR leaves
# on- and off-CPU folded stacks and flame graphs with one root frame per
# pipeline thread; --freq above 1 kHz warns with a cost measured on this
# machine; --overhead runs every rate and the unprofiled one takes no
# sample.
. "$(dirname "$0")/t_lib.sh"

# --- latlab pipeline --profile: one root frame per thread ------------------
expect_exit 0 "$LATLAB" pipeline --events 60000 --profile "$T_TMP/pp"
grep -q "^profile: $T_TMP/pp/oncpu.svg" "$T_TMP/err" || fail "no profile line: $(cat "$T_TMP/err")"
python3 - "$T_TMP/pp" <<'PY' || fail "pipeline --profile files"
import os, sys, xml.etree.ElementTree as ET
d = sys.argv[1]
def roots(name):
    r = {}
    for line in open(os.path.join(d, name)):
        s, n = line.rsplit(" ", 1)
        r[s.split(";")[0]] = r.get(s.split(";")[0], 0) + int(n)
    return r
errs = []
known = {"producer", "stage1", "consumer", "aggregator", "guard", "latlab",
         "prof-reader"}
on = roots("oncpu.folded")
if not on or set(on) - known:
    errs.append("on-CPU roots %s" % sorted(on))
# (which threads got a 99 Hz sample in 0.3 s depends on the machine's
# load: any pipeline thread will do)
ET.parse(os.path.join(d, "oncpu.svg"))
if os.path.exists(os.path.join(d, "offcpu.folded")):
    off = roots("offcpu.folded")
    # every pipeline thread leaves its CPU at least when it exits
    for t in ("producer", "stage1", "consumer", "aggregator"):
        if t not in off:
            errs.append("%s missing off CPU: %s" % (t, sorted(off)))
    ET.parse(os.path.join(d, "offcpu.svg"))
if errs:
    print("\n".join(errs), file=sys.stderr)
    sys.exit(1)
PY
expect_exit 2 "$LATLAB" pipeline --events 1000 --profile /proc/version
expect_one_line_error

# --- above 1 kHz: a warning with the cost measured here -------------------
expect_exit 0 "$LATLAB" profile --freq 2000 --folded "$T_TMP/t.folded" -- /bin/true
grep -q "warning: --freq 2000 is above 1000 Hz: measured on this machine now, each sample costs the sampled thread [0-9.]* us" \
	"$T_TMP/err" || fail "no measured-cost warning: $(cat "$T_TMP/err")"

# --- --overhead: every rate runs, the unprofiled one takes no sample -------
expect_exit 0 "$LATLAB" profile --overhead --events 2000 --rounds 1 --json
python3 - "$T_TMP/out" <<'PY' || fail "--overhead json: $(head -c 400 "$T_TMP/out")"
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["rows"]
assert [r["freq_hz"] for r in rows] == [0, 99, 999, 9999], rows
for r in rows:
    assert r["runs"] == 1 or r["note"], r
    assert r["e2e_p50_ns"] > 0 or not r["runs"], r
assert rows[0]["samples"] == 0 and rows[0]["p99_ratio"] == 1, rows[0]
PY

done_

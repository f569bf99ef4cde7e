# Description: 'latlab bench --quick --json' reports every figure with
# median/min/max, the dead-code pair and the placement; a one-CPU run says
# the cross-thread figures were skipped instead of hanging or inventing
# them; bad flags exit 2 with one line.
. "$(dirname "$0")/t_lib.sh"

expect_exit 0 "$LATLAB" bench --quick --json
cp "$T_TMP/out" "$T_TMP/bench.json"
json_has "$T_TMP/bench.json" placement.pinned placement.desc reps loadavg \
	dce.dce_unused_ns.median dce.dce_kept_ns.median dce.verdict \
	dce.loop_deleted same_thread.same_thread_8B_ns.median \
	same_thread.same_thread_64B_ns.min same_thread.same_thread_64B_ns.max \
	cross_thread.floor_ns cross_thread.handoff_ns \
	cross_thread.throughput cross_thread.throughput_batch
python3 - "$T_TMP/bench.json" <<'PY' || fail "bench JSON figures are inconsistent"
import json, sys
d = json.load(open(sys.argv[1]))
figs = [d["dce"]["dce_kept_ns"]] + list(d["same_thread"].values()) + \
       list(d["cross_thread"].values())
for f in figs:
    if f["measured"] and f["plausible"]:
        assert f["min"] <= f["median"] <= f["max"], f
        assert f["reps"] == d["reps"], f
# the kept loop does real work; the barrier must not time zero
assert d["dce"]["dce_kept_ns"]["median"] > 0
if d["placement"]["pinned"]:
    assert d["cross_thread"]["floor_ns"]["measured"]
    assert d["cross_thread"]["throughput"]["median"] > 0
    # the latency ring is judged against both floors of the same rounds
    lr = d["latency_ring"]
    assert lr["floor_two_lines_ns"]["measured"], lr
    assert lr["handoff_8B_over_floor_two_lines"] > 0, lr
    # and the 64 B hand-off against the 64-byte floor of the same rounds
    f64 = lr["floor_64B_ns"]
    assert f64["measured"], f64
    # a median below the one-line floor's best round is withheld as
    # implausible; the ratio is printed from the median either way
    assert not f64["plausible"] or f64["median"] > 0, f64
    assert lr["handoff_64B_over_floor_64B"] > 0, lr
    # the verdict names the honest floors and is computed from them
    assert lr["honest_floor_8B"] == "floor_two_lines_ns", lr
    assert lr["honest_floor_64B"] == "floor_64B_ns", lr
    r8 = lr["handoff_8B_over_honest_floor"]
    r64 = lr["handoff_64B_over_honest_floor"]
    assert abs(r8 - lr["handoff_8B_over_floor_two_lines"]) < 1e-9, lr
    assert abs(r64 - lr["handoff_64B_over_floor_64B"]) < 1e-9, lr
    used = ["floor_two_lines_ns", "floor_64B_ns", "handoff_8B_ns",
            "handoff_64B_ns"]
    sane = all(lr[k]["plausible"] for k in used) and \
        d["cross_thread"]["floor_ns"]["plausible"]
    assert lr["within_1_5x_of_honest_floor"] == \
        (sane and r8 <= 1.5 and r64 <= 1.5), lr
    assert lr["floor_two_lines_over_floor"] > 0, lr
PY

# Human output names the placement and prints units.
expect_exit 0 "$LATLAB" bench --quick --reps 1
grep -q '^placement: ' "$T_TMP/out" || fail "no placement line"
grep -q 'ns' "$T_TMP/out" || fail "no units in the human output"
grep -q 'its honest floor' "$T_TMP/out" || fail "no honest-floor verdict"

# One usable CPU: cross-thread figures are skipped, not spun forever.
if command -v taskset >/dev/null; then
	expect_exit 0 taskset -c 0 "$LATLAB" bench --quick --reps 1 --json
	python3 - "$T_TMP/out" <<'PY' || fail "one-CPU run did not skip cross-thread figures"
import json, sys
d = json.load(open(sys.argv[1]))
assert not d["placement"]["pinned"]
assert not d["cross_thread"]["handoff_ns"]["measured"]
assert not d["latency_ring"]["floor_64B_ns"]["measured"]
PY
fi

for bad in "--reps 0" "--reps 65" "--reps x" "--iters 5" "--frobnicate" \
	   "extra"; do
	# shellcheck disable=SC2086
	expect_exit 2 "$LATLAB" bench $bad
	expect_one_line_error
done
done_

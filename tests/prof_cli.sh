# Description: latlab profile end to end. A command with a known split
# (tests/test_prof_threads --hotsplit: 3/4 of its work in hot_a, 1/4 in
# hot_b) profiled from its exec: the folded stacks attribute 75 +- 10 % and
# 25 +- 10 % with the whole stack down to the thread's start function, and
# the SVG is well-formed XML holding both names with widths in that ratio.
# --diff of two folded files with a known change colours exactly the
# changed frames. Bad input (pid, permission, --freq, command): one line,
# exit 2. (pipeline --profile, --overhead, the --freq warning:
# prof_pipeline_cli.sh)
. "$(dirname "$0")/t_lib.sh"

HOT=${LATLAB_BUILD:?}/test_prof_threads

# --- bad input: one line on stderr, exit 2 ---------------------------------
for args in "-p 0" "-p abc" "-p 4000000" "--freq 0 -p 1" \
	    "--freq 1000000 -p 1" "-- /nonexistent/prog" "-- no-such-command-xyz" \
	    "" "--diff only-one.folded" "--palette warm --render x" \
	    "--overhead --rounds 0" "--events 5000 -p 1" "--overhead -p 1"; do
	# shellcheck disable=SC2086
	expect_exit 2 "$LATLAB" profile $args
	expect_one_line_error
done
# a pid that is not running: take one that just exited
sh -c 'exit 0' & gone=$!
wait "$gone"
expect_exit 2 "$LATLAB" profile -p "$gone" --duration 1s
expect_one_line_error
grep -q "no process $gone" "$T_TMP/err" || fail "no-process message: $(cat "$T_TMP/err")"
# no permission: another user's process, seen from an unprivileged user
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	sleep 20 & victim=$!
	expect_exit 2 setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$LATLAB" profile -p "$victim" --duration 1s
	expect_one_line_error
	grep -q "not allowed to profile pid $victim" "$T_TMP/err" ||
		fail "permission message: $(cat "$T_TMP/err")"
	kill "$victim"
	# unprivileged, a profile of one's own command still works: user
	# frames only, and both what is missing and why are said
	if [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 2 ]; then
		expect_exit 0 setpriv --reuid=65534 --regid=65534 --clear-groups \
			"$LATLAB" profile --offcpu --json -- /bin/true
		python3 - "$T_TMP/out" <<'PY' || fail "unprivileged profile: $(cat "$T_TMP/out" "$T_TMP/err")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["kernel_frames"] is False, d
assert "perf_event_paranoid=" in d["kernel_note"], d["kernel_note"]
assert d["offcpu"]["asked"] and not d["offcpu"]["traced"], d["offcpu"]
assert "root or CAP_BPF" in d["offcpu"]["note"] or "BPF" in d["offcpu"]["note"], d["offcpu"]
PY
		grep -q "off-CPU unavailable" "$T_TMP/err" ||
			fail "no off-CPU reason on stderr: $(cat "$T_TMP/err")"
	fi
elif [ "$(id -u)" != 0 ]; then
	expect_exit 2 "$LATLAB" profile -p 1 --duration 1s
	expect_one_line_error
fi

# --- --diff: exactly the changed frames are coloured -----------------------
cat >"$T_TMP/before.folded" <<'F'
main;parse;read_line 40
main;parse;tokenize 20
main;compute;kernel_a 30
main;compute;kernel_b 10
F
# twice the samples (the shares are what count), kernel_b grew at
# kernel_a's expense; parse and its children keep their share exactly
cat >"$T_TMP/after.folded" <<'F'
main;parse;read_line 80
main;parse;tokenize 40
main;compute;kernel_a 40
main;compute;kernel_b 40
F
expect_exit 0 "$LATLAB" profile --diff "$T_TMP/before.folded" \
	"$T_TMP/after.folded" --svg "$T_TMP/diff.svg" --json
python3 - "$T_TMP/diff.svg" <<'PY' || fail "diff colours"
import sys, xml.etree.ElementTree as ET
ns = {"s": "http://www.w3.org/2000/svg"}
fills = {}
for g in ET.parse(sys.argv[1]).getroot().iter("{http://www.w3.org/2000/svg}g"):
    if g.get("class") != "f":
        continue
    rect = g.find("s:rect", ns)
    fills[g.get("data-n")] = rect.get("fill")
want_white = {"all", "main", "parse", "read_line", "tokenize", "compute"}
errs = []
for n in want_white:
    if fills.get(n) != "rgb(255,255,255)":
        errs.append("%s should be white, is %s" % (n, fills.get(n)))
def rgb(n):
    return tuple(int(v) for v in fills[n][4:-1].split(","))
r, g, b = rgb("kernel_b")
if not (r == 255 and g < 255 and b < 255):
    errs.append("kernel_b grew, should be red: %s" % fills["kernel_b"])
r, g, b = rgb("kernel_a")
if not (b == 255 and r < 255 and g < 255):
    errs.append("kernel_a shrank, should be blue: %s" % fills["kernel_a"])
if errs:
    print("\n".join(errs), file=sys.stderr)
    sys.exit(1)
PY
# the same, as data: exactly the two changed frames, largest change first
python3 - "$T_TMP/out" <<'PY' || fail "diff json: $(cat "$T_TMP/out")"
import json, sys
d = json.load(open(sys.argv[1]))
ch = [(c["frames"], round(c["before_share"], 6), round(c["after_share"], 6)) for c in d["changed"]]
assert d["before_total"] == 100 and d["after_total"] == 200, d
assert sorted(ch) == [("main;compute;kernel_a", 0.3, 0.2),
                      ("main;compute;kernel_b", 0.1, 0.2)], ch
PY

# --- a command with a known split, profiled from its exec ------------------
if [ ! -x "$HOT" ]; then
	fail "missing $HOT"
	done_
fi
"$LATLAB" profile --freq 499 --folded "$T_TMP/hot.folded" \
	--svg "$T_TMP/hot.svg" --json -- "$HOT" --hotsplit 0.5 >"$T_TMP/hot.json" 2>"$T_TMP/err"
rc=$?
if [ $rc -eq 1 ] && grep -q "unavailable" "$T_TMP/err"; then
	skip "perf sampling unavailable: $(cat "$T_TMP/err")"
fi
[ $rc -eq 0 ] || fail "profile of the hot split exited $rc: $(cat "$T_TMP/err")"
json_has "$T_TMP/hot.json" samples lost kernel_frames kernel_note hottest
python3 - "$T_TMP/hot.folded" "$T_TMP/hot.svg" "$T_TMP/hot.json" <<'PY'

import json, sys, xml.etree.ElementTree as ET
folded, svg, js = sys.argv[1:4]
meta = json.load(open(js))
stacks = []
for line in open(folded):
    s, n = line.rsplit(" ", 1)
    stacks.append((s.split(";"), int(n)))
errs = []
total = sum(n for _, n in stacks)
if total != meta["samples"]:
    errs.append("folded total %d != samples %d" % (total, meta["samples"]))
hot = [(f, n) for f, n in stacks if f[0] == "hotsplit"]
all_hot = sum(n for _, n in hot)
if meta["symbols_note"]:
    print("SKIP: " + meta["symbols_note"])
    sys.exit(77)
a = sum(n for f, n in hot if "hot_a" in f)
b = sum(n for f, n in hot if "hot_b" in f)
print("hotsplit thread: %d samples, hot_a %.1f %%, hot_b %.1f %%" %
      (all_hot, 100.0 * a / max(all_hot, 1), 100.0 * b / max(all_hot, 1)))
if all_hot < 100:
    errs.append("only %d samples of the hot thread" % all_hot)
elif abs(100.0 * a / all_hot - 75) > 10 or abs(100.0 * b / all_hot - 25) > 10:
    errs.append("split %d/%d of %d is not 75/25 +- 10" % (a, b, all_hot))
for f, n in hot:
    for leaf in ("hot_a", "hot_b"):
        if leaf in f and f[f.index(leaf) - 1] != "hot_thread_main":
            errs.append("%s without its caller hot_thread_main: %s" % (leaf, ";".join(f)))
# the SVG: well-formed, both names, widths in the folded ratio
root = ET.parse(svg).getroot()
w = {}
for g in root.iter("{http://www.w3.org/2000/svg}g"):
    if g.get("class") == "f" and g.get("data-n") in ("hot_a", "hot_b"):
        r = g.find("{http://www.w3.org/2000/svg}rect")
        w[g.get("data-n")] = w.get(g.get("data-n"), 0) + float(r.get("width"))
if set(w) != {"hot_a", "hot_b"}:
    errs.append("SVG frames: %s" % sorted(w))
elif abs(w["hot_a"] / w["hot_b"] - a / b) > 0.02 * a / b + 0.05:
    errs.append("SVG widths %.1f/%.1f, folded %d/%d" % (w["hot_a"], w["hot_b"], a, b))
if errs:
    print("\n".join(errs), file=sys.stderr)
    sys.exit(1)
PY
rc=$?
[ $rc -eq 77 ] && skip "no user symbols in this build"
[ $rc -eq 0 ] || fail "hot split checks"
done_

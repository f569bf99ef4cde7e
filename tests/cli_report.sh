# Description: latlab report on .hlog and .hgrm files: per-tag numbers
# equal to what the official HdrHistogram (Java) computed for the same
# intervals, --tag, --json, --hgrm output read back, and one-line exit-2
# errors for unreadable files.
. "$(dirname "$0")/t_lib.sh"
: "${LATLAB_SRC:?}"
data=$LATLAB_SRC/tests/data
hlog=$data/report-small.hlog  # intervals encoded by Java (see Interop.java)
hgrm=$data/report-ones.hgrm   # values 1, 2, 3 at 3 significant digits

# json_eq FILE EXPR VALUE: python expression on the document 'd' equals VALUE
json_eq() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); v=eval(sys.argv[2]); sys.exit(0 if str(v)==sys.argv[3] else "%s = %s, want %s" % (sys.argv[2], v, sys.argv[3]))' "$@" ||
		fail "json: $2 != $3"
}

expect_exit 0 "$LATLAB" report "$hlog"
grep -q '^e2e ' "$T_TMP/out" || fail "no e2e row"
grep -q '^(untagged) ' "$T_TMP/out" || fail "no untagged row"
grep -q '^(all) ' "$T_TMP/out" || fail "no total row"
grep -q ' ns ' "$T_TMP/out" || fail "values without units"

# Java (d0_small / d2_counts): count 200, min 4, p50 511, p90 1023,
# max 1023, mean 521.55; untagged: count 1126999418482752, p50 999,
# max 1002438655.
expect_exit 0 "$LATLAB" report --json "$hlog"
cp "$T_TMP/out" "$T_TMP/all.json"
json_has "$T_TMP/all.json" tags.0.tag tags.1.count total.count total.p99_ns total.mean_ns
json_eq "$T_TMP/all.json" '[t["count"] for t in d["tags"] if t["tag"]=="e2e"][0]' 200
json_eq "$T_TMP/all.json" '[(t["min_ns"],t["p50_ns"],t["p90_ns"],t["max_ns"],t["mean_ns"]) for t in d["tags"] if t["tag"]=="e2e"][0]' '(4, 511, 1023, 1023, 521.55)'
json_eq "$T_TMP/all.json" '[(t["count"],t["p50_ns"],t["max_ns"]) for t in d["tags"] if t["tag"]==""][0]' '(1126999418482752, 999, 1002438655)'
json_eq "$T_TMP/all.json" 'd["total"]["count"]' 1126999418482952
json_eq "$T_TMP/all.json" 'd["intervals"]' 3

# JSON keys without dots (usable as jq paths)
json_has "$T_TMP/all.json" total.p90_ns total.p999_ns total.p9999_ns total.stddev_ns
# a count wider than the column moves the column, not the rows
expect_exit 0 "$LATLAB" report "$hlog"
python3 - "$T_TMP/out" <<'PY' || fail "text columns do not line up: $(cat "$T_TMP/out")"
import sys
hdr, *rows = open(sys.argv[1]).read().splitlines()[1:]
right = hdr.index("count") + len("count")
for row in rows:
    label, count = row.split()[:2]
    if row.index(count, len(label)) + len(count) != right:
        sys.exit(1)
PY
expect_exit 0 "$LATLAB" report --tag e2e --json "$hlog"
json_eq "$T_TMP/out" 'len(d["tags"]), d["total"]["count"]' '(1, 200)'
expect_exit 2 "$LATLAB" report --tag nope "$hlog"
expect_one_line_error

# --unit-ns-per-value scales what is shown
expect_exit 0 "$LATLAB" report --tag e2e --json --unit-ns-per-value 1000 "$hlog"
json_eq "$T_TMP/out" 'd["total"]["p50_ns"]' 511000

# --hgrm writes the merged distribution; reading it back keeps the ticks
expect_exit 0 "$LATLAB" report --tag e2e "$hlog" --hgrm "$T_TMP/e2e.hgrm"
grep -q '^#\[Buckets = ' "$T_TMP/e2e.hgrm" || fail "--hgrm wrote no footer"
expect_exit 0 "$LATLAB" report --json "$T_TMP/e2e.hgrm"
json_eq "$T_TMP/out" '(d["format"], d["total"]["count"], d["total"]["p50_ns"], d["total"]["max_ns"])' "('hgrm', 200, 511, 1023)"
# in ms (2 decimals at 2 significant digits): the file says so and the
# reader scales back to ns
expect_exit 0 "$LATLAB" report --tag '' "$hlog" --hgrm "$T_TMP/ms.hgrm" --hgrm-ratio 1e6
grep -q '^#\[Value unit: 1000000 ns per value\]' "$T_TMP/ms.hgrm" || fail "no unit comment"
grep -q '^#\[Max     =      1002.44,' "$T_TMP/ms.hgrm" || fail "max not in ms"
expect_exit 0 "$LATLAB" report --json "$T_TMP/ms.hgrm"
json_eq "$T_TMP/out" '(d["total"]["count"], d["total"]["max_ns"])' '(1126999418482752, 1002440000)'

# .hgrm input: rebuilt from the rows, mean from the footer
expect_exit 0 "$LATLAB" report --json "$hgrm"
json_eq "$T_TMP/out" '(d["total"]["count"], d["total"]["min_ns"], d["total"]["p50_ns"], d["total"]["max_ns"], d["total"]["mean_ns"])' '(3, 1, 2, 3, 2)'
grep -q 'placed at the upper tick' "$T_TMP/err" || fail "no note on what .hgrm loses"
expect_exit 2 "$LATLAB" report --tag x "$hgrm"
expect_one_line_error

# unreadable input: one line, exit 2
expect_exit 2 "$LATLAB" report "$T_TMP/missing.hlog"
expect_one_line_error
printf 'hello\nworld\n' >"$T_TMP/junk"
expect_exit 2 "$LATLAB" report "$T_TMP/junk"
expect_one_line_error
head -c 300 "$hlog" >"$T_TMP/cut.hlog"
expect_exit 2 "$LATLAB" report "$T_TMP/cut.hlog"
expect_one_line_error
grep -q 'line 6: truncated' "$T_TMP/err" || fail "cut file not called truncated: $(cat "$T_TMP/err")"
expect_exit 2 "$LATLAB" report "$T_TMP/junk"
grep -q 'malformed' "$T_TMP/err" || fail "text file called truncated: $(cat "$T_TMP/err")"
mkdir "$T_TMP/dir.hlog"
expect_exit 2 "$LATLAB" report "$T_TMP/dir.hlog"
expect_one_line_error
grep -q 'directory' "$T_TMP/err" || fail "directory not named: $(cat "$T_TMP/err")"
{ cat "$hlog"; echo "5.000,1.000,0.001,HISTFAAAAB42pNpmSzMwMDAxQABzFCaEUoz2X"; } >"$T_TMP/bad.hlog"
expect_exit 2 "$LATLAB" report "$T_TMP/bad.hlog"
expect_one_line_error
grep -q 'line 9' "$T_TMP/err" || fail "error does not name the line: $(cat "$T_TMP/err")"
sed '/^#\[Mean/,$d; s/ 2 / 9 /' "$hgrm" >"$T_TMP/bad.hgrm"
expect_exit 2 "$LATLAB" report "$T_TMP/bad.hgrm"
expect_one_line_error
: >"$T_TMP/empty"
expect_exit 2 "$LATLAB" report "$T_TMP/empty"
expect_one_line_error

# Regression: the total took the layout of the first tag added, so a
# coarse first tag (1 significant digit) blurred a fine one (3 digits):
# the total's p99 came out above every value in the file.
# report-mixed.hlog: 'coarse' 1001..2000 at 1 digit, then 'fine'
# 100007..107000 at 3 digits, written by lat_hlog_writer.
expect_exit 0 "$LATLAB" report --json "$data/report-mixed.hlog"
json_eq "$T_TMP/out" '[t["max_ns"] for t in d["tags"] if t["tag"]=="fine"][0] == d["total"]["max_ns"]' True
json_eq "$T_TMP/out" 'd["total"]["p99_ns"] <= d["total"]["max_ns"] < 107100' True
grep -q 'merged at 3 significant digits' "$T_TMP/err" || fail "total not at the finest precision: $(cat "$T_TMP/err")"

# usage errors
expect_exit 2 "$LATLAB" report
expect_one_line_error
expect_exit 2 "$LATLAB" report "$hlog" "$hlog"
expect_one_line_error
expect_exit 2 "$LATLAB" report --ticks 0 "$hlog"
expect_one_line_error
# flags for --hgrm output are refused without it, not ignored
expect_exit 2 "$LATLAB" report --ticks 5 "$hlog"
expect_one_line_error
expect_exit 2 "$LATLAB" report --hgrm-ratio 1e6 "$hlog"
expect_one_line_error
done_

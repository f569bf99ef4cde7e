# Description: 'report' (--compare too) and 'queue --service-from' read
# any file a user can name (issue 16): a FIFO, a pipe from process
# substitution <(cat f), each read once through one descriptor; /dev/zero and a NUL-filled file
# are refused with one line within a second (a timeout of 10 s is the
# hang bound: a reader that spins never returns).
. "$(dirname "$0")/t_lib.sh"
: "${LATLAB_SRC:?}"
IN=$LATLAB_SRC/tests/data/report-small.hlog
HGRM=$LATLAB_SRC/tests/data/report-ones.hgrm

"$LATLAB" report --json "$IN" >"$T_TMP/want.json" 2>/dev/null ||
	fail "report of a regular file failed"

# a FIFO: the writer blocks until the reader opens it, once
for f in "$IN" "$HGRM"; do
	rm -f "$T_TMP/fifo"
	mkfifo "$T_TMP/fifo"
	cat "$f" >"$T_TMP/fifo" &
	expect_exit 0 timeout 10 "$LATLAB" report --json "$T_TMP/fifo"
	wait
	"$LATLAB" report --json "$f" >"$T_TMP/direct.json" 2>/dev/null
	json_true "$T_TMP/out" 'd["total"]["count"] > 0' ||
		fail "report of a FIFO of $f: no counts"
	python3 - "$T_TMP/out" "$T_TMP/direct.json" <<'PY' || fail "report of a FIFO of $f differs from the file's"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
a.pop("file"); b.pop("file")
sys.exit(0 if a == b else 1)
PY
done

# process substitution: a pipe, named /dev/fd/N
expect_exit 0 timeout 10 "$LATLAB" report --json <(cat "$IN")
json_true "$T_TMP/out" 'd["intervals"] == 3' || fail "report <(cat f): not its 3 intervals"
expect_exit 0 timeout 10 "$LATLAB" report <(cat "$HGRM")

# report --compare: each input read once (merge and spreads in one pass),
# the same verdicts as from the regular file
"$LATLAB" report --compare --json "$IN" "$IN" >"$T_TMP/cmp_want.json" 2>/dev/null ||
	fail "report --compare of a regular file failed"
same_compare() {
	python3 - "$T_TMP/out" "$T_TMP/cmp_want.json" <<'PY' || fail "report --compare $1 differs from the file's"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert a["tags"] and a["tags"] == b["tags"], (a["tags"], b["tags"])
PY
}
rm -f "$T_TMP/fifo"
mkfifo "$T_TMP/fifo"
cat "$IN" >"$T_TMP/fifo" &
expect_exit 0 timeout 10 "$LATLAB" report --compare --json "$IN" "$T_TMP/fifo"
wait
same_compare "of a FIFO"
expect_exit 0 timeout 10 "$LATLAB" report --compare --json <(cat "$IN") <(cat "$IN")
same_compare "of two pipes"

# queue --service-from, the same inputs
expect_exit 0 timeout 20 "$LATLAB" queue --service-from <(cat "$IN") \
	--customers 20000 --json
json_has "$T_TMP/out" mode
rm -f "$T_TMP/fifo"
mkfifo "$T_TMP/fifo"
cat "$IN" >"$T_TMP/fifo" &
expect_exit 0 timeout 20 "$LATLAB" queue --service-from "$T_TMP/fifo" \
	--customers 20000 --json
wait

# /dev/zero and NUL bytes: one line, exit 2, at once
head -c 100000 /dev/zero >"$T_TMP/zeros"
for z in /dev/zero "$T_TMP/zeros"; do
	t0=$(date +%s%N)
	expect_exit 2 timeout 10 "$LATLAB" report "$z"
	ms=$((($(date +%s%N) - t0) / 1000000))
	expect_one_line_error
	grep -q "binary data" "$T_TMP/err" || fail "report $z: $(cat "$T_TMP/err")"
	echo "report $z refused in $ms ms"
	t0=$(date +%s%N)
	expect_exit 2 timeout 10 "$LATLAB" queue --service-from "$z"
	ms=$((($(date +%s%N) - t0) / 1000000))
	expect_one_line_error
	grep -q "binary data" "$T_TMP/err" || fail "queue --service-from $z: $(cat "$T_TMP/err")"
	echo "queue --service-from $z refused in $ms ms"
done
# NULs after good lines: still refused, not read forever
{ cat "$IN"; head -c 200000 /dev/zero; } >"$T_TMP/tailzeros"
expect_exit 2 timeout 10 "$LATLAB" report "$T_TMP/tailzeros"
grep -q "binary data\|NUL" "$T_TMP/err" || fail "NULs after good lines: $(cat "$T_TMP/err")"
expect_exit 2 timeout 10 "$LATLAB" report <(cat "$IN"; head -c 10000000 /dev/zero)
done_

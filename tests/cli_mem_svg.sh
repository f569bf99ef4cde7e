# Description: the chase curve from 'latlab mem chase --svg' as a reader
# sees it: well-formed, its axis and cache labels present, and in headless
# Chromium's screenshot both curves drawn (the random-order and the
# sequential series' colours), not just a frame; stopped by Ctrl-C, the
# chart of the sizes done is marked partial and still drawn. Skips
# without chromium.
. "$(dirname "$0")/t_lib.sh"

chromium=$(sed -n 's/^LATLAB_CHROMIUM:[A-Z]*=//p' "$LATLAB_BUILD/CMakeCache.txt")
case $chromium in
""|*NOTFOUND) skip "chromium not found (apt-get install -y chromium): the chase SVG is not checked" ;;
esac
expect_exit 0 "$LATLAB" mem chase --quick --max-size 256K --svg "$T_TMP/c.svg"
python3 "$LATLAB_SRC/tests/tools/svg_check.py" "$chromium" "$T_TMP/c.svg" \
	"$T_TMP/c.png" --label "ns per load" --label "random order, base pages" \
	--label "sequential (prefetched)" --color "#1f77b4" \
	--color "#2ca02c" >"$T_TMP/check" 2>&1 || fail "$(cat "$T_TMP/check")"

# Ctrl-C part-way: the sizes done, drawn, and said to be partial.
"$LATLAB" mem chase --samples 3000 --svg "$T_TMP/p.svg" >/dev/null 2>&1 &
pid=$!
wait_sigint_ready "$pid"
sleep 1 # a few sizes done (two are needed for a chart), far from all
kill -INT "$pid"
wait "$pid"
rc=$?
[ "$rc" -eq 130 ] || fail "interrupted 'mem chase --svg' exited $rc, expected 130"
why=$(sed -n 's/.*class="partial">\(partial: the sweep was stopped after [0-9]* of 61 sizes\)<.*/\1/p' "$T_TMP/p.svg")
[ -n "$why" ] || fail "the interrupted chase SVG is not marked partial"
# how many sizes a loaded machine finished in 1 s varies: the mark and
# the legend are checked in the picture, not the curves' length
python3 "$LATLAB_SRC/tests/tools/svg_check.py" "$chromium" "$T_TMP/p.svg" \
	"$T_TMP/p.png" --label "$why" --label "random order, base pages" \
	>"$T_TMP/check" 2>&1 || fail "$(cat "$T_TMP/check")"
done_

# Description: the chase curve from 'latlab mem chase --svg' as a reader
# sees it: well-formed, its axis and cache labels present, and in headless
# Chromium's screenshot both curves drawn (the random-order and the
# sequential series' colours), not just a frame. Skips without chromium.
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
done_

# Description: lat_hist answers exactly what the official HdrHistogram Java
# library answers for the same recordings: percentiles (Java's rounding),
# min/max, mean/stddev bit for bit, every iterator's steps (the percentile
# iterator's ticks and final 100% step included), add() across layouts and
# corrected recording; d = 0..5, L = 1/1000/1024/7, values up to 2^62.
# Cost: 15 (rough seconds: ctest -j starts the costly tests first)
. "$(dirname "$0")/t_lib.sh"

jar=
for j in /usr/share/java/HdrHistogram.jar /usr/share/java/hdrhistogram.jar; do
	[ -r "$j" ] && { jar=$j; break; }
done
[ -n "$jar" ] || skip "official HdrHistogram jar missing (apt-get install -y libhdrhistogram-java)"
command -v java >/dev/null || skip "java missing (apt-get install -y default-jdk-headless)"
dumper=${LATLAB_BUILD:?}/test_hist
[ -x "$dumper" ] || fail "no $dumper"

java -cp "$jar" "$LATLAB_SRC/tests/interop_hist_java.java" \
	"$T_TMP/cases" "$T_TMP/java" 2>"$T_TMP/java.err" ||
	fail "java side failed: $(head -c 300 "$T_TMP/java.err")"
"$dumper" --dump <"$T_TMP/cases" >"$T_TMP/c" || fail "test_hist --dump failed"
[ "$(grep -c '^hist' "$T_TMP/cases")" -gt 30 ] || fail "too few cases generated"
[ "$(grep -c '^pi' "$T_TMP/java")" -gt 1000 ] || fail "too few percentile steps"
if ! cmp -s "$T_TMP/java" "$T_TMP/c"; then
	fail "lat_hist differs from Java:"
	diff "$T_TMP/java" "$T_TMP/c" | head -20 >&2
fi
done_

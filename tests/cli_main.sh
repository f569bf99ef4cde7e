# Description: the command table, --help, --version and usage errors.
. "$(dirname "$0")/t_lib.sh"

expect_exit 0 "$LATLAB" --help
grep -q '^commands:' "$T_TMP/out" || fail "--help lists no commands"
expect_exit 0 "$LATLAB" --version
grep -q '^latlab [0-9]' "$T_TMP/out" || fail "--version prints no version"
expect_exit 2 "$LATLAB" no-such-command
expect_one_line_error
expect_exit 2 "$LATLAB" help no-such-command
expect_one_line_error
expect_exit 2 "$LATLAB"

# Every listed command has help with an example, and rejects unknown flags.
for cmd in $("$LATLAB" --help | awk '/^commands:/{on=1;next} on && /^  [a-z]/{print $1}'); do
	expect_exit 0 "$LATLAB" "$cmd" --help
	grep -q "^EXAMPLES:$" "$T_TMP/out" || fail "'latlab $cmd --help' has no EXAMPLES"
	expect_exit 0 "$LATLAB" help "$cmd"
	expect_exit 2 "$LATLAB" "$cmd" --no-such-flag
	expect_one_line_error
done

# Numbers are plain decimals: no hex, no blanks, no inf/nan; a missing
# value is named as such; a unit-only duration refuses a bare number.
for bad in "0x10" " 2" "inf" "nan" "1e" "2,5"; do
	expect_exit 2 "$LATLAB" clock --drift-seconds "$bad"
	expect_one_line_error
	grep -q "needs a number" "$T_TMP/err" || fail "'$bad': $(cat "$T_TMP/err")"
done
expect_exit 2 "$LATLAB" clock --pairs " 5"
expect_one_line_error
expect_exit 2 "$LATLAB" clock --pairs
grep -q "'--pairs' needs a value" "$T_TMP/err" || fail "missing value: $(cat "$T_TMP/err")"
expect_exit 2 "$LATLAB" clock --no-such-flag
grep -q "unknown option '--no-such-flag'" "$T_TMP/err" || fail "unknown: $(cat "$T_TMP/err")"
expect_exit 2 "$LATLAB" queue --service-mean 1
grep -q "needs a unit" "$T_TMP/err" || fail "bare duration: $(cat "$T_TMP/err")"

# Results that cannot be written are a failure, not a silent exit 0.
if [ -w /dev/full ]; then
	"$LATLAB" queue --rho 0.5 --customers 1000 >/dev/full 2>"$T_TMP/err"
	rc=$?
	[ "$rc" -eq 1 ] || fail "writing to a full device exited $rc, expected 1"
	grep -q "writing the results failed" "$T_TMP/err" || fail "no write error: $(cat "$T_TMP/err")"
fi
done_

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
	grep -q 'EXAMPLES' "$T_TMP/out" || fail "'latlab $cmd --help' has no EXAMPLES"
	expect_exit 0 "$LATLAB" help "$cmd"
	expect_exit 2 "$LATLAB" "$cmd" --no-such-flag
	expect_one_line_error
done
done_

# Shell test helpers, sourced by tests/*.sh. LATLAB is the binary under
# test (set by CTest). A failed check prints what and where and fails the
# test at the end; skip() exits 77 with a visible reason.
: "${LATLAB:?LATLAB must point to the latlab binary}"
t_failures=0
T_TMP=$(mktemp -d)
trap 'rm -rf "$T_TMP"' EXIT

fail() { echo "FAIL: $*" >&2; t_failures=$((t_failures + 1)); }
skip() { echo "SKIP: $*"; exit 77; }
done_() { [ "$t_failures" -eq 0 ] || { echo "$t_failures check(s) failed" >&2; exit 1; }; exit 0; }

# expect_exit CODE CMD...: run CMD, check its exit code; stderr kept in
# $T_TMP/err, stdout in $T_TMP/out.
expect_exit() {
	local want=$1; shift
	"$@" >"$T_TMP/out" 2>"$T_TMP/err"
	local got=$?
	[ "$got" -eq "$want" ] || fail "'$*' exited $got, expected $want: $(head -c 300 "$T_TMP/err")"
}

# expect_one_line_error: the last command's stderr is exactly one line.
expect_one_line_error() {
	local n
	n=$(wc -l <"$T_TMP/err")
	[ "$n" -eq 1 ] || fail "expected one line on stderr, got $n: $(head -c 300 "$T_TMP/err")"
}

# json_has FILE KEY...: FILE parses as JSON and has every dotted KEY.
json_has() {
	local file=$1; shift
	python3 - "$file" "$@" <<'PY' || fail "json check on $file: $*"
import json, sys
doc = json.load(open(sys.argv[1]))
missing = []
for key in sys.argv[2:]:
    cur = doc
    for part in key.split('.'):
        if isinstance(cur, list):
            cur = cur[int(part)] if part.isdigit() and int(part) < len(cur) else None
        elif isinstance(cur, dict) and part in cur:
            cur = cur[part]
        else:
            cur = None
        if cur is None:
            missing.append(key)
            break
if missing:
    print("missing keys: " + ", ".join(missing), file=sys.stderr)
    sys.exit(1)
PY
}

# json_true FILE EXPR: EXPR, a Python expression over the parsed JSON
# document d, is true (python3 only: the tests need no jq).
json_true() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if eval("(" + sys.argv[2] + ")") else 1)' "$1" "$2" 2>/dev/null
}

# json_get FILE EXPR: print EXPR over the parsed JSON document d.
json_get() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))' "$1" "$2"
}

# wait_sigint_ready PID ERRFILE: until PID, a latlab command whose stderr
# goes to ERRFILE, has said there that Ctrl-C stops it (it says so once
# its handler is in place), or has ended (30 s at most). Not /proc's
# SigCgt: between fork and exec the child is still this shell, which
# catches SIGINT too (and would run the EXIT trap, removing $T_TMP), or
# has SIGINT ignored, as a background job does until the exec.
wait_sigint_ready() {
	for _ in $(seq 600); do
		grep -q 'Ctrl-C stops' "$2" 2>/dev/null && return 0
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.05
	done
}

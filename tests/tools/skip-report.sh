#!/usr/bin/env bash
# Print every skipped test with the reason it gave, so that a skip is never
# silent. Run from a build directory after ctest.
log=${1:-.}/Testing/Temporary/LastTest.log
[ -f "$log" ] || exit 0
awk '
/^[0-9]+\/[0-9]+ Test: / { name = $3 }
/^SKIP: / { sub(/^SKIP: /, ""); printf "skipped: %s: %s\n", name, $0 }
' "$log"

#!/usr/bin/env bash
# Run every libFuzzer target in BUILD_DIR/fuzz for SECONDS each, all at
# the same time (so the wall time is SECONDS, not SECONDS per target), over a
# scratch copy of its seed corpus (fuzz/corpus/<target>/), so the seeds in
# the repository are never modified. New inputs the run finds stay in the
# scratch copy; a crash leaves its reproducer in BUILD_DIR/fuzz-artifacts.
# Usage: tests/tools/run-fuzz.sh BUILD_DIR SECONDS
set -u
build=${1:?usage: run-fuzz.sh BUILD_DIR SECONDS}
# absolute: a target may change its working directory (fuzz_cli_argv
# works in a scratch one), and the artifact prefix must still resolve
build=$(cd "$build" && pwd)
seconds=${2:?usage: run-fuzz.sh BUILD_DIR SECONDS}
src=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
artifacts=$build/fuzz-artifacts
mkdir -p "$artifacts"

# One target, in the background: its log and exit status land in $work.
fuzz_one() {
	local bin=$1 name corpus
	name=$(basename "$bin")
	corpus=$work/$name
	mkdir -p "$corpus"
	[ -d "$src/fuzz/corpus/$name" ] && cp "$src/fuzz/corpus/$name"/* "$corpus"/
	ls "$corpus" | wc -l >"$work/$name.seeds"
	# -rss_limit_mb: the largest legal histogram is 48 MiB of counts;
	# -timeout: one input may take at most 10 s (a hang is a finding).
	"$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
		-max_len=65536 -print_final_stats=1 \
		-artifact_prefix="$artifacts/$name-" "$corpus" \
		>"$work/$name.log" 2>&1
	echo $? >"$work/$name.rc"
}

# Every target at once, each for the full SECONDS: the wall time is one
# target's, not the sum (each gets SECONDS of fuzzing, sharing the CPUs).
status=0
found=0
for bin in "$build"/fuzz/fuzz_*; do
	[ -x "$bin" ] || continue
	found=1
	fuzz_one "$bin" &
done
wait
for bin in "$build"/fuzz/fuzz_*; do
	[ -x "$bin" ] || continue
	name=$(basename "$bin")
	rc=$(cat "$work/$name.rc")
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$name.log")
	if [ "$rc" -eq 0 ]; then
		echo "fuzz: $name: ok, ${execs:-?} inputs in ${seconds}s, corpus $(cat "$work/$name.seeds") -> $(ls "$work/$name" | wc -l)"
	else
		echo "fuzz: $name: FAILED (exit $rc); log tail:"
		tail -n 30 "$work/$name.log"
		status=1
	fi
done
if [ "$found" -eq 0 ]; then
	echo "fuzz: no fuzz targets in $build/fuzz (configure with CC=clang -DLATLAB_FUZZ=ON)"
	exit 1
fi
exit $status

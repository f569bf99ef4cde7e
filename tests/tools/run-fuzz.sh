#!/usr/bin/env bash
# Run every libFuzzer target in BUILD_DIR/fuzz for SECONDS each, over a
# scratch copy of its seed corpus (fuzz/corpus/<target>/), so the seeds in
# the repository are never modified. New inputs the run finds stay in the
# scratch copy; a crash leaves its reproducer in BUILD_DIR/fuzz-artifacts.
# Usage: tests/tools/run-fuzz.sh BUILD_DIR SECONDS
set -u
build=${1:?usage: run-fuzz.sh BUILD_DIR SECONDS}
seconds=${2:?usage: run-fuzz.sh BUILD_DIR SECONDS}
src=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
artifacts=$build/fuzz-artifacts
mkdir -p "$artifacts"

status=0
found=0
for bin in "$build"/fuzz/fuzz_*; do
	[ -x "$bin" ] || continue
	found=1
	name=$(basename "$bin")
	corpus=$work/$name
	mkdir -p "$corpus"
	[ -d "$src/fuzz/corpus/$name" ] && cp "$src/fuzz/corpus/$name"/* "$corpus"/
	seeds=$(ls "$corpus" | wc -l)
	# -rss_limit_mb: the largest legal histogram is 48 MiB of counts;
	# -timeout: one input may take at most 10 s (a hang is a finding).
	"$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
		-max_len=65536 -print_final_stats=1 \
		-artifact_prefix="$artifacts/$name-" "$corpus" \
		>"$work/$name.log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$name.log")
	if [ "$rc" -eq 0 ]; then
		echo "fuzz: $name: ok, ${execs:-?} inputs in ${seconds}s, corpus $seeds -> $(ls "$corpus" | wc -l)"
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

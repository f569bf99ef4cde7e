# Description: build the libFuzzer targets with clang and fuzz each for
# FUZZ_SMOKE_SECONDS (default 10; all targets at once) over its seed
# corpus. Skips, saying what
# to install, when clang or libFuzzer is missing. 'make fuzz' is the long
# version (60 s per target by default).
# Cost: 40 (rough seconds: ctest -j starts the costly tests first)
. "$(dirname "$0")/t_lib.sh"
: "${LATLAB_SRC:?}" "${LATLAB_BUILD:?}"
seconds=${FUZZ_SMOKE_SECONDS:-10}

command -v clang >/dev/null ||
	skip "no clang (apt-get install -y clang libclang-rt-14-dev)"
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n)\n{ (void)d; (void)n; return 0; }\n' >"$T_TMP/probe.c"
clang -fsanitize=fuzzer "$T_TMP/probe.c" -o "$T_TMP/probe" 2>/dev/null ||
	skip "clang has no libFuzzer (apt-get install -y libclang-rt-14-dev)"

dir=$LATLAB_BUILD/fuzz-smoke
CC=clang cmake -S "$LATLAB_SRC" -B "$dir" -DLATLAB_FUZZ=ON -DLATLAB_BENCH=OFF \
	-DCMAKE_BUILD_TYPE=RelWithDebInfo >"$T_TMP/cmake.log" 2>&1 ||
	{ cat "$T_TMP/cmake.log"; fail "cmake for the fuzz build failed"; done_; }
# only the fuzz targets (and the decoder sources they share, built once)
targets=$(cd "$LATLAB_SRC/fuzz" && ls fuzz_*.c | sed 's/\.c$//')
# shellcheck disable=SC2086
cmake --build "$dir" -j 2 --target $targets >"$T_TMP/build.log" 2>&1 ||
	{ tail -n 30 "$T_TMP/build.log"; fail "building the fuzz targets failed"; done_; }
"$LATLAB_SRC/tests/tools/run-fuzz.sh" "$dir" "$seconds" || fail "a fuzz target failed"
done_

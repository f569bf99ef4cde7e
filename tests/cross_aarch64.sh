# Description: the library cross-compiles for aarch64 with the project's
# warnings as errors (the cntvct_el0/cntfrq_el0 paths are real code, not
# dead #ifdefs), and, under qemu-aarch64 when present, a tiny clock check
# runs: the counter frequency comes from cntfrq_el0, reads advance, and a
# fitted calibration agrees with the hardware frequency.
# Cost: 25 (rough seconds: ctest -j starts the costly tests first)
. "$(dirname "$0")/t_lib.sh"
: "${LATLAB_SRC:?LATLAB_SRC must point to the source tree}"

CC_AARCH64=${CC_AARCH64:-aarch64-linux-gnu-gcc}
install_line="apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user"
command -v "$CC_AARCH64" >/dev/null ||
	skip "no aarch64 cross compiler ($install_line)"
# The C library headers are only a Recommends of the compiler package.
echo '#include <stdio.h>' | "$CC_AARCH64" -E -x c - >/dev/null 2>&1 ||
	skip "aarch64 cross compiler has no C library headers ($install_line)"

# Optional features are off in the cross build: their headers (ck, libbpf)
# are host-architecture packages.
mkdir -p "$T_TMP/gen" "$T_TMP/obj" "$T_TMP/hdr"
sed -e 's/^#cmakedefine01 \([A-Z_]*\)/#define \1 0/' \
	-e "s|@PROJECT_SOURCE_DIR@|$LATLAB_SRC|" \
	"$LATLAB_SRC/src/config.h.in" >"$T_TMP/gen/latlab_config.h"
# zlib.h/zconf.h are architecture-neutral; borrow the host's when the
# cross package (zlib1g-dev:arm64) is absent. Only compiling needs them.
if ! echo '#include <zlib.h>' | "$CC_AARCH64" -E -x c - >/dev/null 2>&1 &&
	[ -f /usr/include/zlib.h ]; then
	ln -s /usr/include/zlib.h /usr/include/zconf.h "$T_TMP/hdr/"
fi

cflags=(-std=gnu11 -O2 -Wall -Wextra -Wshadow -Wpedantic
	-Wmissing-prototypes -Wno-overlength-strings -Werror
	-I"$LATLAB_SRC/include" -I"$LATLAB_SRC/src" -I"$T_TMP/gen"
	-idirafter "$T_TMP/hdr")
objs=()
for src in "$LATLAB_SRC"/src/*/*.c; do
	obj="$T_TMP/obj/$(basename "${src%.c}").o"
	if ! "$CC_AARCH64" "${cflags[@]}" -c "$src" -o "$obj" 2>"$T_TMP/cc.err"; then
		fail "aarch64 compile of $(basename "$src"): $(head -c 600 "$T_TMP/cc.err")"
		continue
	fi
	objs+=("$obj")
done
[ "$t_failures" -eq 0 ] || done_
# An archive, so each check links only the members it uses: the host has
# no arm64 zlib to link the codec objects against.
AR_AARCH64=${AR_AARCH64:-aarch64-linux-gnu-ar}
"$AR_AARCH64" rcs "$T_TMP/liblatlab.a" "${objs[@]}" ||
	{ fail "aarch64 archive of the library"; done_; }

command -v qemu-aarch64 >/dev/null ||
	skip "library cross-compiles; no qemu-aarch64 to run the clock check ($install_line)"

cat >"$T_TMP/check.c" <<'EOF'
#include <math.h>
#include <stdio.h>
#include "latlab/clock.h"

int main(void)
{
	struct lat_clock_info info;
	struct lat_clock_cal hw, fit;
	lat_cycles_t a, b;
	int bad = 0;

	lat_clock_info(&info);
	a = lat_clock_start();
	b = lat_clock_end();
	if (lat_clock_calibrate(&hw, 50) || !hw.from_hardware)
		bad |= 1;
	if (lat_clock_calibrate_fit(&fit, 100))
		bad |= 2;
	/* qemu emulates the counter from the host clock: loose bound. */
	if (fabs(fit.cycles_per_ns / hw.cycles_per_ns - 1) > 0.02)
		bad |= 4;
	if (!info.invariant || info.hw_hz <= 0 || b < a)
		bad |= 8;
	printf("source=%s hw_hz=%.0f hw=%.6f fit=%.6f cycles/ns bad=%d\n",
	       info.source, info.hw_hz, hw.cycles_per_ns, fit.cycles_per_ns,
	       bad);
	return bad ? 1 : 0;
}
EOF
if ! "$CC_AARCH64" "${cflags[@]}" -static "$T_TMP/check.c" "$T_TMP/liblatlab.a" \
	-lm -o "$T_TMP/check" 2>"$T_TMP/cc.err"; then
	fail "aarch64 link of the clock check: $(head -c 600 "$T_TMP/cc.err")"
	done_
fi
out=$(qemu-aarch64 "$T_TMP/check" 2>&1) || fail "aarch64 clock check under qemu: $out"
echo "$out"

# The clock unit test too: its conversion checks use long double, which
# is 113-bit on aarch64, so they check the fixed point independently.
if "$CC_AARCH64" "${cflags[@]}" -I"$LATLAB_SRC/tests" -static \
	"$LATLAB_SRC/tests/test_clock.c" "$T_TMP/liblatlab.a" -lm \
	-o "$T_TMP/test_clock" 2>"$T_TMP/cc.err"; then
	out=$(qemu-aarch64 "$T_TMP/test_clock" 2>&1) ||
		fail "test_clock under qemu-aarch64: $out"
else
	fail "aarch64 build of test_clock: $(head -c 600 "$T_TMP/cc.err")"
fi
done_

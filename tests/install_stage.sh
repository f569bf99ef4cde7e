# Description: the installed library works for someone else's program.
# 'make install DESTDIR=stage' (on the build under test) into a stage
# directory; then, with only the staged prefix on the search paths: the
# files are where the docs say, liblatlab.so has its SONAME and exports
# only lat_* symbols, 'pkg-config --cflags --libs latlab' works, both
# examples build against it (pkg-config with the shared library, the CMake
# package with shared and static) and run (loop_hlog's log read back by
# the staged latlab), and every man page lists exactly the options of its
# command's --help.
. "$(dirname "$0")/t_lib.sh"
: "${LATLAB_SRC:?}" "${LATLAB_BUILD:?}"
stage=$T_TMP/stage
prefix=$stage/usr/local
cc=${CC:-cc}
# in a sanitizer build the library is instrumented: so must its users be
cflags="-std=gnu11 -O2 -Wall -Wextra -Werror"
case $(sed -n 's/^LATLAB_SANITIZE:[A-Z]*=//p' "$LATLAB_BUILD/CMakeCache.txt") in
address) cflags="$cflags -fsanitize=address,undefined" ;;
thread) cflags="$cflags -fsanitize=thread" ;;
esac
unset CPATH C_INCLUDE_PATH LIBRARY_PATH LD_LIBRARY_PATH PKG_CONFIG_PATH

# the Makefile's own recipe, on this build ('-o build': do not rebuild it)
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$LATLAB_SRC" -o build install BUILD="$LATLAB_BUILD" \
	DESTDIR="$stage" PREFIX=/usr/local >"$T_TMP/install.log" 2>&1 ||
	{ cat "$T_TMP/install.log" >&2; fail "make install failed"; done_; }
for f in include/latlab/hist.h include/latlab/spsc.h include/latlab/flight.h \
	lib/liblatlab.a lib/liblatlab.so lib/pkgconfig/latlab.pc \
	lib/cmake/latlab/latlabConfig.cmake bin/latlab \
	share/man/man1/latlab.1 share/man/man1/latlab-pipeline.1; do
	[ -e "$prefix/$f" ] || fail "not installed: $f"
done

# --- the shared library: SONAME, exports ------------------------------
so=$prefix/lib/liblatlab.so
readelf -d "$so" | grep -q 'SONAME.*\[liblatlab\.so\.[0-9]*\.[0-9]*\]' ||
	fail "no versioned SONAME: $(readelf -d "$so" | grep SONAME)"
nm -D --defined-only "$so" | awk '{print $NF}' >"$T_TMP/exports"
[ "$(grep -c '^lat_' "$T_TMP/exports")" -gt 100 ] || fail "too few lat_ exports"
others=$(grep -v '^lat_' "$T_TMP/exports" | head -5)
[ -z "$others" ] || fail "liblatlab.so exports non-lat_ symbols: $others"
grep -qx malloc "$T_TMP/exports" && fail "liblatlab.so exports malloc"

# --- pkg-config and the examples, shared ------------------------------
export PKG_CONFIG_LIBDIR=$prefix/lib/pkgconfig
pc=$(pkg-config --cflags --libs latlab) || fail "pkg-config --cflags --libs latlab failed"
case $pc in *"$LATLAB_SRC"*|*"$LATLAB_BUILD"*) fail "pkg-config points into the tree: $pc" ;; esac
for ex in loop_hlog spsc_flight; do
	# shellcheck disable=SC2086 # word splitting of the flags is meant
	$cc $cflags "$LATLAB_SRC/examples/$ex.c" $pc -lpthread -o "$T_TMP/$ex" \
		2>"$T_TMP/cc.err" || fail "$ex does not build with pkg-config: $(head -c 400 "$T_TMP/cc.err")"
done
export LD_LIBRARY_PATH=$prefix/lib
ldd "$T_TMP/loop_hlog" | grep -q "liblatlab.so.* => $prefix/lib/" ||
	fail "loop_hlog does not load the staged library: $(ldd "$T_TMP/loop_hlog" | grep latlab)"
(cd "$T_TMP" && ./loop_hlog "$T_TMP/loop.hlog") >"$T_TMP/loop.out" 2>&1 ||
	fail "loop_hlog failed: $(cat "$T_TMP/loop.out")"
grep -q "^loop_hlog: 200000 iterations" "$T_TMP/loop.out" || fail "loop_hlog: $(cat "$T_TMP/loop.out")"
expect_exit 0 "$prefix/bin/latlab" report --json --tag loop "$T_TMP/loop.hlog"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["total"]["count"]==200000 and d["tags"][0]["tag"]=="loop" else "loop.hlog: %r" % d["total"])' \
	"$T_TMP/out" || fail "loop.hlog does not hold the 200000 iterations"
"$T_TMP/spsc_flight" >"$T_TMP/spsc.out" 2>&1 || fail "spsc_flight failed: $(head -c 400 "$T_TMP/spsc.out")"
grep -q "^spsc_flight: produced 50000, consumed 50000; flight recorder frozen" "$T_TMP/spsc.out" ||
	fail "spsc_flight: $(head -3 "$T_TMP/spsc.out")"
grep -q "<- trigger" "$T_TMP/spsc.out" || fail "spsc_flight printed no window"

# --- the CMake package, shared and static -----------------------------
# (system packages such as libbpf are found the system's way)
CFLAGS="$cflags" env -u PKG_CONFIG_LIBDIR -u LD_LIBRARY_PATH cmake -S "$LATLAB_SRC/examples" -B "$T_TMP/ex" \
	-DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF \
	>"$T_TMP/ex.log" 2>&1 && cmake --build "$T_TMP/ex" >>"$T_TMP/ex.log" 2>&1 ||
	fail "examples do not build with find_package(latlab): $(tail -c 600 "$T_TMP/ex.log")"
if [ -x "$T_TMP/ex/spsc_flight" ]; then
	nm "$T_TMP/ex/spsc_flight" | grep -q ' T lat_flight_push$' ||
		fail "latlab::latlab_static did not link statically"
	"$T_TMP/ex/loop_hlog" "$T_TMP/loop2.hlog" >/dev/null 2>&1 || fail "cmake-built loop_hlog failed"
fi

# --- man pages: the options of --help, no more, no fewer --------------
options() { grep -o -- '--[a-z][a-z0-9-]*' | sort -u; }
if command -v man >/dev/null; then
	render() { MANWIDTH=200 man -l "$1" 2>/dev/null | sed 's/.\x08//g'; }
elif command -v groff >/dev/null; then
	render() { groff -man -Tutf8 "$1" 2>/dev/null | sed 's/.\x08//g'; }
else
	[ "$t_failures" -eq 0 ] || done_
	skip "neither man nor groff (apt-get install -y man-db): the rest passed, man pages not rendered"
fi
n=0
for page in "$prefix"/share/man/man1/latlab*.1; do
	name=$(basename "$page" .1)
	cmd=${name#latlab}; cmd=${cmd#-}
	if [ -z "$cmd" ]; then "$prefix/bin/latlab" --help; else "$prefix/bin/latlab" "$cmd" --help; fi |
		options >"$T_TMP/help.opts"
	render "$page" | options >"$T_TMP/man.opts"
	[ -s "$T_TMP/man.opts" ] || fail "$name(1) renders no options"
	cmp -s "$T_TMP/help.opts" "$T_TMP/man.opts" ||
		fail "$name(1) and --help differ: $(diff "$T_TMP/help.opts" "$T_TMP/man.opts" | tr '\n' ' ')"
	n=$((n + 1))
done
[ "$n" -ge 8 ] || fail "only $n man pages installed"
# the issue's own check, through man's search path
if command -v man >/dev/null; then
	MANPATH=$prefix/share/man MANWIDTH=200 man latlab-pipeline 2>/dev/null | sed 's/.\x08//g' | options >"$T_TMP/mp"
	[ -s "$T_TMP/mp" ] || fail "'man latlab-pipeline' found no page under $prefix/share/man"
	"$prefix/bin/latlab" pipeline --help | options | cmp -s - "$T_TMP/mp" ||
		fail "'man latlab-pipeline' and 'latlab pipeline --help' differ"
fi
done_

# Description: the chase curve from 'latlab mem chase --svg' in a real
# browser: headless chromium parses it without an XML error and, in a
# screenshot, draws both curves (pixels of the random-order and the
# sequential series' colours) - not just a frame. Skips without chromium.
. "$(dirname "$0")/t_lib.sh"

browser=$(command -v chromium || command -v chromium-browser) ||
	skip "no chromium for the SVG check (apt-get install -y chromium)"
expect_exit 0 "$LATLAB" mem chase --quick --max-size 256K --svg "$T_TMP/c.svg"
chrome() {
	timeout 60 "$browser" --headless --no-sandbox --disable-gpu \
		--disable-quic --no-first-run --disable-background-networking \
		--disable-component-update --disable-sync \
		--user-data-dir="$T_TMP/profile" "$@" 2>/dev/null
}
chrome --dump-dom "file://$T_TMP/c.svg" >"$T_TMP/dom" ||
	fail "chromium could not load the SVG"
grep -q '<svg' "$T_TMP/dom" || fail "chromium's DOM has no <svg>"
grep -q 'parsererror' "$T_TMP/dom" && fail "chromium reports an XML error"
chrome --window-size=900,560 --screenshot="$T_TMP/c.png" \
	"file://$T_TMP/c.svg" >/dev/null || fail "no screenshot"
python3 - "$T_TMP/c.png" <<'PY' || fail "the screenshot does not show both curves"
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n"
pos, idat, w = 8, b"", 0
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        assert depth == 8 and ctype in (2, 6), (depth, ctype)
        bpp = 3 if ctype == 2 else 4
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
raw = zlib.decompress(idat)
stride = w * bpp
rows, prev, i = [], bytearray(stride), 0
for _ in range(h):
    f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
    i += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b, c = prev[x], prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(line)
    prev = line
def count(rgb):
    return sum(1 for r in rows for x in range(0, stride, bpp)
               if all(abs(r[x + k] - rgb[k]) < 30 for k in range(3)))
blue, green = count((31, 119, 180)), count((44, 160, 44))
print("random-series pixels", blue, "sequential-series pixels", green)
assert blue > 200 and green > 200
PY
done_

# Description: the flame graph works in a real browser. Headless Chromium
# (driven over the DevTools protocol on a pipe, tests/tools/cdp_pipe.py)
# loads an SVG drawn by latlab profile --render from a known profile,
# hovers a frame (the details line names it), clicks it (it spans the
# width, its ancestors stay full width and faded, its siblings hide),
# searches (the matched share is the known one), resets the zoom, and
# saves a screenshot of the zoomed graph as prof_svg_browser.png in the
# build directory for people to look at.
. "$(dirname "$0")/t_lib.sh"

CHROMIUM=${LATLAB_CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
[ -n "$CHROMIUM" ] || skip "no chromium (apt-get install -y chromium)"

cat >"$T_TMP/p.folded" <<'F'
worker;start_thread;hot_thread_main;hot_a 75
worker;start_thread;hot_thread_main;hot_b;memcpy 20
worker;start_thread;hot_thread_main;hot_b 5
main;main;wait_for_workers 100
F
expect_exit 0 "$LATLAB" profile --render "$T_TMP/p.folded" --svg "$T_TMP/p.svg" \
	--title "browser test"
PYTHONPATH="$LATLAB_SRC/tests/tools" python3 - "$CHROMIUM" "$T_TMP/p.svg" \
	"${LATLAB_BUILD:-$T_TMP}/prof_svg_browser.png" <<'PY' || fail "browser checks"
import json, sys
from cdp_pipe import Chromium

chromium, svg, png = sys.argv[1:4]
errs = []
def frame(c, name):
    return c.eval("""(function () {
      var gs = document.getElementsByClassName('f');
      for (var i = 0; i < gs.length; i++) if (gs[i].getAttribute('data-n') === %s) {
        var r = gs[i].getElementsByTagName('rect')[0], b = r.getBoundingClientRect();
        return { x: b.left + b.width / 2, y: b.top + b.height / 2,
                 width: +r.getAttribute('width'), shown: gs[i].style.display !== 'none',
                 faded: gs[i].getAttribute('opacity') === '0.6',
                 text: gs[i].getElementsByTagName('text')[0].textContent };
      }
      return null; })()""" % json.dumps(name))

with Chromium(chromium, 1200, 260) as c:
    c.open("file://" + svg)
    full = float(c.eval("+document.documentElement.getAttribute('data-width')")) - \
           2 * float(c.eval("+document.documentElement.getAttribute('data-pad')"))
    hb = frame(c, "hot_b")
    if not hb:
        sys.exit("no hot_b frame in the page")
    # half the profile is 'worker': hot_b holds 25 of 200 samples
    if abs(hb["width"] - full * 25 / 200) > 0.5:
        errs.append("hot_b starts %.2f px wide, want %.2f" % (hb["width"], full * 25 / 200))
    c.mouse("mouseMoved", hb["x"], hb["y"])
    details = c.eval("document.getElementById('details').textContent")
    if not details.startswith("hot_b (25 samples, 12.50%)"):
        errs.append("hover details: %r" % details)
    c.click(hb["x"], hb["y"])
    z, a, top, m, w = (frame(c, n) for n in ("hot_b", "hot_a", "all", "main", "memcpy"))
    if abs(z["width"] - full) > 0.01 or z["text"] != "hot_b":
        errs.append("clicked hot_b is %.2f px wide (want %.2f), label %r" % (z["width"], full, z["text"]))
    if abs(w["width"] - full * 20 / 25) > 0.01 or not w["shown"]:
        errs.append("memcpy above hot_b should scale to %.2f: %s" % (full * 0.8, w))
    if a["shown"] or m["shown"]:
        errs.append("frames beside hot_b still shown: hot_a %s, main %s" % (a["shown"], m["shown"]))
    if not (top["shown"] and top["faded"] and abs(top["width"] - full) < 0.01):
        errs.append("root should stay full width and faded: %s" % top)
    if not c.eval("document.getElementById('unzoom').style.display === ''"):
        errs.append("no Reset zoom after a click")
    c.screenshot(png)
    pct = c.eval("search('^hot_a$')")
    if abs(pct - 37.5) > 0.01:
        errs.append("search hot_a matched %.2f %%, want 37.5" % pct)
    c.eval("document.getElementById('unzoom').dispatchEvent(new MouseEvent('click'))")
    a = frame(c, "hot_a")
    if not a["shown"] or abs(a["width"] - full * 75 / 200) > 0.5:
        errs.append("after Reset zoom hot_a: %s" % a)
if errs:
    print("\n".join(errs), file=sys.stderr)
    sys.exit(1)
print("browser: hover, zoom, search and reset behave; screenshot " + png)
PY
done_

# Description: `latlab doctor` on this machine, its findings cross-checked
# against /proc and /sys as this script reads them (nothing about the
# machine is hard-coded); --strict agrees with the bad count; as `nobody`
# it still exits 0 and says what it cannot do; on an empty --root tree
# every fact is n/a with its reason; bad flags exit 2 with one line.
. "$(dirname "$0")/t_lib.sh"

expect_exit 0 "$LATLAB" doctor --json --steal 300ms
cp "$T_TMP/out" "$T_TMP/doctor.json"
json_has "$T_TMP/doctor.json" findings.0.id findings.0.level summary.ok \
	facts.invariant_tsc facts.cpus_online facts.hypervisor facts.steal_pct \
	facts.cgroup_version facts.perf_event_paranoid facts.btf facts.uid
python3 - "$T_TMP/doctor.json" <<'PY' || fail "doctor --json disagrees with /proc and /sys"
import json, os, re, sys
d = json.load(open(sys.argv[1]))
F = d["facts"]
by = {f["id"]: f for f in d["findings"]}
def read(p, default=None):
    try:
        return open(p).read().strip()
    except OSError:
        return default
def ncpus(lst):
    n = 0
    for part in filter(None, lst.split(",")):
        a, _, b = part.partition("-")
        n += int(b or a) - int(a) + 1
    return n

flags = []
for line in open("/proc/cpuinfo"):
    if line.startswith("flags"):
        flags = line.split(":", 1)[1].split()
        break
# clock
if "constant_tsc" in flags and "nonstop_tsc" in flags:
    assert F["invariant_tsc"] is True and by["clock.invariant_tsc"]["level"] == "ok"
cs = read("/sys/devices/system/clocksource/clocksource0/current_clocksource")
assert F["clocksource"] == cs, (F["clocksource"], cs)
# CPUs and isolation
online = read("/sys/devices/system/cpu/online")
assert F["cpus_online"] == ncpus(online), (F["cpus_online"], online)
assert F["cpus_usable"] == len(os.sched_getaffinity(0))
iso = read("/sys/devices/system/cpu/isolated", "")
assert (F["isolated"] or "") == iso, (F["isolated"], iso)
cmdline = read("/proc/cmdline", "")
nohz = read("/sys/devices/system/cpu/nohz_full", "")
if nohz == "(null)":
    nohz = ""
no_isolation = not iso and not nohz and "rcu_nocbs=" not in cmdline and "nohz_full=" not in cmdline
assert (by["cpu.isolation"]["level"] == "warn") == no_isolation, by["cpu.isolation"]
# virtualisation
if "hypervisor" in flags:
    assert F["hypervisor"] is True and by["virt.hypervisor"]["level"] == "warn"
assert F["steal_pct"] is not None and 0 <= F["steal_pct"] <= 100
assert by["virt.steal"]["level"] in ("ok", "warn", "bad")
# cgroup: the same answer from /proc/self/cgroup and mountinfo
v1cpu = any(" - cgroup " in l and "cpu" in l.split()[-1].split(",")
            for l in open("/proc/self/mountinfo"))
paths = dict((l.split(":")[1], l.strip().split(":", 2)[2]) for l in open("/proc/self/cgroup"))
if v1cpu:
    assert F["cgroup_version"] == "v1", F["cgroup_version"]
    path = next(p for k, p in paths.items() if "cpu" in k.split(","))
    assert F["cgroup_path"] == path, (F["cgroup_path"], path)
    mnt = next(l.split()[4] for l in open("/proc/self/mountinfo")
               if " - cgroup " in l and "cpu" in l.split()[-1].split(","))
    gdir = mnt + (path if path != "/" else "")
    quota = int(read(gdir + "/cpu.cfs_quota_us"))
    if quota < 0 and path == "/":
        assert F["quota_cpus"] is None and by["cgroup.quota"]["level"] == "ok"
    stat = dict(l.split() for l in open(gdir + "/cpu.stat"))
    if quota < 0 and path == "/":
        assert F["nr_throttled"] == int(stat["nr_throttled"])
# memory and privileges
thp = re.search(r"\[(\w+)\]", read("/sys/kernel/mm/transparent_hugepage/enabled", ""))
assert F["thp"] == (thp.group(1) if thp else None)
assert F["perf_event_paranoid"] == int(read("/proc/sys/kernel/perf_event_paranoid"))
assert F["btf"] == os.path.exists("/sys/kernel/btf/vmlinux")
assert F["uid"] == os.geteuid()
capeff = next(l.split()[1] for l in open("/proc/self/status") if l.startswith("CapEff"))
assert int(F["cap_eff"], 16) == int(capeff, 16)
if os.geteuid() == 0:
    assert by["priv.caps"]["level"] == "ok" and "uid 0" in by["priv.caps"]["found"]
    assert F["bpf_works"] is True  # root may always create a map
    # the CLI, not the library, names the flag that runs the experiment
    q = by["latlab.cpu_quota"]["found"]
    assert not q.startswith("yes") or "latlab pipeline --cpu-quota" in q, q
# the report's own rules
s = d["summary"]
assert sorted(s) == ["bad", "info", "not_checked", "ok", "warn"], list(s)
assert sum(s.values()) == len(d["findings"]) >= 25
for f in d["findings"]:
    if f["level"] in ("warn", "bad"):
        assert f["fix"], f
PY

expect_exit 0 "$LATLAB" doctor --steal 0
for g in clock cpu virtualisation cgroup memory privileges latlab; do
	grep -q "^$g\$" "$T_TMP/out" || fail "text report lacks the group '$g'"
done
grep -q '^summary: ' "$T_TMP/out" || fail "no summary line"
grep -q 'fix: ' "$T_TMP/out" || fail "no fix line (this machine has warnings)"

bad=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["bad"])' "$T_TMP/doctor.json")
"$LATLAB" doctor --strict --steal 0 >/dev/null 2>&1
rc=$?
if [ "$bad" -gt 0 ]; then want=1; else want=0; fi
[ "$rc" -eq "$want" ] || fail "--strict exited $rc with $bad bad finding(s) a moment before"

# as nobody: still exit 0, and says what it cannot do
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	chmod o+rx "$T_TMP"
	setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
		"$LATLAB" doctor --json --steal 100ms >"$T_TMP/nobody.json" 2>"$T_TMP/err"
	rc=$?
	[ "$rc" -eq 0 ] || fail "doctor as nobody exited $rc: $(head -c 300 "$T_TMP/err")"
	python3 - "$T_TMP/nobody.json" <<'PY' || fail "doctor as nobody: wrong findings"
import json, sys
d = json.load(open(sys.argv[1]))
by = {f["id"]: f for f in d["findings"]}
assert d["facts"]["uid"] == 65534
assert d["facts"]["cap_eff"] == "0000000000000000"
assert by["priv.caps"]["level"] == "warn" and by["priv.caps"]["fix"]
assert by["latlab.cpu_quota"]["found"].startswith("no:"), by["latlab.cpu_quota"]
assert by["latlab.ebpf"]["found"].startswith("no:"), by["latlab.ebpf"]
# unprivileged_bpf_disabled >= 1 refuses bpf() to nobody: the probe saw it
if d["facts"]["unprivileged_bpf_disabled"] >= 1:
    assert d["facts"]["bpf_works"] is False, d["facts"]["bpf_works"]
PY
else
	echo "note: not root or no setpriv: the 'nobody' part did not run"
fi

# an empty tree: n/a with reasons, exit 0
mkdir -p "$T_TMP/empty"
expect_exit 0 "$LATLAB" doctor --root "$T_TMP/empty" --steal 10ms
grep -q 'n/a .*could not read' "$T_TMP/out" || fail "empty --root: no 'could not read' reasons"

for args in "--steal abc" "--steal 5ms" "--steal 2h" "--root=" "--bogus" "extra"; do
	# shellcheck disable=SC2086
	expect_exit 2 "$LATLAB" doctor $args
	expect_one_line_error
done
done_

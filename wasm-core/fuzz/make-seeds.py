#!/usr/bin/env python3
"""Writes the raw seed inputs of every target into seeds-raw/ (not committed) from the
repository's scenarios, importer fixtures and golden links; a set-cover merge with a long
run's corpus (README.md, "Seeds") gives the committed seeds/."""
import json, os, glob, shutil

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.normpath(os.path.join(here, "..", ".."))
fx = os.path.join(root, "wasm-core", "engine", "tests", "fixtures")
out = os.path.join(here, "seeds-raw")
shutil.rmtree(out, ignore_errors=True)
n = {}

def put(target, name, data):
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    n[target] = n.get(target, 0) + 1

def read(p):
    with open(p, "rb") as f:
        return f.read()

def texts(kind):
    return sorted(glob.glob(os.path.join(fx, kind, "*.txt")))

for p in sorted(glob.glob(os.path.join(root, "scenarios", "*.toml"))):
    put("scenario", os.path.basename(p), read(p))
for p in texts("numactl"):
    if not p.endswith("expected-error.txt"):
        put("numactl", os.path.basename(p), read(p))
for p in texts("lscpu"):
    if not p.endswith("expected-error.txt"):
        put("lscpu", os.path.basename(p), read(p))
# lscpu merged into the same host's numactl.
epyc_n = os.path.join(fx, "numactl", "amd-epyc-2s-64c-nps4-256cpu.txt")
epyc_l = os.path.join(fx, "lscpu", "amd-epyc-2s-64c-nps4-snippet.txt")
put("numactl", "epyc-with-lscpu", read(epyc_n) + b"\0" + read(epyc_l))
hbm_n = os.path.join(fx, "numactl", "intel-xeon-max-9470c-2s-hbm-cpuless.txt")
hbm_l = os.path.join(fx, "lscpu", "intel-xeon-max-9470c-aurora-hbm.txt")
put("numactl", "hbm-with-lscpu", read(hbm_n) + b"\0" + read(hbm_l))
pcp_n = read(os.path.join(fx, "numactl", "pcp-qa-2node-8cpu-for-zoneinfo.txt"))
for p in texts("zoneinfo"):
    if not p.endswith("expected-error.txt"):
        put("zoneinfo", os.path.basename(p), read(p))
        put("zoneinfo", "with-numactl-" + os.path.basename(p), read(p) + b"\0" + pcp_n + b"\0" + b"64")
vm = [p for p in texts("vmstat") if not p.endswith("expected-error.txt")]
for p in vm:
    put("vmstat", os.path.basename(p), read(p))
put("vmstat", "devbox-delta",
    read(os.path.join(fx, "vmstat", "devbox-6.18-before.txt")) + b"\0" + read(os.path.join(fx, "vmstat", "devbox-6.18-after-10s.txt")))
with open(os.path.join(root, "web", "src", "share", "fixtures", "links.json")) as f:
    for i, l in enumerate(json.load(f)["links"]):
        put("link", "golden-%02d" % i, l["fragment"])
# A link carrying a small custom scenario's text (as the lab hands it over after lz-string).
small = read(os.path.join(root, "scenarios", "numa-hint-fault-101.toml")).decode()
put("link", "custom-small", "v=2&s=" + small.replace("%", "%25").replace("&", "%26") + "&t.numa_delay_map=false&sched=0:1,2:0&seed=3&step=40&ab=k:v5.4,v6.1")
print(n)

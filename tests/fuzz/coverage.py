#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host side of the guest fuzzer (scripts/fuzz).

  coverage.py sections KO...      "MODULE SECTION SIZE" of each text section
  coverage.py harvest LOG DIR     FUZZ-NEW / FUZZ-CRASH programs of a console
                                  log into DIR/new/SHA1, DIR/crash/KIND-SHA1.bin
  coverage.py report LOG KODIR    the share of the KCOV call sites of xqp.ko,
                                  xqp_soft.ko and xqp_ibdev.ko the run
                                  reached, per module and per source file
  coverage.py campaign LOG KODIR DIR
                                  adds the run's PCs to the campaign's union
                                  for these modules' build (DIR/cov-BUILD, one
                                  "MODULE SECTION OFF" a line) and prints the
                                  union's share per module, as report does

A KCOV call site is a call of __sanitizer_cov_trace_pc that the compiler put
in a basic block; KCOV records its return address, i.e. the offset of the
call's relocation + 4. So "reached" = distinct PCs the guest reported, and
"total" = the relocations against __sanitizer_cov_trace_pc in the .ko.
"""
import collections
import hashlib
import os
import re
import subprocess
import sys

OP_SIZE = 16
# the modules whose KCOV call sites count (scripts/fuzz loads them all)
MODULES = ("xqp", "xqp_soft", "xqp_ibdev")
# module init and exit code runs at insmod/rmmod, never in a fuzzed command:
# not counted
NOT_RUNTIME = (".text.startup", ".text.exit", ".init.text", ".exit.text")


def text_sections(ko):
    out = subprocess.run(["objdump", "-h", ko], check=True, capture_output=True,
                         text=True).stdout
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 7 and f[0].isdigit() and f[1].startswith(".text") and \
                f[1] not in NOT_RUNTIME:
            yield f[1], int(f[2], 16)


def cmd_sections(kos):
    for ko in kos:
        mod = os.path.basename(ko)[:-3]
        for name, size in text_sections(ko):
            if size:
                print(f"{mod} {name} {size:x}")


def cmd_harvest(log, outdir):
    hexre = re.compile(r"^[0-9a-f]+$")
    n = collections.Counter()
    with open(log, "rb") as f:
        for raw in f:
            line = raw.decode("ascii", "replace").strip()
            if line.startswith("FUZZ-NEW "):
                kind, data = "new", line.split()[1] if len(line.split()) > 1 else ""
            elif line.startswith("FUZZ-CRASH "):
                parts = line.split()
                if len(parts) < 3:
                    continue
                kind, data = "crash:" + parts[1], parts[2]
            else:
                continue
            # a console line a kernel message broke into is dropped
            if not hexre.match(data) or len(data) % (2 * OP_SIZE) or not data:
                n["bad"] += 1
                continue
            blob = bytes.fromhex(data)
            sha = hashlib.sha1(blob).hexdigest()[:16]
            if kind == "new":
                path = os.path.join(outdir, "new", sha)
            else:
                path = os.path.join(outdir, "crash", f"{kind[6:]}-{sha}.bin")
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as o:
                o.write(blob)
            n[kind.split(":")[0]] += 1
    if n["bad"]:
        print(f"fuzz: {n['bad']} program line(s) of the console were garbled, skipped")


def cov_sites(ko):
    """{section: set(return-address offsets)} of the KCOV calls in ko"""
    sites = collections.defaultdict(set)
    out = subprocess.run(["objdump", "-r", ko], check=True, capture_output=True,
                         text=True).stdout
    sec = None
    for line in out.splitlines():
        m = re.match(r"RELOCATION RECORDS FOR \[(.*)\]:", line)
        if m:
            sec = m.group(1)
            continue
        f = line.split()
        if sec and sec.startswith(".text") and sec not in NOT_RUNTIME and len(f) == 3 and \
                f[2].startswith("__sanitizer_cov_trace_pc"):
            sites[sec].add(int(f[0], 16) + 4)
    return sites


def functions(obj):
    """[(section, start, end, name)] of the function symbols of an object"""
    out = subprocess.run(["objdump", "-t", obj], check=True, capture_output=True,
                         text=True).stdout
    res = []
    for line in out.splitlines():
        m = re.match(r"^([0-9a-f]+) (.{7}) (\S+)\s+([0-9a-f]+) (.*)$", line)
        if m and "F" in m.group(2):
            start, size = int(m.group(1), 16), int(m.group(4), 16)
            res.append((m.group(3), start, start + size, m.group(5).strip()))
    return res


def reached_in(log):
    """(module, section) -> the offsets a console log's FUZZ-COV lines name"""
    reached = collections.defaultdict(set)
    with open(log, "rb") as f:
        for raw in f:
            line = raw.decode("ascii", "replace").strip()
            if not line.startswith("FUZZ-COV "):
                continue
            f3 = line.split(maxsplit=3)
            if len(f3) < 4:
                continue
            for tok in f3[3].split(","):
                if re.match(r"^[0-9a-f]+$", tok):
                    reached[(f3[1], f3[2])].add(int(tok, 16))
    return reached


def module_hits(kodir, reached):
    """(module, its call sites by section, sites reached, all sites, PCs
    reported that are no call site) of each of MODULES"""
    for mod in MODULES:
        sites = cov_sites(os.path.join(kodir, mod + ".ko"))
        total = sum(len(s) for s in sites.values())
        hit = sum(len(s & reached.get((mod, sec), set())) for sec, s in sites.items())
        stray = sum(len(reached.get((mod, sec), set()) - s) for sec, s in sites.items())
        yield mod, sites, hit, total, stray


def share(hit, total):
    return 100.0 * hit / total if total else 0.0


def module_shares(kodir, reached):
    """one "MOD.ko H of T KCOV sites (S%)" a module, for @reached"""
    return [f"{mod}.ko {hit} of {total} KCOV sites ({share(hit, total):.1f}%)"
            for mod, _, hit, total, _ in module_hits(kodir, reached)]


def cmd_campaign(log, kodir, state):
    """the run's PCs joined to the campaign's union for this module build"""
    h = hashlib.sha256()
    for mod in MODULES:
        with open(os.path.join(kodir, mod + ".ko"), "rb") as f:
            h.update(f.read())
    build = h.hexdigest()[:12]
    os.makedirs(state, exist_ok=True)
    path = os.path.join(state, "cov-" + build)
    union = collections.defaultdict(set)
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                p = line.split()
                if len(p) == 3:
                    union[(p[0], p[1])].add(int(p[2], 16))
    before = sum(len(v) for v in union.values())
    for key, offs in reached_in(log).items():
        union[key] |= offs
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        for (mod, sec), offs in sorted(union.items()):
            for off in sorted(offs):
                f.write(f"{mod} {sec} {off:x}\n")
    os.replace(tmp, path)
    # unions of older module builds no longer describe these modules
    for old in os.listdir(state):
        if old.startswith("cov-") and old != "cov-" + build and not old.endswith(".tmp"):
            os.remove(os.path.join(state, old))
    after = sum(len(v) for v in union.values())
    print(f"campaign coverage (module build {build}): " + ", ".join(module_shares(kodir, union))
          + f"; {after} distinct PCs (+{after - before} this run)")


def cmd_report(log, kodir):
    reached = reached_in(log)
    # function name -> source file, from the objects of the module build
    src = os.path.join(kodir, "src")
    owner = {}
    for d, _, files in os.walk(src):
        for fn in files:
            if fn.endswith(".o") and not fn.endswith(".mod.o") and \
                    fn not in ("xqp.o", "xqp_soft.o", "xqp_kunit.o", "xqp_refdev.o",
                               "xqp_bench.o", "xqp_ibdev.o"):
                rel = os.path.relpath(os.path.join(d, fn), src)
                for _, _, _, name in functions(os.path.join(d, fn)):
                    owner.setdefault(name, rel[:-2])
    lines = []
    per_file = collections.defaultdict(lambda: [0, 0])
    for mod, sites, hit, total, stray in module_hits(kodir, reached):
        funcs = functions(os.path.join(kodir, mod + ".ko"))
        lines.append(f"coverage: {mod}.ko: {hit} of {total} KCOV sites reached ({share(hit, total):.1f}%)"
                     + (f"; {stray} reported PCs are no call site" if stray else ""))
        for sec, s in sites.items():
            got = reached.get((mod, sec), set())
            for off in s:
                name = next((n for fs, a, b, n in funcs if fs == sec and a <= off - 5 < b), "?")
                key = owner.get(name, "(unknown)")
                per_file[(mod, key)][1] += 1
                if off in got:
                    per_file[(mod, key)][0] += 1
    print("\n".join(lines))
    print()
    print(f"{'module':9} {'source file':32} {'reached':>8} {'sites':>6} {'share':>6}")
    for (mod, key), (h, t) in sorted(per_file.items()):
        print(f"{mod:9} {key:32} {h:8} {t:6} {100.0 * h / t if t else 0:5.1f}%")


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "sections":
        cmd_sections(sys.argv[2:])
    elif len(sys.argv) == 4 and sys.argv[1] == "harvest":
        cmd_harvest(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "report":
        cmd_report(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 5 and sys.argv[1] == "campaign":
        cmd_campaign(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()

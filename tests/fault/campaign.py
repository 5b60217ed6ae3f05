#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The whole failure sweep as a campaign of pieces (scripts/fault-sweep,
FAULT_SWEEP=full): what is left, run by the guest a piece at a time, and a
committed ledger of what passed, so the sweep adds up across sessions and
machines as the fuzzer's campaign does.

  campaign.py plan LEDGER CASES    the guest's queue: one line per thing
                                   left, in order (KUnit parts, acceptance
                                   cases, link GIDs, link adds)
  campaign.py record LEDGER LOG DATE COMMIT
                                   appends a row per "FAULT-PIECE" line of
                                   the console LOG (passed or failed)
  campaign.py totals LEDGER CASES  what is done and what is left
  campaign.py selftest             the planner against made-up ledgers

CASES: the acceptance cases, one name a line (xqp-acceptance -l).

Pieces (the queue's lines and the ledger's "piece" column):
  kunit CASE K/N      xqp_fault's CASE at fault_sweep=2, part K of N
                      (xqp_kunit's fault_part/fault_parts)
  acc CASE A-B        the case's runs with fail-nth A..B (xqp-acceptance -F)
  link add A-B        `rdma link add`/`delete` with fail-nth A..B
                      (xqp-link-faults A-B add)
  link gid            a failed GID add (xqp-link-faults 1 gid)
A ranged thing is done when a passed piece of it reached the end (its
"end" column, the first fail-nth no run reached). Its pieces run in order:
the queue's line for it is "acc CASE FIRST" (the first fail-nth not yet
passed) and the guest takes pieces of RANGE runs from there until the end
or its deadline. A failed piece is recorded and taken again next time.
"""
import fcntl
import os
import re
import sys
import tempfile

# xqp_fault's cases, and the parts each is split into (a part takes at
# most about 10 minutes under TCG)
KUNIT_PARTS = (
    ("fs_alloc_sweep", 8),
    ("fs_op_sweep", 16),
    ("fs_traffic_alloc_sweep", 1),
    ("fs_traffic_op_sweep", 4),
    ("fs_traffic_work_check", 1),
)
# fail-nth values a ranged piece covers
RANGE = {"acc": 200, "link": 200}
HEADER = "date\tcommit\tpiece\tresult\tend\tseconds\tdetail"
# the guest's line for a piece: "FAULT-PIECE pass|fail SECONDS end=N|- PIECE | DETAIL"
PIECE_RE = re.compile(r"FAULT-PIECE (pass|fail) (\d+) end=(\d+|-) ([a-z]+(?: [^ |]+)+) \| ?(.*)$")


def read_ledger(path):
    rows = []
    if not os.path.exists(path):
        return rows
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("date\t"):
                continue
            f7 = line.split("\t")
            if len(f7) != 7:
                sys.exit(f"campaign.py: {path}: a row without 7 fields: {line!r}")
            rows.append(dict(zip(("date", "commit", "piece", "result", "end", "seconds", "detail"), f7)))
    return rows


def read_cases(path):
    with open(path) as f:
        return [l.split()[0] for l in f if l.strip()]


def ranged_state(rows, thing):
    """(next first fail-nth, end or None) of a ranged thing ("acc CASE",
    "link add"): pieces passed in order from 1."""
    done = {}
    for r in rows:
        if r["result"] != "pass" or not r["piece"].startswith(thing + " "):
            continue
        a, b = r["piece"][len(thing) + 1:].split("-")
        done[int(a)] = (int(b), None if r["end"] == "-" else int(r["end"]))
    nxt = 1
    while nxt in done:
        b, end = done[nxt]
        if end is not None:
            return nxt, end
        nxt = b + 1
    return nxt, None


def passed(rows, piece):
    return any(r["piece"] == piece and r["result"] == "pass" for r in rows)


def plan(rows, cases):
    """The queue: lines the guest runs in order."""
    out = []
    for case, parts in KUNIT_PARTS:
        for k in range(parts):
            piece = f"kunit {case} {k}/{parts}"
            if not passed(rows, piece):
                out.append(piece)
    for case in cases:
        nxt, end = ranged_state(rows, f"acc {case}")
        if end is None:
            out.append(f"acc {case} {nxt}")
    if not passed(rows, "link gid"):
        out.append("link gid")
    nxt, end = ranged_state(rows, "link add")
    if end is None:
        out.append(f"link add {nxt}")
    return out


def totals(rows, cases):
    kunit_all = sum(p for _, p in KUNIT_PARTS)
    kunit_done = sum(passed(rows, f"kunit {c} {k}/{p}") for c, p in KUNIT_PARTS for k in range(p))
    acc_done = 0
    acc_points = 0
    for case in cases:
        nxt, end = ranged_state(rows, f"acc {case}")
        acc_done += end is not None
        acc_points += (end if end is not None else nxt) - 1
    link_nxt, link_end = ranged_state(rows, "link add")
    secs = sum(int(r["seconds"]) for r in rows)
    fails = sum(r["result"] == "fail" for r in rows)
    left = len(plan(rows, cases))
    print(f"fault-sweep: campaign: {len(rows)} pieces run ({fails} failed), {secs} s; "
          f"KUnit parts {kunit_done} of {kunit_all}; acceptance cases {acc_done} of {len(cases)} "
          f"to their end ({acc_points} fail-nth points); link GIDs {'done' if passed(rows, 'link gid') else 'left'}; "
          f"link add {'to its end at ' + str(link_end) if link_end else f'fail-nth 1-{link_nxt - 1}' if link_nxt > 1 else 'not begun'}")
    print(f"fault-sweep: campaign: {'complete' if not left else f'{left} things left'}")
    return left


def record(ledger, log, date, commit):
    rows = []
    with open(log, "rb") as f:
        for raw in f:
            m = PIECE_RE.search(raw.decode("ascii", "replace").rstrip("\r\n"))
            if not m:
                continue
            result, secs, end, piece, detail = m.groups()
            detail = detail.replace("\t", " ")[:300]
            rows.append("\t".join((date, commit, piece, result, end, secs, detail)))
    with open(ledger, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)	# two runs at once append in turn
        if f.tell() == 0:
            f.write(HEADER + "\n")
        for r in rows:
            f.write(r + "\n")
    print(f"fault-sweep: {len(rows)} pieces recorded in {ledger}")
    return rows


def selftest():
    fails = []
    checks = []

    def check(what, got, want):
        checks.append(what)
        if got != want:
            fails.append(f"{what}: got {got!r}, want {want!r}")

    with tempfile.TemporaryDirectory() as d:
        ledger = os.path.join(d, "campaign.tsv")
        log = os.path.join(d, "console.log")
        cases = ["one", "two"]
        first = plan([], cases)
        check("empty ledger: first line", first[0], "kunit fs_alloc_sweep 0/8")
        check("empty ledger: the cases from 1", first[-4:], ["acc one 1", "acc two 1", "link gid", "link add 1"])
        with open(log, "w") as f:
            f.write("[  1.0] FAULT-PIECE pass 30 end=- kunit fs_alloc_sweep 0/8 | ok\n"
                    "FAULT-PIECE pass 40 end=- acc one 1-200 | 200 failure points\n"
                    "FAULT-PIECE pass 20 end=317 acc one 201-400 | 116 failure points\n"
                    "FAULT-PIECE pass 50 end=- acc two 1-200 | x\n"
                    "FAULT-PIECE fail 10 end=- acc two 201-400 | fail-nth 250: the case hung\n"
                    "FAULT-PIECE pass 60 end=- link add 1-200 | y\n"
                    "FAULT-PIECE pass 5 end=- link gid | z\n"
                    "noise FAULT-PIECE garbage\n")
        got = record(ledger, log, "2026-12-07", "abc1234")
        check("rows recorded", len(got), 7)
        rows = read_ledger(ledger)
        check("a piece's name", rows[1]["piece"], "acc one 1-200")
        q = plan(rows, cases)
        check("a passed part leaves the queue", "kunit fs_alloc_sweep 0/8" in q, False)
        check("the next part stays", q[0], "kunit fs_alloc_sweep 1/8")
        check("a case at its end leaves the queue", [l for l in q if l.startswith("acc one")], [])
        check("a failed piece is taken again", "acc two 201" in q, True)
        check("links go on after their last piece", q[-1], "link add 201")
        check("link gid done", "link gid" in q, False)
        check("state of a finished case", ranged_state(rows, "acc one"), (201, 317))
        check("pieces out of order do not count past a gap",
              ranged_state([{"piece": "acc x 201-400", "result": "pass", "end": "-"}], "acc x"), (1, None))
        # everything done: nothing left
        done = [{"piece": f"kunit {c} {k}/{p}", "result": "pass", "end": "-"} for c, p in KUNIT_PARTS for k in range(p)]
        done += [{"piece": "acc one 1-200", "result": "pass", "end": "3"},
                 {"piece": "acc two 1-200", "result": "pass", "end": "150"},
                 {"piece": "link gid", "result": "pass", "end": "-"},
                 {"piece": "link add 1-200", "result": "pass", "end": "9"}]
        check("a complete campaign", plan(done, cases), [])
    for f in fails:
        print(f"FAIL {f}")
    print(f"fault-campaign: {len(checks) - len(fails)} passed, {len(fails)} failed")
    return 1 if fails else 0


def main(argv):
    if len(argv) >= 2 and argv[1] == "selftest":
        return selftest()
    if len(argv) == 4 and argv[1] == "plan":
        for line in plan(read_ledger(argv[2]), read_cases(argv[3])):
            print(line)
        return 0
    if len(argv) == 6 and argv[1] == "record":
        record(argv[2], argv[3], argv[4], argv[5])
        return 0
    if len(argv) == 4 and argv[1] == "totals":
        totals(read_ledger(argv[2]), read_cases(argv[3]))
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))

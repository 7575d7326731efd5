#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Event-driven egress in virtual time (issue 16): every departure is
stamped at the instant its serialization starts, as the model decides it
(the port free after the previous frame's (len + 24) x 8 / speed, the pause
over, the watchdog's detection), with no gap the model does not explain.

Usage: test_vt_exact.py PATH/TO/dpdk-aifab [train|pause|watchdog|all]

Inputs are RoCEv2 frames built with struct + zlib (lib_aifab.RoceFlow);
outputs are matched by (dest QP, PSN) from the nanosecond --capture (read
with struct). Every expected instant is computed here from the inputs with
integer arithmetic: a link carries a frame in (len + 24) x 8000 / Mb/s ns,
exact, the fraction carried from frame to frame (an idle link starts on a
whole ns), so frame k of a back-to-back train starts at
floor(k x (len + 24) x 8000 / Mb/s) after the first.

train:    back-to-back trains stamped at one instant on p0 (the link into
          the switch makes them line rate) into p1. Same speed: every frame
          leaves at its arrival, each exactly one wire time after the one
          before, the last one too (the old 1310 ns egress step left a hole
          near the end), for 1026-byte frames (84 ns) and 1082-byte frames
          (88.48 ns: 88 or 89 ns apart, the fraction carried). p1 at 25G:
          the queue drains at exactly 25G from the first frame (353.92 ns
          per 1082-byte frame; no shaper bucket burst, no shared stamps).
pause:    a lossless TC3 train into p1 while p1 receives XOFF c3 = 20000
          quanta (102400 ns at 100G) at 50 us, XOFF c3 = 65535 at 200 us
          and XON at 260 us: no TC3 frame starts inside a pause; the first
          starts exactly at the pause's end (50 us + 102400 ns, and the XON's
          arrival), the backlog then leaves back to back.
watchdog: a storm of XOFF c3 = 65535 every 150 us on p1 from 1 ms,
          pfc.action = forward, detection_ms = 100: TC3 frames arriving every
          100 us from 30 us queue from the storm's start; they leave at
          exactly first XOFF + 100 ms (an instant no input falls on), back to
          back, and every later frame at its arrival.
"""
import os

from lib_aifab import (NBR_IP4, VT_EPOCH_NS, RoceFlow, VRun, pfc_frame,
                       NBR_MAC, roce_match, run_ok, run_scenarios)

DST = NBR_IP4[1]
US = 1000
MS = 1000 * US


def serial(k, length, mbps):
    """Start of frame k of a back-to-back train after the first's (ns)."""
    return k * (length + 24) * 8000 // mbps


def tc_departures(cap, flow):
    """(t - epoch, psn) of flow's frames in the capture, in capture order."""
    return [(t - VT_EPOCH_NS, RoceFlow.key(fr)[1]) for t, fr in cap
            if RoceFlow.key(fr)[0] == flow.dqpn]


def run_flow(ck, exe, what, f, n, inputs, judge, tag, sets=(),
             frames="every frame"):
    """Run `inputs` in virtual time, check that flow f's n frames all
    leave p1 (roce_match), then judge(run, departures): departures is
    tc_departures() of p1's capture. The run's files are kept if a check
    failed."""
    run = VRun(exe, inputs, sets=sets, tag=tag)
    with run.kept_if_failed(ck):
        if not run_ok(ck, run, what):
            return
        cap = run.captures[1] or []
        m = roce_match(ck, what, [f], 1, cap, {f.dqpn: n})
        ck.eq(m.count[f.dqpn], n, "%s: %s leaves" % (what, frames))
        judge(run, tc_departures(cap, f))


def first_diff(got, want):
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            return "frame %d: got %r, want %r" % (i, g, w)
    return "lengths %d / %d" % (len(got), len(want))


# ---- train -----------------------------------------------------------------

def check_train(ck, exe):
    for paylen, gbps, dscp, n in ((968, 100, 26, 3000), (1024, 100, 26, 3000),
                                  (1024, 25, 0, 300)):
        f = RoceFlow(0, DST, 0x300, 0xC300, paylen=paylen, dscp=dscp, ecn=2)
        what = "%d-byte train p0 (100G) -> p1 (%dG)" % (f.len, gbps)
        ck.section(what)

        def judge(_run, got, f=f, n=n, gbps=gbps, what=what):
            # Arrivals: the 100G link into p0; departures: p1's
            # transmitter, from the first arrival (instant 0) on.
            want = [(serial(k, f.len, gbps * 1000), k) for k in range(n)]
            ck.check(got == want, "%s: frame k leaves at floor(k x %d x "
                     "8000 / %d) ns exactly (back to back, none late, no "
                     "hole)" % (what, f.len + 24, gbps * 1000),
                     first_diff(got, want))
            gaps = sorted({b[0] - a[0] for a, b in zip(got, got[1:])})
            print("%s: departure gaps %s ns" % (what, gaps))

        run_flow(ck, exe, what, f, n,
                 {0: [(f.frame(k), VT_EPOCH_NS) for k in range(n)]}, judge,
                 "vt-train", sets=["port.p1.speed_gbps=%d" % gbps])


# ---- pause -----------------------------------------------------------------

def check_pause(ck, exe):
    what = "PFC pauses on p1"
    n = 4000
    f = RoceFlow(0, DST, 0x310, 0xC310, paylen=968, dscp=26, ecn=2)
    t1, q1, t2, t3 = 50 * US, 20000, 200 * US, 260 * US
    pause1 = q1 * 512 * 1000 // 100000          # 102400 ns at 100G
    z = [0] * 8
    pfc = [(pfc_frame(NBR_MAC[1], 0x08, [0, 0, 0, q1, 0, 0, 0, 0]), t1),
           (pfc_frame(NBR_MAC[1], 0x08, [0, 0, 0, 65535, 0, 0, 0, 0]), t2),
           (pfc_frame(NBR_MAC[1], 0x08, z), t3)]
    inputs = {0: [(f.frame(k), VT_EPOCH_NS) for k in range(n)],
              1: [(fr, VT_EPOCH_NS + t) for fr, t in pfc]}
    ck.section("%s: XOFF %d quanta at %d ns, XOFF 65535 at %d ns, XON at "
               "%d ns" % (what, q1, t1, t2, t3))

    def judge(run, got):
        times = [t for t, _psn in got]
        # Before the first pause: at the arrivals, 84 ns apart.
        pre = [t for t in times if t < t1]
        ck.eq(pre, [k * 84 for k in range(len(pre))],
              "%s: before %d ns every frame leaves at its arrival" % (what, t1))
        for a, b in ((t1, t1 + pause1), (t2, t3)):
            w = "%s: pause %d..%d ns" % (what, a, b)
            ck.eq([t for t in times if a <= t < b], [],
                  "%s: no TC3 frame starts inside" % w)
            after = [t for t in times if t >= b][:64]
            want = [b + k * 84 for k in range(len(after))]
            ck.check(len(after) == 64 and after == want,
                     "%s: the first TC3 frame starts at exactly %d ns, the "
                     "backlog back to back after it" % (w, b),
                     first_diff(after, want))
        ck.eq(run.tc(1, 3).get("paused_ns"), pause1 + (t3 - t2),
              "%s: p1 tc.3.paused_ns" % what)

    run_flow(ck, exe, what, f, n, inputs, judge, "vt-pause",
             frames="every TC3 frame")


# ---- watchdog --------------------------------------------------------------

def check_watchdog(ck, exe):
    what = "PFC storm on p1, pfc.action=forward"
    start, period, n_pfc = 1 * MS, 150 * US, 720
    off, gap, n = 30 * US, 100 * US, 1500
    detect = start + 100 * MS
    f = RoceFlow(0, DST, 0x320, 0xC320, paylen=256, dscp=26, ecn=2)
    xoff = pfc_frame(NBR_MAC[1], 0x08, [0, 0, 0, 65535, 0, 0, 0, 0])
    inputs = {1: [(xoff, VT_EPOCH_NS + start + k * period)
                  for k in range(n_pfc)],
              0: [(f.frame(k), VT_EPOCH_NS + off + k * gap)
                  for k in range(n)]}
    arr = [off + k * gap for k in range(n)]
    events = set(arr) | {start + k * period for k in range(n_pfc)}
    ck.check(detect not in events, "test setup: no input falls on first "
             "XOFF + detection_ms")
    held = [k for k, a in enumerate(arr) if start <= a < detect]
    want = []
    for k, a in enumerate(arr):
        if a < start or a >= detect:
            want.append((a, k))
        else:  # queued in the storm: back to back from the detection
            want.append((detect + serial(k - held[0], f.len, 100000), k))
    ck.section("%s: XOFF c3 every %d us from %d ms, detection at %d ns; %d "
               "frames held" % (what, period // US, start // MS, detect,
                                len(held)))

    def judge(run, got):
        ck.check(got == want, "%s: frames before the storm and after the "
                 "detection leave at their arrival, those held in it back "
                 "to back from exactly %d ns" % (what, detect),
                 first_diff(got, want))
        r3 = run.tc(1, 3)
        ck.eq((r3.get("pfcwd_storms"), r3.get("pfcwd_drops")), (1, 0),
              "%s: p1 tc.3 pfcwd_storms, pfcwd_drops" % what)

    run_flow(ck, exe, what, f, n, inputs, judge, "vt-wd",
             sets=["pfc.detection_ms=100", "pfc.restoration_ms=100",
                   "pfc.action=forward"], frames="every TC3 frame")


SCENARIOS = {"train": check_train, "pause": check_pause,
             "watchdog": check_watchdog}


def main():
    run_scenarios("test_vt_exact", SCENARIOS)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    main()

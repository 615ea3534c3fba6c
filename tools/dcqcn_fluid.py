#!/usr/bin/python3
"""The DCQCN fluid model of Zhu, Ghobadi, Misra and Padhye, "ECN or Delay: Lessons Learnt from Analysis of DCQCN
and TIMELY" (CoNEXT 2016, section 3), integrated as delay differential equations: N flows into one bottleneck of
capacity C behind a RED marker (Kmin, Kmax, Pmax), each with its own current rate R_C, target rate R_T and alpha.

    p(t)      = 0, (q - Kmin) / (Kmax - Kmin) Pmax, or 1        (q <= Kmin, up to Kmax, above)
    dq/dt     = sum_i R_C_i - C                                  (q >= 0)
    da_i/dt   = g / tau' ((1 - (1 - p~)^(tau' R~)) - a_i)
    dR_T_i/dt = -(R_T_i - R_C_i) / tau (1 - (1 - p~)^(tau R~))
                + R_AI R~ (1 - p~)^(F B) p~ / ((1 - p~)^-B - 1)
                + R_AI R~ (1 - p~)^(F T R~) p~ / ((1 - p~)^(-T R~) - 1)
    dR_C_i/dt = -R_C_i a_i / (2 tau) (1 - (1 - p~)^(tau R~))
                + (R_T_i - R_C_i) / 2 R~ p~ / ((1 - p~)^-B - 1)
                + (R_T_i - R_C_i) / 2 R~ p~ / ((1 - p~)^(-T R~) - 1)

with p~ = p(t - tau*) and R~ = R_C_i(t - tau*), tau* the feedback delay. Rates are in packets per second, queues
and the byte counter B in packets of `--packet` bytes (p is a per-packet marking probability). As in the
authors' MATLAB (jitupadhye-zz/rdma, fluidmodel/dcqcn/fluid2_test.m), rates stay at or below C and the p = 0 limit
of the increase terms is taken (1/B and 1/(T R~)). The model has no hyper increase: compare it with R_HAI = R_AI.

Integrated with explicit Euler steps of --dt over a ring buffer of the delayed values. Prints, as JSON: the mean
queue and each flow's mean rate over the second half of the run, Jain's fairness index, and the time after which
every flow stays within 10 % of C/N; and the fixed point the integration should settle on (fixed_point).

Usage: tools/dcqcn_fluid.py --flows 10 --capacity 40e9 [--time 0.06] [--dt 1e-7] [--delay 4e-6] [--packet 1086]
"""

import argparse
import json
import math
import sys

import numpy as np


def increase_term(p, l1p, x):
    """p / ((1 - p)^-x - 1): the rate of increase events per packet when x packets without a mark make one; 0 where
    (1 - p)^-x overflows (such a run of unmarked packets never happens)."""
    with np.errstate(over="ignore"):
        return p / np.expm1(-np.asarray(x, dtype=float) * l1p)


def fixed_point(a):
    """The model's steady state with every flow at C/N: alpha, R_T and R_C stationary give
    alpha(p) A(p)^2 = R_AI tau^2 R (b + d)(c + e) (A the cut probability per tau, b, d the byte-counter and timer
    increase terms, c, e the same past fast recovery); its root p* (bisection) and q* = Kmin + p*/Pmax (Kmax - Kmin).
    None when p* would exceed Pmax: the queue then sits at Kmax."""
    C = a.capacity / (a.packet * 8)
    R = C / a.flows
    B = a.byte_counter / a.packet
    r_ai = a.rate_ai / (a.packet * 8)

    def excess(p):
        l1p = math.log1p(-p)
        alpha = -math.expm1(a.tau_prime * R * l1p)
        cut = -math.expm1(a.tau * R * l1p)
        b = float(increase_term(p, l1p, B))
        d = float(increase_term(p, l1p, a.timer * R))
        c = b * math.exp(a.fast_recovery * B * l1p)
        e = d * math.exp(a.fast_recovery * a.timer * R * l1p)
        return alpha * cut * cut - r_ai * a.tau**2 * R * (b + d) * (c + e)

    lo, hi = 1e-9, a.pmax
    if excess(hi) < 0:
        return None
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if excess(mid) < 0 else (lo, mid)
    p = (lo + hi) / 2
    return a.kmin + p / a.pmax * (a.kmax - a.kmin)


def integrate(a):
    pkt_bits = a.packet * 8
    C = a.capacity / pkt_bits  # packets/s
    kmin, kmax = a.kmin / a.packet, a.kmax / a.packet
    B = a.byte_counter / a.packet
    r_ai = a.rate_ai / pkt_bits
    steps = int(round(a.time / a.dt))
    lag = max(1, int(round(a.delay / a.dt)))
    n = a.flows
    rng = np.random.default_rng(a.seed)
    # Start: every flow at line rate with a small spread (the MATLAB starts each within +-10 % of its start rate).
    rc = np.full(n, C) * (1 - 0.1 * rng.random(n))
    rt = np.full(n, C)
    alpha = np.ones(n)
    q = 0.0
    hist_rc = np.tile(rc, (lag, 1))  # rates tau* ago, ring buffer
    hist_p = np.zeros(lag)
    half = steps // 2
    q_sum, rate_sum, samples = 0.0, np.zeros(n), 0
    converged_at = None
    fair = C / n
    for k in range(steps):
        slot = k % lag
        rd, pd = hist_rc[slot].copy(), hist_p[slot]  # values tau* ago
        p = 0.0 if q <= kmin else (a.pmax * (q - kmin) / (kmax - kmin) if q <= kmax else 1.0)
        hist_rc[slot] = rc
        hist_p[slot] = p
        if pd <= 0:
            cut = np.zeros(n)
            mark_a = np.zeros(n)
            inc_b = np.full(n, 1 / B)
            inc_b_f = inc_b
            inc_t = np.where(rd > 0, 1 / (a.timer * np.maximum(rd, 1e-30)), 0.0)
            inc_t_f = inc_t
        elif pd >= 1:
            cut = np.ones(n)
            mark_a = np.ones(n)
            inc_b = inc_b_f = inc_t = inc_t_f = np.zeros(n)
        else:
            l1p = math.log1p(-pd)
            cut = -np.expm1(a.tau * rd * l1p)
            mark_a = -np.expm1(a.tau_prime * rd * l1p)
            inc_b = np.full(n, float(increase_term(pd, l1p, B)))
            inc_b_f = inc_b * math.exp(a.fast_recovery * B * l1p)
            inc_t = increase_term(pd, l1p, a.timer * rd)
            inc_t_f = inc_t * np.exp(a.fast_recovery * a.timer * rd * l1p)
        d_alpha = a.g / a.tau_prime * (mark_a - alpha)
        d_rt = -(rt - rc) / a.tau * cut + r_ai * rd * inc_b_f + r_ai * rd * inc_t_f
        d_rc = -rc * alpha / (2 * a.tau) * cut + (rt - rc) / 2 * rd * inc_b + (rt - rc) / 2 * rd * inc_t
        d_q = rc.sum() - C
        alpha = alpha + a.dt * d_alpha
        rt = np.minimum(rt + a.dt * d_rt, C)
        rc = np.clip(rc + a.dt * d_rc, 0, C)
        q = max(0.0, q + a.dt * d_q)
        if k >= half:
            q_sum += q
            rate_sum += rc
            samples += 1
        if np.all(np.abs(rc - fair) <= 0.1 * fair):
            if converged_at is None:
                converged_at = k * a.dt
        else:
            converged_at = None
    mean_rates = rate_sum / samples
    jain = mean_rates.sum() ** 2 / (n * (mean_rates**2).sum())
    return {
        "flows": n,
        "capacity_bps": a.capacity,
        "packet_bytes": a.packet,
        "mean_queue_bytes": q_sum / samples * a.packet,
        "mean_rate_bps": [r * pkt_bits for r in mean_rates],
        "jain": jain,
        "converged_s": converged_at,
        "final_queue_bytes": q * a.packet,
        "fixed_point_queue_bytes": fixed_point(a),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--flows", type=int, required=True)
    ap.add_argument("--capacity", type=float, default=40e9, help="bottleneck, bits per second")
    ap.add_argument("--time", type=float, default=0.06, help="seconds integrated")
    ap.add_argument("--dt", type=float, default=1e-7, help="Euler step, seconds")
    ap.add_argument("--delay", type=float, default=4e-6, help="feedback delay tau*, seconds")
    ap.add_argument("--packet", type=float, default=1086, help="bytes per packet (a 1024 B RoCEv2 payload: 1086)")
    ap.add_argument("--kmin", type=float, default=5e3, help="bytes")
    ap.add_argument("--kmax", type=float, default=200e3, help="bytes")
    ap.add_argument("--pmax", type=float, default=0.01)
    ap.add_argument("--g", type=float, default=1 / 256)
    ap.add_argument("--tau", type=float, default=50e-6, help="CNP interval, seconds")
    ap.add_argument("--tau-prime", type=float, default=55e-6, help="alpha update interval, seconds")
    ap.add_argument("--timer", type=float, default=55e-6, help="rate increase timer T, seconds")
    ap.add_argument("--byte-counter", type=float, default=10e6, help="bytes")
    ap.add_argument("--fast-recovery", type=int, default=5)
    ap.add_argument("--rate-ai", type=float, default=40e6, help="bits per second")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--fixed-point-only", action="store_true", help="only the fixed point, no integration")
    a = ap.parse_args()
    print(json.dumps({"fixed_point_queue_bytes": fixed_point(a)} if a.fixed_point_only else integrate(a), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

// HPCC (Li et al., SIGCOMM 2019), as the HPCC simulator implements it (alibaba-edu/High-Precision-Congestion-Control
// simulation/src/point-to-point/model/rdma-hw.cc, UpdateRateHp). Switches stamp each data packet with per-hop
// telemetry (tx bytes, time, queue, rate); the receiver echoes it in ACKs. On each ACK, for every hop j against
// the previous ACK's record:
//   txRate_j = (txBytes_j - txBytes'_j) x 8 / (ts_j - ts'_j)
//   u_j      = txRate_j / B_j + min(qlen_j, qlen'_j) x 8 / (B_j T)
//   U        = max_j u_j, with tau = min(ts_j - ts'_j, T) of that hop
//   u        = (u (T - tau) + U tau) / T                                  (EWMA)
//   if u/eta >= 1 or incStage >= max_stage:  W = W_c / (u/eta) + W_AI     (multiplicative)
//   else:                                    W = W_c + W_AI               (additive)
// W_c (and incStage) are committed once per RTT, when the ACK covers the packet sent at the last commit; in
// between, W reacts per ACK from the committed W_c ("fast react"). The window is W and the pacing rate W / T.
// T is the flow's round trip with its ACKs (or base_rtt for every flow); W starts at (and never exceeds) line
// rate x T; W_AI = rate_ai x T.
#include "rocesim/cc/cc.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace rocesim {
namespace {

struct HpccParams {
  double eta = 0;
  int64_t max_stage = 0;
  Rate rate_ai;
  Rate min_rate;
  Time base_rtt;
  std::string window;
  static const Schema<HpccParams>& schema() {
    static const Schema<HpccParams> s = [] {
      Schema<HpccParams> sc("cc hpcc", "HPCC with in-band telemetry");
      sc.reserved("type", "hpcc")
          .add(&HpccParams::eta, "eta", "0.95", "target utilisation (HPCC paper and simulator U_TARGET 95 %)",
               in_range(0.01, 1.0))
          .add(&HpccParams::max_stage, "max_stage", "0",
               "additive steps before a multiplicative one (MI_THRESH; 0 as in the paper's simulations)",
               in_range<int64_t>(0, 1000))
          .add(&HpccParams::rate_ai, "rate_ai", "40Mbps",
               "additive increase as a rate; W_AI = rate_ai x T (HPCC simulator RATE_AI at 100G)")
          .add(&HpccParams::min_rate, "min_rate", "100Mbps", "lowest pacing rate (HPCC simulator MinRate)")
          .add(&HpccParams::base_rtt, "base_rtt", "0us",
               "T for every flow (the HPCC simulator's GLOBAL_T 1 uses the fabric's largest base RTT); 0: each "
               "flow's own round trip with its ACKs (Network::ack_clocked_rtt)")
          .add(&HpccParams::window, "window", "varies",
               "bytes in flight: W as it varies (the HPCC simulator's HAS_WIN 1, VAR_WIN 1), fixed at line rate x "
               "T (VAR_WIN 0), or none, the pacing rate W/T alone (HAS_WIN 0)",
               one_of({"varies", "fixed", "none"}));
      return sc;
    }();
    return s;
  }
};

class Hpcc final : public CongestionControl {
 public:
  Hpcc(const HpccParams& p, const CcFlowInfo& f)
      : p_(p),
        line_(f.line_rate),
        t_(p.base_rtt > Time() ? p.base_rtt : f.base_rtt),
        window_mode_(p.window == "none"    ? kNoWindow
                     : p.window == "fixed" ? kFixedWindow
                                           : kVaryingWindow) {
    t_s_ = std::max(1e-12, t_.sec_f());
    w_init_ = std::max(static_cast<double>(f.mtu), static_cast<double>(line_.bytes_in(t_).count()));
    w_ai_ = static_cast<double>(p.rate_ai.bps()) * t_s_ / 8;
    w_c_ = w_ = w_init_;
    publish();
  }

  void on_sent(Time, int) override { ++sent_; }

  void on_ack(Time, const AckInfo& a) override {
    if (a.int_hops == 0) {
      return;
    }
    if (have_prev_ && prev_hops_ == a.int_hops) {
      double umax = 0, tau = t_s_;
      for (int j = 0; j < a.int_hops; ++j) {
        const IntHop& h = a.telemetry[j];
        const IntHop& o = prev_[j];
        const double dt = (h.ts - o.ts).sec_f();
        if (dt <= 0) {
          continue;
        }
        const double b = static_cast<double>(h.rate_mbps) * 1e6;
        const double tx_rate = static_cast<double>(h.tx_bytes - o.tx_bytes) * 8 / dt;
        const double u = tx_rate / b + static_cast<double>(std::min(h.qlen, o.qlen)) * 8 / (b * t_s_);
        if (u > umax) {
          umax = u;
          tau = std::min(dt, t_s_);
        }
      }
      u_ = (u_ * (t_s_ - tau) + umax * tau) / t_s_;
      update_window(a.acked_packets);
    }
    std::copy(a.telemetry, a.telemetry + a.int_hops, prev_);
    prev_hops_ = a.int_hops;
    have_prev_ = true;
  }

  double utilisation() const { return u_; }

 private:
  void update_window(int64_t acked_packets) {
    const bool commit = acked_packets > last_update_;
    double w;
    int64_t stage = inc_stage_;
    if (u_ / p_.eta >= 1 || inc_stage_ >= p_.max_stage) {
      w = w_c_ / std::max(u_ / p_.eta, 1e-9) + w_ai_;
      stage = 0;
    } else {
      w = w_c_ + w_ai_;
      ++stage;
    }
    w_ = std::clamp(w, static_cast<double>(p_.min_rate.bps()) * t_s_ / 8, w_init_);
    if (commit) {
      w_c_ = w_;
      inc_stage_ = stage;
      last_update_ = sent_;
    }
    publish();
  }

  void publish() {
    window = window_mode_ == kVaryingWindow ? static_cast<int64_t>(w_)
             : window_mode_ == kFixedWindow ? static_cast<int64_t>(w_init_)
                                            : 0;
    rate = Rate::bps(std::clamp<int64_t>(std::llround(w_ * 8 / t_s_), p_.min_rate.bps(), line_.bps()));
  }

  enum WindowMode { kVaryingWindow, kFixedWindow, kNoWindow };
  HpccParams p_;
  Rate line_;
  Time t_;
  WindowMode window_mode_;
  double t_s_ = 0;
  double w_init_ = 0, w_ai_ = 0, w_c_ = 0, w_ = 0;
  double u_ = 0;
  int64_t inc_stage_ = 0;
  int64_t sent_ = 0, last_update_ = 0;
  IntHop prev_[kMaxIntHops];
  int prev_hops_ = 0;
  bool have_prev_ = false;
};

}  // namespace

static CcEntry cc_hpcc() { return params_cc_entry<HpccParams, Hpcc, true>("hpcc", "in-band telemetry"); }

namespace {
// Registered before main (core/registry.hpp).
const Registrar<CcFactory> cc_hpcc_registered(cc_registry(), cc_hpcc());
}  // namespace

}  // namespace rocesim

// DCTCP-style window control for RDMA (Alizadeh et al., SIGCOMM 2010), for comparison with DCQCN and HPCC.
// The switch marks at a single threshold K (set switch.ecn.kmin = kmax = K, pmax = 1; the HPCC simulator uses
// K = 30 x bw/10 KB: alibaba-edu/High-Precision-Congestion-Control simulation/run.py, --cc dctcp). The
// receiver echoes how many of the packets an ACK covers arrived CE.
// Per window of data (one round):
//   at the round's end: alpha = (1 - g) alpha + g F      F = marked / acknowledged packets in the round
//   if any mark in the round: W = max(mtu, W (1 - alpha/2))       at most once per round
//   else, per ACK:            W = min(W_max, W + mtu x newly acked / W)   (one MTU per round)
// W starts at, and never exceeds, the flow's bandwidth-delay product (line rate x base RTT). The QP is paced at
// line rate; the window limits the bytes in flight.
#include "rocesim/cc/cc.hpp"

namespace rocesim {
namespace {

struct DctcpParams {
  double g = 0;
  double initial_alpha = 0;
  static const Schema<DctcpParams>& schema() {
    static const Schema<DctcpParams> s = [] {
      Schema<DctcpParams> sc("cc dctcp", "DCTCP window control on ECN echo");
      sc.reserved("type", "dctcp")
          .add(&DctcpParams::g, "g", "0.0625", "alpha gain (HPCC simulator DCTCP setting 1/16)", in_range(0.0, 1.0))
          .add(&DctcpParams::initial_alpha, "initial_alpha", "1", "alpha before the first round ends",
               in_range(0.0, 1.0));
      return sc;
    }();
    return s;
  }
};

class Dctcp final : public CongestionControl {
 public:
  Dctcp(const DctcpParams& p, const CcFlowInfo& f) : p_(p), mtu_(static_cast<double>(f.mtu)), alpha_(p.initial_alpha) {
    rate = f.line_rate;
    w_max_ = std::max(mtu_, static_cast<double>(f.line_rate.bytes_in(f.base_rtt).count()));
    w_ = w_max_;
    publish();
  }

  void on_sent(Time, int) override { ++sent_; }

  void on_ack(Time, const AckInfo& a) override {
    if (round_end_ == 0) {
      round_end_ = sent_;  // the first round: everything sent before the first ACK
    }
    round_pkts_ += a.packets;
    round_ce_ += a.ce_packets;
    if (a.acked_packets >= round_end_) {  // every packet sent when the round began is acknowledged
      const double f = round_pkts_ > 0 ? static_cast<double>(round_ce_) / static_cast<double>(round_pkts_) : 0.0;
      alpha_ = (1 - p_.g) * alpha_ + p_.g * f;
      round_pkts_ = round_ce_ = 0;
      round_end_ = sent_;
      cut_this_round_ = false;
    }
    if (a.ce_packets > 0) {
      if (!cut_this_round_) {
        cut_this_round_ = true;
        w_ = std::max(mtu_, w_ * (1 - alpha_ / 2));
      }
    } else if (!cut_this_round_) {
      w_ = std::min(w_max_, w_ + mtu_ * static_cast<double>(a.newly_acked) / w_);
    }
    publish();
  }

  double alpha() const { return alpha_; }

 private:
  void publish() { window = static_cast<int64_t>(w_); }
  DctcpParams p_;
  double mtu_;
  double alpha_;
  double w_ = 0, w_max_ = 0;
  int64_t sent_ = 0, round_end_ = 0;
  int64_t round_pkts_ = 0, round_ce_ = 0;
  bool cut_this_round_ = false;
};

}  // namespace

static CcEntry cc_dctcp() { return params_cc_entry<DctcpParams, Dctcp>("dctcp", "window on ECN echo"); }

namespace {
// Registered before main (core/registry.hpp).
const Registrar<CcFactory> cc_dctcp_registered(cc_registry(), cc_dctcp());
}  // namespace

}  // namespace rocesim

// TIMELY (Mittal et al., "TIMELY: RTT-based Congestion Control for the Datacenter", SIGCOMM 2015): a rate set
// from RTT samples, as the HPCC simulator implements it (alibaba-edu/High-Precision-Congestion-Control
// simulation/src/point-to-point/model/rdma-hw.cc, UpdateRateTimely, with its attribute defaults; CC_MODE 7).
// Once per round (an ACK for data sent after the previous update), with `rtt` the ACK's sample (now minus the
// send time of the packet it answers):
//   diff     = (1 - alpha) diff + alpha (rtt - previous rtt);   gradient = diff / min_rtt
//   rtt < t_low:    R = R + step          t_high < rtt:   R = R (1 - beta (1 - t_high / rtt))
//   gradient <= 0:  R = R + step          otherwise:      R = R max(0, 1 - beta gradient)
// where step is rate_ai, or rate_hai once five increases came in a row (hyper-active increase); R stays within
// [min_rate, line rate]. The first round only records its RTT. Paced at R, with no window.
#include <algorithm>

#include "rocesim/cc/cc.hpp"

namespace rocesim {
namespace {

struct TimelyParams {
  double alpha = 0;
  double beta = 0;
  Time t_low, t_high, min_rtt;
  Rate rate_ai, rate_hai, min_rate;
  int64_t hai_after = 0;
  static const Schema<TimelyParams>& schema() {
    static const Schema<TimelyParams> s = [] {
      Schema<TimelyParams> sc("cc timely", "TIMELY: rate from RTT gradients");
      sc.reserved("type", "timely")
          .add(&TimelyParams::alpha, "alpha", "0.875", "EWMA weight of a new RTT difference (paper, HPCC simulator)",
               in_range(0.0, 1.0))
          .add(&TimelyParams::beta, "beta", "0.8", "multiplicative decrease factor (paper, HPCC simulator)",
               in_range(0.0, 1.0))
          .add(&TimelyParams::t_low, "t_low", "50us", "below this RTT the rate always increases", at_least(Time()))
          .add(&TimelyParams::t_high, "t_high", "500us", "above this RTT the rate always decreases",
               at_least(Time::ps(1)))
          .add(&TimelyParams::min_rtt, "min_rtt", "20us", "the RTT gradient's normaliser", at_least(Time::ps(1)))
          .add(&TimelyParams::rate_ai, "rate_ai", "100Mbps",
               "additive step delta (HPCC simulator run.py at 100G: 10 x bw/10 Mb/s)")
          .add(&TimelyParams::rate_hai, "rate_hai", "500Mbps",
               "hyper-active step after hai_after increases in a row (run.py at 100G: 50 x bw/10 Mb/s)")
          .add(&TimelyParams::min_rate, "min_rate", "1000Mbps", "the rate never falls below this (run.py MIN_RATE)")
          .add(&TimelyParams::hai_after, "hai_after", "5", "increases in a row before the hyper-active step (N)",
               in_range<int64_t>(1, 1000000));
      return sc;
    }();
    return s;
  }
};

class Timely final : public CongestionControl {
 public:
  Timely(const TimelyParams& p, const CcFlowInfo& f) : p_(p), line_(f.line_rate) {
    rate = line_;
    r_ = static_cast<double>(line_.bps());
  }

  void on_sent(Time, int) override { ++sent_; }

  void on_ack(Time, const AckInfo& a) override {
    if (a.acked_packets <= round_end_ && round_end_ > 0) {
      return;  // feedback on data sent before the last update: that round is already counted
    }
    const double rtt = static_cast<double>(a.rtt.ps());
    if (round_end_ > 0) {
      diff_ = (1 - p_.alpha) * diff_ + p_.alpha * (rtt - prev_rtt_);
      const double gradient = diff_ / static_cast<double>(p_.min_rtt.ps());
      const auto t_low = static_cast<double>(p_.t_low.ps()), t_high = static_cast<double>(p_.t_high.ps());
      if (rtt < t_low || (rtt <= t_high && gradient <= 0)) {
        r_ += static_cast<double>((increases_ < p_.hai_after ? p_.rate_ai : p_.rate_hai).bps());
        ++increases_;
      } else {
        const double c = rtt > t_high ? 1 - p_.beta * (1 - t_high / rtt) : std::max(0.0, 1 - p_.beta * gradient);
        r_ *= c;
        increases_ = 0;
      }
      // Line rate first: a min_rate above it (a slow link) wins, as that simulator's max(m_minRate, ...) does.
      r_ = std::max(std::min(r_, static_cast<double>(line_.bps())), static_cast<double>(p_.min_rate.bps()));
      rate = Rate::bps(static_cast<int64_t>(r_));
    }
    prev_rtt_ = rtt;
    round_end_ = std::max<int64_t>(sent_, 1);
  }

 private:
  TimelyParams p_;
  Rate line_;
  double r_ = 0;
  double diff_ = 0;
  double prev_rtt_ = 0;
  int64_t increases_ = 0;
  int64_t sent_ = 0, round_end_ = 0;  // packets sent; and when the current round's update was made
};

}  // namespace

static CcEntry cc_timely() {
  return params_cc_entry<TimelyParams, Timely>("timely", "rate from RTT gradients (TIMELY)");
}

namespace {
// Registered before main (core/registry.hpp).
const Registrar<CcFactory> cc_timely_registered(cc_registry(), cc_timely());
}  // namespace

}  // namespace rocesim

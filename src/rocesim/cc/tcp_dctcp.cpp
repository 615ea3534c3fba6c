// DCTCP (RFC 8257): the switch marks CE above a threshold K and the receiver echoes each segment's mark. Once
// per window of data the sender updates
//   alpha = (1 - g) alpha + g F          F = bytes acknowledged with ECN-Echo / bytes acknowledged
// and on the first ECN-Echo of a window reduces cwnd = cwnd (1 - alpha / 2) (Linux tcp_dctcp.c: ssthresh then
// cwnd). Growth is Reno's; a loss halves the window.
#include "rocesim/cc/tcp_cc.hpp"

namespace rocesim {
namespace {

struct TcpDctcpParams {
  double g = 0;
  double initial_alpha = 0;
  static const Schema<TcpDctcpParams>& schema() {
    static const Schema<TcpDctcpParams> s = [] {
      Schema<TcpDctcpParams> sc("tcp cc dctcp", "DCTCP");
      sc.reserved("type", "dctcp")
          .add(&TcpDctcpParams::g, "g", "0.0625", "alpha gain (RFC 8257 4.2: 1/16; Linux dctcp_shift_g 4)",
               in_range(0.0, 1.0))
          .add(&TcpDctcpParams::initial_alpha, "initial_alpha", "1",
               "alpha before the first window ends (Linux dctcp_alpha_on_init 1024 of 1024)", in_range(0.0, 1.0));
      return sc;
    }();
    return s;
  }
};

class TcpDctcp final : public TcpCongestion {
 public:
  explicit TcpDctcp(const TcpDctcpParams& p) : p_(p), alpha_(p.initial_alpha) {}
  void on_ack(TcpWindow& w, const TcpAck& a) override {
    acked_ += a.acked;
    ece_ += a.ece_acked;
    if (a.una >= window_end_) {
      if (acked_ > 0) {
        alpha_ = (1 - p_.g) * alpha_ + p_.g * ece_ / acked_;
      }
      acked_ = ece_ = 0;
      window_end_ = a.nxt;
    }
    if (!a.cwnd_limited) {
      return;
    }
    const double left = w.cwnd < w.ssthresh ? w.slow_start(a.acked) : a.acked;
    w.cwnd += w.mss * left / w.cwnd;
  }
  void on_ece(TcpWindow& w, double, Time) override {
    w.ssthresh = std::max(w.cwnd * (1 - alpha_ / 2), 2 * w.mss);
    w.cwnd = w.ssthresh;
  }
  void on_congestion(TcpWindow& w, double flight, Time) override {
    w.ssthresh = std::max(flight / 2, 2 * w.mss);
    w.cwnd = w.ssthresh;
  }

 private:
  TcpDctcpParams p_;
  double alpha_;
  double acked_ = 0, ece_ = 0;
  int64_t window_end_ = 0;
};

}  // namespace

static TcpCcEntry tcp_cc_dctcp() {
  return tcp_cc_entry<TcpDctcpParams, TcpDctcp, true>("dctcp", "DCTCP: cut in proportion to ECN marks");
}

namespace {
// Registered before main (core/registry.hpp).
const Registrar<TcpCcFactory> tcp_cc_dctcp_registered(tcp_cc_registry(), tcp_cc_dctcp());
}  // namespace

}  // namespace rocesim

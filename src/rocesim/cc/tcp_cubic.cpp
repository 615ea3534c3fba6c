// CUBIC (RFC 9438), the Linux default, in segments and seconds since the last reduction (t):
//   K = cbrt(W_max (1 - beta) / C)          W_cubic(t) = C (t - K)^3 + W_max
// per ACK in congestion avoidance cwnd moves towards W_cubic(t + RTT), at most to 1.5 cwnd, and never below the
// Reno-friendly estimate W_est, which grows by 3 (1 - beta) / (1 + beta) segments per window. On a loss:
// W_max = cwnd (or cwnd (1 + beta) / 2 if it is below the previous W_max: fast convergence), cwnd = beta cwnd.
#include <cmath>

#include "rocesim/cc/tcp_cc.hpp"

namespace rocesim {
namespace {

struct CubicParams {
  double c = 0;
  double beta = 0;
  bool fast_convergence = true;
  static const Schema<CubicParams>& schema() {
    static const Schema<CubicParams> s = [] {
      Schema<CubicParams> sc("tcp cc cubic", "CUBIC");
      sc.reserved("type", "cubic")
          .add(&CubicParams::c, "c", "0.4", "the cubic's scale (RFC 9438 4.2)", in_range(0.01, 10.0), "segments/s^3")
          .add(&CubicParams::beta, "beta", "0.7", "window kept after a loss (RFC 9438 4.6)", in_range(0.1, 0.95))
          .add(&CubicParams::fast_convergence, "fast_convergence", "true",
               "lower W_max when a loss comes below the previous one (RFC 9438 4.7)");
      return sc;
    }();
    return s;
  }
};

class Cubic final : public TcpCongestion {
 public:
  explicit Cubic(const CubicParams& p) : p_(p) {}
  void on_ack(TcpWindow& w, const TcpAck& a) override {
    if (!a.cwnd_limited) {
      return;
    }
    double left = a.acked;
    if (w.cwnd < w.ssthresh) {
      left = w.slow_start(a.acked);
      if (left <= 0) {
        return;
      }
    }
    const double cwnd = w.cwnd / w.mss, segs = left / w.mss;
    if (!epoch_) {
      epoch_ = true;
      epoch_start_ = a.now;
      if (cwnd < w_max_) {
        k_ = std::cbrt((w_max_ - cwnd) / p_.c);
        origin_ = w_max_;
      } else {
        k_ = 0;
        origin_ = cwnd;
      }
      w_est_ = cwnd;
    }
    const double t = (a.now - epoch_start_ + a.srtt).sec_f();
    const double target = std::clamp(origin_ + p_.c * std::pow(t - k_, 3), cwnd, 1.5 * cwnd);
    double next = cwnd + (target - cwnd) / cwnd * segs;
    w_est_ += 3 * (1 - p_.beta) / (1 + p_.beta) * segs / cwnd;
    next = std::max(next, w_est_);
    w.cwnd = next * w.mss;
  }
  void on_congestion(TcpWindow& w, double, Time) override {
    const double cwnd = w.cwnd / w.mss;
    w_max_ = p_.fast_convergence && cwnd < w_max_ ? cwnd * (1 + p_.beta) / 2 : cwnd;
    epoch_ = false;
    w.ssthresh = std::max(w.cwnd * p_.beta, 2 * w.mss);
    w.cwnd = w.ssthresh;
  }
  void on_rto(TcpWindow& w, double flight, Time now) override {
    on_congestion(w, flight, now);
    w.cwnd = w.mss;
  }

 private:
  CubicParams p_;
  bool epoch_ = false;
  Time epoch_start_;
  double w_max_ = 0, k_ = 0, origin_ = 0, w_est_ = 0;
};

}  // namespace

static TcpCcEntry tcp_cc_cubic() { return tcp_cc_entry<CubicParams, Cubic>("cubic", "CUBIC, the Linux default"); }

namespace {
// Registered before main (core/registry.hpp).
const Registrar<TcpCcFactory> tcp_cc_cubic_registered(tcp_cc_registry(), tcp_cc_cubic());
}  // namespace

}  // namespace rocesim

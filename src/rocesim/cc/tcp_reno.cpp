// TCP NewReno (RFC 5681, RFC 6582): slow start, then one MSS of growth per window of data acknowledged
// (cwnd += MSS x acked / cwnd); a loss or an ECN echo halves the window (ssthresh = max(flight / 2, 2 MSS)).
#include "rocesim/cc/tcp_cc.hpp"

namespace rocesim {
namespace {

struct RenoParams {
  static const Schema<RenoParams>& schema() {
    static const Schema<RenoParams> s = [] {
      Schema<RenoParams> sc("tcp cc reno", "TCP NewReno");
      sc.reserved("type", "reno");
      return sc;
    }();
    return s;
  }
};

class Reno final : public TcpCongestion {
 public:
  explicit Reno(const RenoParams&) {}
  void on_ack(TcpWindow& w, const TcpAck& a) override {
    if (!a.cwnd_limited) {
      return;
    }
    const double left = w.cwnd < w.ssthresh ? w.slow_start(a.acked) : a.acked;
    w.cwnd += w.mss * left / w.cwnd;
  }
  void on_congestion(TcpWindow& w, double flight, Time) override {
    w.ssthresh = std::max(flight / 2, 2 * w.mss);
    w.cwnd = w.ssthresh;
  }
};

}  // namespace

static TcpCcEntry tcp_cc_reno() { return tcp_cc_entry<RenoParams, Reno>("reno", "NewReno: halve on loss"); }

namespace {
// Registered before main (core/registry.hpp).
const Registrar<TcpCcFactory> tcp_cc_reno_registered(tcp_cc_registry(), tcp_cc_reno());
}  // namespace

}  // namespace rocesim

// InfiniBand congestion control (IBTA Architecture Specification vol 1, annex A10 "Congestion Control"), the
// channel adapter's part, per queue pair (A10's QP-based mode). A switch port above its threshold marks FECN on
// the packets it forwards (in rocesim: the ECN marker, `switch.ecn`); the destination returns a BECN for every
// marked packet (a congestion notification packet); the source reacts:
//   on a BECN:              CCTI = min(CCTI + ccti_increase, ccti_limit); the CCTI timer starts if it is not running
//   every ccti_timer:       CCTI = CCTI - 1 while CCTI > ccti_min (the timer stops at ccti_min)
//   between packets:        the inter-packet delay of congestion control table entry CCTI
// as the Linux hfi1 driver runs it (drivers/infiniband/hw/hfi1: process_becn and cca_timer_fn; set_link_ipg: the
// delay is a CCT entry's 14-bit multiplier times the largest packet's transmission time shifted right by its 2-bit
// shift, i.e. multiplier / 2^shift packet times). rocesim's table is linear, entry i delaying i x ipd_step packet
// times, and a delay of d packet times paces the QP at line rate / (1 + d): exact for full-size packets.
// The IBTA leaves the values to the subnet manager; the defaults are rocesim's (docs/model.md, "InfiniBand
// congestion control", says how they were chosen).
#include <algorithm>
#include <memory>

#include "rocesim/cc/cc.hpp"

namespace rocesim {
namespace {

struct IbCcaParams {
  int64_t ccti_increase = 0;
  Time ccti_timer;
  int64_t ccti_limit = 0;
  int64_t ccti_min = 0;
  double ipd_step = 0;
  static const Schema<IbCcaParams>& schema() {
    static const Schema<IbCcaParams> s = [] {
      Schema<IbCcaParams> sc("cc ib-cca", "InfiniBand congestion control (IBTA annex A10): FECN, BECN, CCT index");
      sc.reserved("type", "ib-cca")
          .add(&IbCcaParams::ccti_increase, "ccti_increase", "1", "CCT index added per BECN (CACongestionSetting)",
               in_range<int64_t>(1, 255))
          .add(&IbCcaParams::ccti_timer, "ccti_timer", "2.048us",
               "the CCT index falls by one per this period (CACongestionSetting CCTI_Timer, in units of 1.024 us)",
               at_least(Time::ns(1)))
          .add(&IbCcaParams::ccti_limit, "ccti_limit", "1023", "largest CCT index: the table's last entry",
               in_range<int64_t>(1, 16383))
          .add(&IbCcaParams::ccti_min, "ccti_min", "0", "the timer never takes the CCT index below this",
               in_range<int64_t>(0, 16383))
          .add(&IbCcaParams::ipd_step, "ipd_step", "0.125",
               "inter-packet delay of CCT entry i: i x this, in largest-packet times (multiplier 1, shift 3)",
               in_range(0.0, 2048.0))
          .validate([](const IbCcaParams& p) -> std::optional<std::pair<std::string, std::string>> {
            if (p.ccti_min > p.ccti_limit) {
              return std::make_pair("ccti_min", "ccti_min (" + std::to_string(p.ccti_min) + ") is above ccti_limit (" +
                                                    std::to_string(p.ccti_limit) + "): the index has no range");
            }
            return std::nullopt;
          });
      return sc;
    }();
    return s;
  }
};

class IbCca final : public CongestionControl {
 public:
  IbCca(const IbCcaParams& p, Rate line, CcTimers& timers) : p_(p), line_(line), timers_(timers) {
    ccti_ = std::min(p_.ccti_min, p_.ccti_limit);
    publish();
  }

  void on_cnp(Time now) override {
    ccti_ = std::min(ccti_ + p_.ccti_increase, p_.ccti_limit);
    publish();
    if (!timer_running_) {
      timer_running_ = true;
      timers_.arm(this, now + p_.ccti_timer, 0);
    }
  }

  void on_timer(Time now, uint32_t) override {
    if (ccti_ > p_.ccti_min) {
      --ccti_;
      publish();
    }
    timer_running_ = ccti_ > p_.ccti_min;
    if (timer_running_) {
      timers_.arm(this, now + p_.ccti_timer, 0);
    }
  }

 private:
  void publish() {
    const double ipd = static_cast<double>(ccti_) * p_.ipd_step;
    rate = Rate::bps(std::max<int64_t>(1, static_cast<int64_t>(static_cast<double>(line_.bps()) / (1 + ipd))));
  }

  IbCcaParams p_;
  Rate line_;
  CcTimers& timers_;
  int64_t ccti_ = 0;
  bool timer_running_ = false;  // one timer at a time: it re-arms itself until the index is back at its minimum
};

class IbCcaAlgorithm final : public ConfiguredAlgorithm<CcAlgorithm, IbCcaParams> {
 public:
  using ConfiguredAlgorithm::ConfiguredAlgorithm;
  std::unique_ptr<CongestionControl> make(const CcFlowInfo& flow, CcTimers& timers) const override {
    return std::make_unique<IbCca>(params(), flow.line_rate, timers);
  }
  // A10: the destination returns a BECN for every packet that arrives with FECN.
  std::optional<Time> cnp_interval() const override { return Time(); }
};

}  // namespace

static CcEntry cc_ib_cca() {
  return configured_entry<CcFactory, IbCcaAlgorithm, IbCcaParams>(
      "ib-cca", "InfiniBand congestion control (IBTA annex A10): BECNs raise a CCT index that sets the packet gap");
}

namespace {
// Registered before main (core/registry.hpp).
const Registrar<CcFactory> cc_ib_cca_registered(cc_registry(), cc_ib_cca());
}  // namespace

}  // namespace rocesim

// RED-like ECN marking (p(t) of the DCQCN fluid model, figure "DCQCN fluid model" of Zhu et al., "ECN or Delay:
// Lessons Learnt from Analysis of DCQCN and TIMELY", CoNEXT 2016): probability 0 at or below Kmin, rising
// linearly to Pmax at Kmax, and 1 above Kmax. Default thresholds are NVIDIA Onyx `roce lossless` and Cumulus
// RoCE (150 KB / 1500 KB; Onyx user manual "RoCE Commands", Cumulus Linux "RDMA over Converged Ethernet -
// RoCE"); default Pmax 0.2 is the HPCC paper's DCQCN setting (alibaba-edu/High-Precision-Congestion-Control
// simulation/run.py, --cc dcqcn).

#include "rocesim/switch/ecn.hpp"

namespace rocesim {
namespace {

class RedMarker final : public EcnMarker {
 public:
  explicit RedMarker(const EcnParams& p) : p_(p) {}
  Bytes silent_up_to() const override { return p_.kmin; }
  double probability(Bytes q) const override {
    if (q <= p_.kmin) {
      return 0.0;
    }
    if (q > p_.kmax) {
      return 1.0;
    }
    return p_.pmax * static_cast<double>((q - p_.kmin).count()) / static_cast<double>((p_.kmax - p_.kmin).count());
  }

 private:
  EcnParams p_;
};

}  // namespace

static EcnEntry red_ecn() {
  return {"red",
          "Kmin/Kmax/Pmax",
          [](const EcnParams& p) -> std::unique_ptr<EcnMarker> { return std::make_unique<RedMarker>(p); },
          {}};
}

namespace {
// Registered before main (core/registry.hpp).
const Registrar<EcnFactory> red_ecn_registered(ecn_registry(), red_ecn());
}  // namespace

}  // namespace rocesim

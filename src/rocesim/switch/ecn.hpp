// ECN marking at a switch egress queue (the congestion point of DCQCN).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "rocesim/core/params.hpp"
#include "rocesim/core/registry.hpp"
#include "rocesim/core/rng.hpp"
#include "rocesim/core/units.hpp"

namespace rocesim {

struct EcnParams {
  std::string type;
  Bytes kmin;
  Bytes kmax;
  double pmax = 0;
  std::string at;       // "enqueue" or "dequeue" (Fast ECN)
  std::string by_rate;  // per-link-rate thresholds overriding kmin/kmax/pmax: "100Gbps 400KB 1600KB 0.2; ..."
  static const Schema<EcnParams>& schema();
  // The marking parameters of a port of this rate.
  EcnParams for_rate(Rate r) const;
};

struct EcnRateEntry {
  Rate rate;
  Bytes kmin, kmax;
  double pmax = 0;
};
// Parses "RATE KMIN KMAX PMAX; ..." (throws UnitError).
std::vector<EcnRateEntry> parse_ecn_by_rate(const std::string& s);

// Decides whether a packet leaving or joining an egress queue of depth `queue` gets CE.
// Contract: pure apart from drawing from `rng`; `queue` excludes the packet being decided on. probability() is 0
// for every depth up to silent_up_to(), so that a switch can skip the call (and the marker's memory) below it.
class EcnMarker {
 public:
  virtual ~EcnMarker() = default;
  virtual double probability(Bytes queue) const = 0;
  virtual Bytes silent_up_to() const = 0;
  bool mark(Bytes queue, Rng& rng) const {
    const double p = probability(queue);
    return p >= 1.0 || (p > 0.0 && rng.uniform() < p);
  }
};

// Marking curves, one file each, registered once (`switch.ecn.type`; parameters are the ecn section's). A
// factory may return nullptr: no marking.
using EcnFactory = std::function<std::unique_ptr<EcnMarker>(const EcnParams&)>;
using EcnEntry = Registered<EcnFactory>;
// Filled by the implementations' own files (core/registry.hpp).
Registry<EcnFactory>& ecn_registry();

std::unique_ptr<EcnMarker> make_ecn_marker(const EcnParams& p);
// InfiniBand's FECN marking (IBTA vol 1 annex A10.2.1): above `threshold` a packet is marked with probability
// 1 / (marking_rate + 1), a mean of `marking_rate` unmarked packets between marks. Not a `switch.ecn.type`: the
// fabric selects it (switch/ecn_fecn.cpp).
std::unique_ptr<EcnMarker> make_fecn_marker(Bytes threshold, int64_t marking_rate);

}  // namespace rocesim

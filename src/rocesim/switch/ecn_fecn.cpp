// InfiniBand congestion marking (IBTA vol 1 annex A10.2.1): a port is congested on a VL when its queue there
// exceeds the switch's threshold, and marks FECN on packets then, Marking_Rate packets apart on average.
#include "rocesim/switch/ecn.hpp"

namespace rocesim {
namespace {

class FecnMarker final : public EcnMarker {
 public:
  FecnMarker(Bytes threshold, int64_t marking_rate)
      : threshold_(threshold), p_(1.0 / static_cast<double>(marking_rate + 1)) {}
  double probability(Bytes queue) const override { return queue > threshold_ ? p_ : 0.0; }
  Bytes silent_up_to() const override { return threshold_; }

 private:
  Bytes threshold_;
  double p_;
};

}  // namespace

std::unique_ptr<EcnMarker> make_fecn_marker(Bytes threshold, int64_t marking_rate) {
  return std::make_unique<FecnMarker>(threshold, marking_rate);
}

}  // namespace rocesim

// Flowlet switching: a flow's packets keep the next hop of its current flowlet, and a packet that follows an idle
// gap longer than `gap` starts a new flowlet on a next hop drawn at random (LetFlow: Vanini et al., "Let It Flow:
// Resilient Asymmetric Load Balancing with Flowlet Switching", NSDI 2017; the flowlet table of CONGA, Alizadeh et
// al., SIGCOMM 2014, section 4). A gap longer than the paths' delay difference keeps a flow's packets in order.
// As in those switches' tables, flows are found by their hash's slot without a tag: two flows in one slot share
// its flowlet.
#include <vector>

#include "rocesim/core/rng.hpp"
#include "rocesim/switch/balance.hpp"
#include "rocesim/switch/ecmp.hpp"

namespace rocesim {
namespace {

struct FlowletParams {
  Time gap;
  int64_t table = 0;
  static const Schema<FlowletParams>& schema() {
    static const Schema<FlowletParams> s = [] {
      Schema<FlowletParams> sc("balance flowlet", "a next hop per flowlet");
      sc.reserved("type", "flowlet")
          .add(&FlowletParams::gap, "gap", "50us",
               "an idle time after which a flow's next packet may take another next hop (CONGA's and LetFlow's "
               "flowlet timeout, 500 us in their 10/40G evaluations; it must exceed the difference of the paths' "
               "delays, queues included, or the flow's packets arrive out of order)",
               at_least(Time::ps(1)))
          .add(&FlowletParams::table, "table", "4096",
               "flowlet table slots per switch (CONGA's has 64K); flows whose hash falls in one slot share it",
               in_range<int64_t>(1, int64_t{1} << 20));
      return sc;
    }();
    return s;
  }
};

class Flowlets final : public LoadBalancer {
 public:
  Flowlets(const FlowletParams& p, const BalancerInit& init)
      : gap_(p.gap), seed_(init.hash_seed), rng_(init.rng_seed, "balance.flowlet"), slots_(p.table) {}
  uint32_t pick(const Packet& p, uint32_t, const uint16_t* ports, uint32_t n, Time now, const PortLoad&) override {
    const uint64_t h = ecmp_hash(p, seed_);
    Slot& s = slots_[ecmp_pick(h, static_cast<uint32_t>(slots_.size()))];
    if (s.used && now - s.last <= gap_) {
      for (uint32_t i = 0; i < n; ++i) {
        if (ports[i] == s.port) {
          s.last = now;
          return i;
        }
      }
    }
    const auto i = static_cast<uint32_t>(rng_.below(n));
    s = Slot{now, ports[i], true};
    return i;
  }

 private:
  struct Slot {
    Time last;
    uint16_t port = 0;
    bool used = false;
  };
  Time gap_;
  uint64_t seed_;
  Rng rng_;
  std::vector<Slot> slots_;
};

class FlowletBalance final : public ConfiguredAlgorithm<BalanceAlgorithm, FlowletParams> {
 public:
  using ConfiguredAlgorithm::ConfiguredAlgorithm;
  std::unique_ptr<LoadBalancer> make(const BalancerInit& init) const override {
    return std::make_unique<Flowlets>(params(), init);
  }
  bool per_packet() const override { return true; }
};

const Registrar<BalanceFactory> flowlet_registered(
    balance_registry(), balance_entry<FlowletBalance, FlowletParams>("flowlet", "a next hop per flowlet"));

}  // namespace
}  // namespace rocesim

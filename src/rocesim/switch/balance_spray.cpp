// Packet spraying: every packet takes any of the equal-cost next hops, drawn at random from the switch's own
// stream (random packet spraying, Dixit et al., "On the Impact of Packet Spraying in Data Center Networks",
// INFOCOM 2013) or in turn per next-hop set (round robin). The paths' queues differ, so packets arrive out of
// order; the receiving NIC places them (nic.ooo_placement) or answers the gap with go-back-N.
#include <vector>

#include "rocesim/core/rng.hpp"
#include "rocesim/switch/balance.hpp"

namespace rocesim {
namespace {

struct SprayParams {
  std::string order;
  static const Schema<SprayParams>& schema() {
    static const Schema<SprayParams> s = [] {
      Schema<SprayParams> sc("balance spray", "a next hop per packet");
      sc.reserved("type", "spray")
          .add(&SprayParams::order, "order", "random",
               "random (each packet draws a next hop from the switch's random stream) or "
               "round_robin (each next-hop set hands its hops out in turn)",
               one_of({"random", "round_robin"}));
      return sc;
    }();
    return s;
  }
};

class RandomSpray final : public LoadBalancer {
 public:
  explicit RandomSpray(uint64_t seed) : rng_(seed, "balance.spray") {}
  uint32_t pick(const Packet&, uint32_t, const uint16_t*, uint32_t n, Time, const PortLoad&) override {
    return static_cast<uint32_t>(rng_.below(n));
  }

 private:
  Rng rng_;
};

class RoundRobinSpray final : public LoadBalancer {
 public:
  uint32_t pick(const Packet&, uint32_t set, const uint16_t*, uint32_t n, Time, const PortLoad&) override {
    uint32_t& next = next_[set];
    const uint32_t i = next < n ? next : 0;
    next = i + 1;
    return i;
  }
  void sets_changed(size_t sets) override { next_.assign(sets, 0); }

 private:
  std::vector<uint32_t> next_;  // per next-hop set: the hop the next packet takes
};

class SprayBalance final : public ConfiguredAlgorithm<BalanceAlgorithm, SprayParams> {
 public:
  using ConfiguredAlgorithm::ConfiguredAlgorithm;
  std::unique_ptr<LoadBalancer> make(const BalancerInit& init) const override {
    if (params().order == "round_robin") {
      return std::make_unique<RoundRobinSpray>();
    }
    return std::make_unique<RandomSpray>(init.rng_seed);
  }
  bool per_packet() const override { return true; }
};

const Registrar<BalanceFactory> spray_registered(balance_registry(),
                                                 balance_entry<SprayBalance, SprayParams>("spray",
                                                                                          "a next hop per packet"));

}  // namespace
}  // namespace rocesim

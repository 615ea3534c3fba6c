// Adaptive routing: each packet leaves by the equal-cost next hop whose egress port has the fewest bytes queued
// (all classes, and what is left of the frame on the wire), ties going to the first such hop from the one a hash
// of the packet (its five-tuple and PSN) names, so that equally loaded hops share a flow's packets. This is the decision
// NVIDIA documents for its switches: InfiniBand adaptive routing "enables the switch to select the output port
// based on the port's load" among the ports with minimal hops to the destination (InfiniBand Cluster Bring-up
// Procedure, "Adaptive Routing": the TREE AR groups), and Spectrum's Ethernet adaptive routing selects "forwarding
// paths dynamically based on the state of the switch, such as queue occupancy and port utilization" (Cumulus
// Linux, "Adaptive Routing"). Only the local queues are read: no remote congestion feedback (unlike CONGA).
#include "rocesim/switch/balance.hpp"
#include "rocesim/switch/ecmp.hpp"

namespace rocesim {
namespace {

struct AdaptiveParams {
  static const Schema<AdaptiveParams>& schema() {
    static const Schema<AdaptiveParams> s =
        Schema<AdaptiveParams>("balance adaptive", "the least-loaded next hop per packet").reserved("type", "adaptive");
    return s;
  }
};

class LeastQueued final : public LoadBalancer {
 public:
  explicit LeastQueued(uint64_t seed) : seed_(seed) {}
  uint32_t pick(const Packet& p, uint32_t, const uint16_t* ports, uint32_t n, Time now, const PortLoad& load) override {
    if (n == 1) {
      return 0;
    }
    uint64_t key = ecmp_hash(p, seed_) ^ uint64_t{p.psn} << 32;  // the packet's own hash: ties spread per packet
    const uint32_t first = ecmp_pick(splitmix64(key), n);
    uint32_t best = first;
    int64_t least = load.bytes(ports[first], now);
    for (uint32_t k = 1; k < n && least > 0; ++k) {
      const uint32_t i = first + k < n ? first + k : first + k - n;
      if (const int64_t q = load.bytes(ports[i], now); q < least) {
        least = q;
        best = i;
      }
    }
    return best;
  }

 private:
  uint64_t seed_;
};

class AdaptiveBalance final : public ConfiguredAlgorithm<BalanceAlgorithm, AdaptiveParams> {
 public:
  using ConfiguredAlgorithm::ConfiguredAlgorithm;
  std::unique_ptr<LoadBalancer> make(const BalancerInit& init) const override {
    return std::make_unique<LeastQueued>(init.hash_seed);
  }
  bool per_packet() const override { return true; }
};

const Registrar<BalanceFactory> adaptive_registered(
    balance_registry(),
    balance_entry<AdaptiveBalance, AdaptiveParams>("adaptive", "the least-loaded next hop per packet"));

}  // namespace
}  // namespace rocesim

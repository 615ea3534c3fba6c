// Adaptive routing: each packet leaves by the equal-cost next hop whose egress port has the fewest bytes queued
// (all classes, and what is left of the frame on the wire); among equally loaded hops a hash of the packet (its
// five-tuple and PSN) chooses, so that they share a flow's packets evenly. This is the decision
// NVIDIA documents for its switches: InfiniBand adaptive routing "enables the switch to select the output port
// based on the port's load" among the ports with minimal hops to the destination (InfiniBand Cluster Bring-up
// Procedure, "Adaptive Routing": the TREE AR groups), and Spectrum's Ethernet adaptive routing selects "forwarding
// paths dynamically based on the state of the switch, such as queue occupancy and port utilization" (Cumulus
// Linux, "Adaptive Routing"). Only the local queues are read: no remote congestion feedback (unlike CONGA).
#include <algorithm>
#include <cstdint>

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
    int64_t least = INT64_MAX;
    uint32_t ties = 0;
    for (uint32_t i = 0; i < n; ++i) {
      const int64_t q = load.bytes(ports[i], now);
      ties = q < least ? 1 : ties + (q == least);
      least = std::min(least, q);
    }
    uint64_t key = ecmp_hash(p, seed_) ^ uint64_t { p.psn } << 32;  // the packet's own hash: ties spread per packet
    uint32_t k = ecmp_pick(splitmix64(key), ties);
    for (uint32_t i = 0;; ++i) {
      if (load.bytes(ports[i], now) == least && k-- == 0) {
        return i;
      }
    }
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

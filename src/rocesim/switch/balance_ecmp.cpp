// Per-flow ECMP: every switch hashes a packet's five-tuple onto one of the equal-cost next hops (switch/ecmp.hpp),
// so a flow keeps one path and its packets stay in order (RFC 2992's hash-threshold family).
#include "rocesim/switch/balance.hpp"

namespace rocesim {
namespace {

struct EcmpParams {
  static const Schema<EcmpParams>& schema() {
    static const Schema<EcmpParams> s =
        Schema<EcmpParams>("balance ecmp", "a path per flow, by the five-tuple's hash").reserved("type", "ecmp");
    return s;
  }
};

class EcmpBalance final : public ConfiguredAlgorithm<BalanceAlgorithm, EcmpParams> {
 public:
  using ConfiguredAlgorithm::ConfiguredAlgorithm;
  std::unique_ptr<LoadBalancer> make(const BalancerInit&) const override { return nullptr; }
  bool per_packet() const override { return false; }
};

const Registrar<BalanceFactory> ecmp_registered(balance_registry(),
                                                balance_entry<EcmpBalance, EcmpParams>("ecmp", "a path per flow"));

}  // namespace
}  // namespace rocesim

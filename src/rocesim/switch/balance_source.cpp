// Source routing by entropy: the switches hash as ECMP does, and the sending NIC varies the UDP source port (the
// entropy the hash reads) from packet to packet, as UEC's REPS does (Bonato et al., "REPS: Recycled Entropy
// Packet Spraying for Adaptive Load Balancing and Failure Mitigation", 2024): an entropy whose packet was
// acknowledged without a CE mark is used again, one that came back marked is dropped for a fresh one. The NIC's
// side is the RC transport's (nic/rc_transport.hpp).
#include "rocesim/switch/balance.hpp"

namespace rocesim {
namespace {

struct SourceParams {
  int64_t entropies = 0;
  static const Schema<SourceParams>& schema() {
    static const Schema<SourceParams> s = [] {
      Schema<SourceParams> sc("balance source", "the sending NIC picks each packet's entropy");
      sc.reserved("type", "source")
          .add(&SourceParams::entropies, "entropies", "256",
               "UDP source ports each sending queue pair spreads its packets over: its own and the ones after it",
               in_range<int64_t>(1, 16384));
      return sc;
    }();
    return s;
  }
};

class SourceBalance final : public ConfiguredAlgorithm<BalanceAlgorithm, SourceParams> {
 public:
  using ConfiguredAlgorithm::ConfiguredAlgorithm;
  std::unique_ptr<LoadBalancer> make(const BalancerInit&) const override { return nullptr; }
  bool per_packet() const override { return params().entropies > 1; }
  int entropies() const override { return static_cast<int>(params().entropies); }
};

const Registrar<BalanceFactory> source_registered(
    balance_registry(),
    balance_entry<SourceBalance, SourceParams>("source", "the sending NIC picks each packet's entropy"));

}  // namespace
}  // namespace rocesim

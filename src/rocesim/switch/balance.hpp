// How packets spread over equal-cost paths (`routing.balance`): per flow by the ECMP hash (switch/ecmp.hpp), per
// flowlet, per packet in the switch (spraying, adaptive routing), or per packet by the sending NIC's choice of
// entropy (the UDP source port the switches hash).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "rocesim/core/params.hpp"
#include "rocesim/core/registry.hpp"
#include "rocesim/core/units.hpp"
#include "rocesim/net/packet.hpp"

namespace rocesim {

// What a balancer may read of its switch: the load of each egress port, the bytes queued there (all classes)
// and those of the frame it is still serialising (what adaptive routing compares); INT64_MAX if its link is down.
class PortLoad {
 public:
  virtual int64_t bytes(uint16_t port, Time now) const = 0;

 protected:
  ~PortLoad() = default;
};

// One switch's choice among the next hops of a packet's destination.
// Contract: pick() returns an index into ports[0 .. n), n >= 2 (a set of one port is not asked); `set` numbers the
// next-hop set in the switch's current route table (sets_changed() says how many there are, before the first pick and
// after each new table). It may keep state of its own and draw from its own random stream, and reads nothing of the
// switch but `load`: the same packets at the same times give the same picks, however the run is cut.
class LoadBalancer {
 public:
  virtual ~LoadBalancer() = default;
  virtual uint32_t pick(const Packet& p, uint32_t set, const uint16_t* ports, uint32_t n, Time now,
                        const PortLoad& load) = 0;
  virtual void sets_changed(size_t sets) {}
};

// What the switch learns when a balancer is made for it: its ECMP seed (for hashes and ties), a random stream's
// seed of its own, and its port count.
struct BalancerInit {
  uint64_t hash_seed = 0;
  uint64_t rng_seed = 0;
  size_t ports = 0;
};

// A configured way of balancing, shared by every switch.
class BalanceAlgorithm {
 public:
  virtual ~BalanceAlgorithm() = default;
  // The switch's balancer, or nullptr: the switch hashes each packet's five-tuple (ECMP).
  virtual std::unique_ptr<LoadBalancer> make(const BalancerInit& init) const = 0;
  // Whether packets of one flow may take different paths (and so arrive out of order).
  virtual bool per_packet() const = 0;
  // Entropy values each sending queue pair spreads its packets over (`source`); 0: the queue pair's own port.
  virtual int entropies() const { return 0; }
  virtual nlohmann::json dump() const = 0;
};

// How a scenario's `routing.balance` (a name, or a mapping with `type`) becomes an algorithm.
using BalanceFactory =
    std::function<std::unique_ptr<BalanceAlgorithm>(const YAML::Node& n, const ParseCtx& ctx, const std::string& path)>;
// Filled by the implementations' own files (core/registry.hpp); ecmp when absent.
Registry<BalanceFactory>& balance_registry();
std::unique_ptr<BalanceAlgorithm> parse_balance(const YAML::Node& n, const ParseCtx& ctx, const std::string& path);

// The registry entry of `Algorithm`, a ConfiguredAlgorithm<BalanceAlgorithm, Params> (core/registry.hpp).
template <class Algorithm, class Params>
Registered<BalanceFactory> balance_entry(const char* name, const char* summary) {
  return configured_entry<BalanceFactory, Algorithm, Params>(name, summary);
}

}  // namespace rocesim

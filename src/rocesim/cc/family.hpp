// What the two congestion-control families share: RDMA's (cc.hpp: the reaction point of a queue pair) and TCP's
// (tcp_cc.hpp: the window of a connection).
//
// Their per-flow interfaces stay two because they truly differ. An RDMA controller is the whole of its queue pair's
// reaction: it sets a pacing rate and a window from CNPs, per-ACK feedback (RTT, CE counts, in-band telemetry) and
// its own timers, as a NIC does in hardware. A TCP controller is one piece of a stack that keeps slow start, loss
// recovery and the retransmission timer (RFC 5681, RFC 6675); it only grows cwnd outside recovery and sets
// ssthresh and cwnd when the stack reports a loss, a timeout or an ECN echo. Merging them would give every
// algorithm calls it can never receive.
//
// A configured algorithm and its registration are the same in both and are written once, here.
#pragma once

#include <yaml-cpp/yaml.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "rocesim/core/params.hpp"
#include "rocesim/core/registry.hpp"

namespace rocesim {

// An algorithm of the family `Interface` (CcAlgorithm or TcpCcAlgorithm) configured by `Params`, whose keys
// Params::schema() declares: it keeps its parameters and dumps them under its type name.
// Contract: a derived algorithm is constructible from (Params, type name) and implements the family's `make`; its
// dump() is the schema's dump of its parameters plus `type`, which the run's config.json records.
template <class Interface, class Params>
class ConfiguredAlgorithm : public Interface {
 public:
  ConfiguredAlgorithm(Params p, std::string type) : p_(std::move(p)), type_(std::move(type)) {}
  nlohmann::json dump() const override {
    auto j = Params::schema().dump(p_);
    j["type"] = type_;
    return j;
  }

 protected:
  const Params& params() const { return p_; }

 private:
  Params p_;
  std::string type_;
};

// The registry entry of `Algorithm`, constructed as Algorithm(Params, name) from the parameters the scenario gives
// (core/registry.hpp: `Factory` is the family's factory type, `name` a string that outlives the registry).
template <class Factory, class Algorithm, class Params>
Registered<Factory> configured_entry(const char* name, const char* summary) {
  return {name, summary,
          [name](const YAML::Node& n, const ParseCtx& ctx, const std::string& path) {
            return std::make_unique<Algorithm>(Params::schema().parse(n, ctx, path), name);
          },
          describe_schema<Params>()};
}

}  // namespace rocesim

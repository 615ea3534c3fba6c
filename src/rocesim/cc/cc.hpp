// Congestion control at the sending NIC (the reaction point), one instance per queue pair (family.hpp: why it
// is not TCP's interface).
#pragma once

#include <yaml-cpp/yaml.h>

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "rocesim/cc/family.hpp"
#include "rocesim/core/params.hpp"
#include "rocesim/core/registry.hpp"
#include "rocesim/core/units.hpp"
#include "rocesim/net/packet.hpp"

namespace rocesim {

// What a congestion controller may ask of its queue pair's NIC.
class CcTimers {
 public:
  // Calls on_timer(id) on `cc` at time `at`. Timers cannot be cancelled; a controller ignores stale ones.
  virtual void arm(class CongestionControl* cc, Time at, uint32_t id) = 0;

 protected:
  ~CcTimers() = default;
};

// What an ACK tells the sender's congestion control.
struct AckInfo {
  int64_t acked_bytes = 0;    // payload bytes acknowledged in total
  int64_t newly_acked = 0;    // payload bytes this ACK acknowledged for the first time
  int64_t acked_packets = 0;  // packets (PSNs) acknowledged in total
  int packets = 0;            // data packets it covers
  int ce_packets = 0;         // of those, how many arrived CE-marked
  Time rtt;                   // now minus the send time of the packet it answers
  int int_hops = 0;           // in-band telemetry echoed from that packet (HPCC)
  const IntHop* telemetry = nullptr;
};

// What a congestion controller knows of its flow when it is made.
struct CcFlowInfo {
  Rate line_rate;
  Time base_rtt;  // the flow's round trip on the idle fabric (one full packet out, its ACK back)
  int64_t mtu = 0;
};

// Contract: owned by one queue pair and called only on the simulator's thread. It sets `rate` (the pacing
// rate of the QP, read by the NIC for every packet it sends) and `window` (bytes in flight allowed, 0 = none).
// It holds all of its algorithm's per-QP state; nothing else does.
class CongestionControl {
 public:
  virtual ~CongestionControl() = default;
  Rate rate;
  int64_t window = 0;
  uint32_t owner = 0;  // set by the NIC: which of its QPs this controller belongs to

  virtual void on_start(Time now) {}
  // A CNP arrived for this QP (DCQCN notification point to reaction point).
  virtual void on_cnp(Time now) {}
  // An ACK arrived.
  virtual void on_ack(Time now, const AckInfo& ack) {}
  virtual void on_sent(Time now, int bytes) {}
  virtual void on_timer(Time now, uint32_t id) {}
};

// A configured algorithm: makes per-QP controllers and says how receivers must notify.
class CcAlgorithm {
 public:
  virtual ~CcAlgorithm() = default;
  virtual std::unique_ptr<CongestionControl> make(const CcFlowInfo& flow, CcTimers& timers) const = 0;
  // If true, switches stamp in-band telemetry on data packets and receivers echo it in ACKs.
  virtual bool wants_telemetry() const { return false; }
  // If set, receivers send a CNP for a CE-marked packet at most once per this interval per QP.
  virtual std::optional<Time> cnp_interval() const { return std::nullopt; }
  virtual nlohmann::json dump() const = 0;
};

// An algorithm whose controllers are made from its parameters and the flow alone: `Cc(const Params&, const
// CcFlowInfo&)`, with `Params::schema()` declaring its keys. With `kTelemetry` switches stamp in-band telemetry
// on its data packets (HPCC).
template <class Params, class Cc, bool kTelemetry = false>
class ParamsAlgorithm final : public ConfiguredAlgorithm<CcAlgorithm, Params> {
 public:
  using ConfiguredAlgorithm<CcAlgorithm, Params>::ConfiguredAlgorithm;
  std::unique_ptr<CongestionControl> make(const CcFlowInfo& f, CcTimers&) const override {
    return std::make_unique<Cc>(this->params(), f);
  }
  bool wants_telemetry() const override { return kTelemetry; }
};

// How a scenario's `nic.cc` section (already known to be of this type) becomes an algorithm: `n` is the mapping
// (or an undefined node when only a name was given), `path` the key for messages.
using CcFactory =
    std::function<std::unique_ptr<CcAlgorithm>(const YAML::Node& n, const ParseCtx& ctx, const std::string& path)>;
using CcEntry = Registered<CcFactory>;

// The registry entry of a ParamsAlgorithm, named `name`.
template <class Params, class Cc, bool kTelemetry = false>
CcEntry params_cc_entry(const char* name, const char* doc) {
  return configured_entry<CcFactory, ParamsAlgorithm<Params, Cc, kTelemetry>, Params>(name, doc);
}

// The registry: `nic.cc` is a name, or a mapping with `type`; dcqcn when absent.
// Filled by the implementations' own files (core/registry.hpp).
Registry<CcFactory>& cc_registry();
std::unique_ptr<CcAlgorithm> parse_cc(const YAML::Node& n, const ParseCtx& ctx, const std::string& path);

// Implementations, one file each (cc_dcqcn.cpp registers two presets).

}  // namespace rocesim

// Congestion control of TCP connections (kernel TCP and iWARP's offloaded TCP), one instance per connection.
// The window is in bytes; slow start and loss recovery belong to the stack (nic/tcp.hpp), which calls the
// algorithm for growth outside recovery and for its reaction to a loss, a timeout or an ECN echo (family.hpp: why
// this is not the RDMA interface).
#pragma once

#include <yaml-cpp/yaml.h>

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "rocesim/cc/family.hpp"
#include "rocesim/core/params.hpp"
#include "rocesim/core/registry.hpp"
#include "rocesim/core/units.hpp"

namespace rocesim {

// The window a connection's congestion control sets: cwnd and ssthresh in bytes.
struct TcpWindow {
  double cwnd = 0;
  double ssthresh = 0;
  double mss = 0;
  // RFC 5681 3.1 with appropriate byte counting (RFC 3465, L = 2 SMSS): below ssthresh, one MSS of growth per
  // MSS acknowledged. Returns the bytes left over for congestion avoidance once cwnd reaches ssthresh.
  double slow_start(double acked) {
    const double grow = std::min({acked, 2 * mss, std::max(ssthresh - cwnd, 0.0)});
    cwnd += grow;
    return cwnd >= ssthresh ? acked - grow : 0;
  }
};

// What an ACK that advanced the cumulative acknowledgment outside loss recovery tells the algorithm.
struct TcpAck {
  double acked = 0;      // bytes newly acknowledged
  double ece_acked = 0;  // of those, acknowledged with ECN-Echo
  int64_t una = 0;       // the cumulative acknowledgment after it
  int64_t nxt = 0;       // the next new byte the sender will send
  Time now;
  Time srtt;          // the smoothed round trip (RFC 6298)
  bool cwnd_limited;  // the sender used its whole window since the last ACK (else cwnd does not grow: RFC 7661)
};

// Contract: owned by one connection, called on the simulator's thread; changes only the window it is given.
// on_congestion: fast retransmit found a loss (RFC 6675) or, for an algorithm that does not read ECN itself, an
// ECN echo (RFC 3168 6.1.2): set ssthresh and cwnd for the recovery. on_rto: the retransmission timer expired
// (RFC 5681 3.1: cwnd to the loss window). on_ece: an ACK carried ECN-Echo, at most once per window of data.
class TcpCongestion {
 public:
  virtual ~TcpCongestion() = default;
  virtual void on_ack(TcpWindow& w, const TcpAck& a) = 0;
  virtual void on_congestion(TcpWindow& w, double flight, Time now) = 0;
  virtual void on_rto(TcpWindow& w, double flight, Time now) {
    w.ssthresh = std::max(flight / 2, 2 * w.mss);
    w.cwnd = w.mss;
  }
  virtual void on_ece(TcpWindow& w, double flight, Time now) { on_congestion(w, flight, now); }
};

// A configured algorithm: makes one controller per connection.
class TcpCcAlgorithm {
 public:
  virtual ~TcpCcAlgorithm() = default;
  virtual std::unique_ptr<TcpCongestion> make() const = 0;
  // Its segments are sent ECN-capable (DCTCP needs the marks; the others react to them as to a loss).
  virtual bool wants_ecn() const { return false; }
  virtual nlohmann::json dump() const = 0;
};

using TcpCcFactory =
    std::function<std::unique_ptr<TcpCcAlgorithm>(const YAML::Node& n, const ParseCtx& ctx, const std::string& path)>;
using TcpCcEntry = Registered<TcpCcFactory>;

// An algorithm made from its parameters alone: `Cc(const Params&)`, `Params::schema()` declaring its keys.
template <class Params, class Cc, bool kEcn = false>
class TcpParamsAlgorithm final : public ConfiguredAlgorithm<TcpCcAlgorithm, Params> {
 public:
  using ConfiguredAlgorithm<TcpCcAlgorithm, Params>::ConfiguredAlgorithm;
  std::unique_ptr<TcpCongestion> make() const override { return std::make_unique<Cc>(this->params()); }
  bool wants_ecn() const override { return kEcn; }
};

template <class Params, class Cc, bool kEcn = false>
TcpCcEntry tcp_cc_entry(const char* name, const char* doc) {
  return configured_entry<TcpCcFactory, TcpParamsAlgorithm<Params, Cc, kEcn>, Params>(name, doc);
}

// The registry: `tcp.cc` is a name or a mapping with `type`; cubic (the Linux default) when absent.
// Filled by the implementations' own files (core/registry.hpp).
Registry<TcpCcFactory>& tcp_cc_registry();
std::unique_ptr<TcpCcAlgorithm> parse_tcp_cc(const YAML::Node& n, const ParseCtx& ctx, const std::string& path);

// Implementations, one file each.

}  // namespace rocesim

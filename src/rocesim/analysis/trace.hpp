// trace.json: a timeline in the Chrome trace-event format, which ui.perfetto.dev and chrome://tracing open.
// Each chosen node is a process: a NIC's messages are slices, one track per queue pair (flow), its CNPs and PFC
// frames are instants and its flows' rates are counters; a switch's egress queues are counters and its PFC
// frames instants. Limited to a window of simulated time and a number of events.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "rocesim/cluster/network.hpp"
#include "rocesim/cluster/output.hpp"
#include "rocesim/core/params.hpp"
#include "rocesim/engine/journal.hpp"

namespace rocesim {

struct TraceParams {
  std::string nodes;  // "" : no trace; "all"; or node names, comma-separated
  Time start, stop, interval;
  int64_t max_events = 0;
  static const Schema<TraceParams>& schema();
  bool enabled() const { return !nodes.empty(); }
};

// Contract: only reads the network (taps see frames; sampling reads queues and rates between windows), so a
// traced run gives the same results as an untraced one, and the same trace for every cut.
class Trace final : public Observer, public Output {
 public:
  // Throws InputError (file, output.trace.nodes) for a name that is no node.
  Trace(const TraceParams& p, Engine& engine, Network& net, const std::string& file);
  ~Trace();
  Trace(const Trace&) = delete;
  Trace& operator=(const Trace&) = delete;

  // The trace file: {"traceEvents": [...], "displayTimeUnit": "ns", "otherData": {...}}. Messages (flows.csv
  // rows) are added here, from the flow records as they are at the end of the run.
  std::string json() const;
  // Events left out because max_events was reached.
  int64_t dropped() const { return dropped_; }
  // After the run: takes in the frames the taps saw since the last sample.
  void collect() override;
  OutputFiles files(const OutputContext&) override { return {{"trace.json", json()}}; }
  std::vector<std::string> notes() const override;

  Time look(Time now) override;

 private:
  // Hears the frames one port sends.
  struct PortTap final : FrameTap {
    PortTap(Trace& t, Node& n, uint16_t p, size_t part) : trace(t), node(n), port(p), part(part) {}
    void on_frame(Time start, const Packet& p) override { trace.frame(part, node, port, start, p); }
    Trace& trace;
    Node& node;
    uint16_t port;
    size_t part;  // the node's partition
  };
  struct Traced {
    Node* node;
    std::vector<uint32_t> flows;  // NIC: flows it sends
    std::vector<int64_t> last;    // the last value written of each counter (queue per port x priority, or flow)
  };
  bool in_window(Time t) const { return t >= p_.start && t <= p_.stop; }
  bool room() { return static_cast<int64_t>(events_) < p_.max_events || (++dropped_, false); }
  // A frame's event, kept in the sending node's partition until collected (room() depends on the order).
  void frame(size_t part, const Node& from, uint16_t port, Time start, const Packet& p);
  void sample(Time now);
  // The record of setup flow `id` at its requester's NIC, once it has been posted (else null). The records each
  // NIC gained since the last call are scanned once: a run's sampling stays linear in its flows.
  const FlowRecord* posted_record(uint32_t id);
  void event(const std::string& e);

  TraceParams p_;
  Engine& engine_;
  Network& net_;
  Journal<std::string> frames_;
  std::vector<Traced> traced_;
  std::vector<std::unique_ptr<PortTap>> taps_;
  std::vector<size_t> scanned_;                           // per NIC: its records looked at so far
  std::vector<std::pair<uint32_t, uint32_t>> record_at_;  // per setup flow: NIC and record index (kNone: not yet)
  static constexpr uint32_t kNone = UINT32_MAX;
  std::string out_;  // events so far, each followed by ",\n"
  size_t events_ = 0;
  int64_t dropped_ = 0;
};

}  // namespace rocesim

// Flows (messages) and their results, shared by the NICs at both ends and the output writers.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "rocesim/core/simulator.hpp"
#include "rocesim/core/units.hpp"

namespace rocesim {

// The verbs a flow uses (IBTA vol 1, 9.4): RDMA WRITE and SEND move data from src to dst; RDMA READ moves data
// from dst (the responder) to src (the requester).
enum class RdmaOp : uint8_t { kWrite, kSend, kRead };
const char* to_string(RdmaOp op);
bool parse_op(const std::string& s, RdmaOp& op);

// A flow as a workload asks for it.
struct FlowSpec {
  uint32_t src = 0;
  uint32_t dst = 0;
  Bytes size;
  Time start;
  int priority = 3;
  RdmaOp op = RdmaOp::kWrite;
  uint16_t workload = 0;  // index of the workload that made it
  Time recv_posted;       // SEND only: when the responder posts the receive (before it: receiver not ready)
  int64_t after = -1;     // if >= 0: start when this flow (same data sender) finishes, not at `start`
  uint16_t app_port = 0;  // the HPCC flow file's dport, echoed in fct.txt
};

// A flow's record: what was asked, and what happened.
struct FlowRecord {
  FlowSpec spec;
  uint32_t id = 0;
  uint16_t sport = 0;
  Time ideal_fct;  // alone on an idle fabric (see Network::ideal_fct)
  Time base_rtt;   // one full packet out and its ACK back, on the idle fabric
  Time end;        // when the sender saw the last ACK; zero while unfinished
  bool done = false;
  int64_t retransmits = 0;  // packets sent again (go-back-N or timeout)
  int64_t cnps = 0;         // CNPs received by the sender
  int64_t timeouts = 0;
  int64_t delivered = 0;  // payload bytes the receiver has taken in order
  int64_t naks = 0;
  int64_t rnr_naks = 0;   // SEND only: receiver-not-ready NAKs
  uint32_t send_qpn = 0;  // the data sender's QP index (at src, or at dst for a READ)
};

// The table of flows of one simulation. The run ends early once every flow has finished.
class FlowTable {
 public:
  explicit FlowTable(Simulator& sim) : sim_(sim) {}
  uint32_t add(FlowRecord r) {
    r.id = static_cast<uint32_t>(flows_.size());
    flows_.push_back(r);
    ++remaining_;
    return r.id;
  }
  FlowRecord& operator[](uint32_t id) { return flows_[id]; }
  // Called for each flow that finishes (the network starts the flows waiting for it).
  void on_finish(std::function<void(uint32_t)> f) { on_finish_ = std::move(f); }
  const std::vector<FlowRecord>& all() const { return flows_; }
  void finished(uint32_t id, Time at) {
    flows_[id].end = at;
    flows_[id].done = true;
    if (on_finish_) {
      on_finish_(id);
    }
    if (--remaining_ == 0) {
      sim_.request_stop();
    }
  }
  int64_t remaining() const { return remaining_; }

 private:
  Simulator& sim_;
  std::vector<FlowRecord> flows_;
  int64_t remaining_ = 0;
  std::function<void(uint32_t)> on_finish_;
};

}  // namespace rocesim

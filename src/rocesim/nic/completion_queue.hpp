// The NIC's completion queue: completions (ibv_wc) on their way to the applications of its server.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "rocesim/core/simulator.hpp"
#include "rocesim/net/node.hpp"
#include "rocesim/nic/flow.hpp"

namespace rocesim {

// Where a NIC reports completions: the server its applications run on.
// Contract: called from the NIC's own event handling, one completion per call, in the order they happened;
// the callee may post work requests to the NIC from inside the call.
class CompletionSink {
 public:
  virtual void on_completion(uint32_t owner, const Completion& c) = 0;

 protected:
  ~CompletionSink() = default;
};

// The NIC's event kind for its completion queue (no argument): the oldest completion queued is due. The NIC hands
// it back to CompletionQueue::on_event.
enum CompletionQueueEvent : uint32_t { kEvCqe = kNodeEventBase + 5 };

// Each completion reaches the sink in an event of its own right after the one that made it, so that the
// application's reaction (often a new post) never runs inside the NIC's bookkeeping; the run goes on until the
// sink has heard of every one.
// Contract: the NIC hands its events of kind kEvCqe to on_event.
class CompletionQueue {
 public:
  CompletionQueue(Simulator& sim, EventHandler& node) : sim_(sim), node_(node) {}

  void set_sink(CompletionSink* s) { sink_ = s; }
  // Queues `c` for the application `owner` (nothing without a sink).
  void push(uint32_t owner, const Completion& c);
  // Reports the oldest completion queued.
  void on_event();

 private:
  Simulator& sim_;
  EventHandler& node_;
  CompletionSink* sink_ = nullptr;
  std::vector<std::pair<uint32_t, Completion>> queued_;  // not yet reported, oldest at head_
  size_t head_ = 0;
};

}  // namespace rocesim

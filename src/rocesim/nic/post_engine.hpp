// The NIC's post engine: work requests from the doorbell to the transport. The NIC fetches each work request
// after its doorbell (an MMIO write, then a DMA read of the WQE: nic.wqe_fetch), and its send engine takes one per
// nic.wqe_gap, the NIC's message rate.
#pragma once

#include <cstdint>
#include <vector>

#include "rocesim/core/simulator.hpp"
#include "rocesim/core/slot_vector.hpp"
#include "rocesim/net/node.hpp"
#include "rocesim/nic/flow.hpp"

namespace rocesim {

// The NIC's event kind for its post engine (argument: the post's slot). The NIC hands it back to
// PostEngine::on_event.
enum PostEngineEvent : uint32_t { kEvPost = kNodeEventBase };

// A work request or receive buffers posted to a queue pair.
struct WorkPost {
  enum Kind : uint8_t { kSend, kRead, kRecv } kind = kSend;
  uint32_t qpn = 0;
  WorkRequest wr;
  uint32_t record = 0;  // kSend, kRead: the message's record at the NIC
  uint32_t flow = 0;    // kSend, kRead: what the message's packets carry as Packet::flow
  int64_t count = 0;    // kRecv: receive buffers posted
};

// Contract: the NIC implements it; the engine reaches the NIC only through this.
class PostEngineHost {
 public:
  // The NIC holds the work request and its send engine has taken it: the transport starts on it now.
  virtual void posted(const WorkPost& post) = 0;

 protected:
  ~PostEngineHost() = default;
};

// Contract: the NIC hands its events of kind kEvPost to on_event. Posts reach the host in the order their times
// come, and those rung at one time in the order they were rung; the send engine serves them in the order it is
// asked (first fetched, first served).
class PostEngine {
 public:
  PostEngine(Simulator& sim, EventHandler& node, PostEngineHost& host, Time wqe_fetch, Time wqe_gap)
      : sim_(sim), node_(node), host_(host), wqe_fetch_(wqe_fetch), wqe_gap_(wqe_gap) {}

  // A doorbell rung at `at` (now or later): the post reaches the host once the WQE is fetched and the send
  // engine's turn for it has come.
  void ring(const WorkPost& post, Time at) { pend(post, at + wqe_fetch_, false); }
  // A post that needs neither a WQE fetch nor the send engine (receive buffers, a kernel send() system call)
  // reaches the host at `at`.
  void direct(const WorkPost& post, Time at) { pend(post, at, true); }
  void on_event(uint64_t slot);
  // The post kEvPost's argument `slot` names.
  const WorkPost& pending(uint64_t slot) const { return pending_[slot].post; }

 private:
  struct Pending {
    WorkPost post;
    bool engine_taken = false;  // has its send-engine turn, or needs none
  };
  void pend(const WorkPost& post, Time at, bool engine_taken);

  Simulator& sim_;
  EventHandler& node_;
  PostEngineHost& host_;
  Time wqe_fetch_;
  Time wqe_gap_;
  Time engine_free_;  // when the send engine can take the next work request
  // Posts not yet at the host (kEvPost's argument indexes these); the slots of those gone are reused, so a long
  // run's posts do not pile up.
  SlotVector<Pending> pending_;
};

}  // namespace rocesim

// What a transport of the NIC (its RC queue pairs, nic/rc_transport.hpp; kernel TCP and iWARP, nic/tcp.hpp) works
// with: its NIC's clock, packets and message records, the NIC's event kinds for its timers, and the calls back into
// the NIC.
#pragma once

#include <array>
#include <cstdint>

#include "rocesim/core/simulator.hpp"
#include "rocesim/net/node.hpp"
#include "rocesim/net/packet.hpp"
#include "rocesim/nic/flow.hpp"

namespace rocesim {

// The NIC's event kinds for the TCP stack (arguments are the stack's): a received segment its core has
// processed (Packet*), a copy done, a retransmission timeout (a send half), a delayed ACK (a receive half). The
// NIC hands each back to the transport.
enum TransportEvent : uint32_t {
  kEvSegmentProcessed = kNodeEventBase + 10,
  kEvSegmentCopied,
  kEvTransportRto,
  kEvDelayedAck,
};

// The calls a transport makes into its NIC.
// Contract: the NIC implements it for the transports it owns; a transport reaches its NIC only through this and
// TransportContext, and touches no NIC state besides the records of its own messages.
class TransportHost {
 public:
  // Something may be sent now: the NIC's port arbiter runs (it asks the transport for its next segment in turn).
  virtual void wake() = 0;
  // A control segment (an ACK) goes out ahead of data on its priority.
  virtual void queue_control(Packet* p) = 0;
  // The NIC's record of a message the transport carries.
  virtual FlowRecord& record(uint32_t r) = 0;
  // Where the message of `record` starts in its connection's bytes (the first message of a flow only).
  virtual void set_offset(uint32_t record, int64_t offset) = 0;
  // A completion for the application `owner` (through the NIC's completion queue).
  virtual void complete(uint32_t owner, const Completion& c) = 0;

 protected:
  ~TransportHost() = default;
};

struct TransportContext {
  Simulator& sim;
  PacketPool& pool;
  EventHandler& node;  // the NIC, which receives the transport's events
  uint32_t host;       // the NIC's endpoint number (packets' source)
  std::array<uint8_t, 8> prio_to_dscp;
  TransportHost& nic;
};

}  // namespace rocesim

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
#include "rocesim/nic/post_engine.hpp"

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
  // A control packet (an ACK, NAK, CNP or READ request) goes out ahead of data on its priority.
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

// A transport of the NIC: connections whose halves it numbers itself, the messages posted on them, the packets
// addressed to them, and its turns on the NIC's port. The RC queue pairs are one (nic/rc_transport.hpp), TCP and
// iWARP another (nic/tcp.hpp).
// Contract: part of one NIC, on its simulator's thread; it reaches the NIC only through TransportHost and
// TransportContext. The NIC hands it the work requests the post engine passes on for its halves (post), every packet
// of its kinds (receive: the transport releases or keeps it), and its event kinds (on_event); when the port is free
// and the transport's turn has come, the NIC asks for its next packet (next_packet).
class NicTransport {
 public:
  // A packet for the port. `lost`: an injected loss (tests), which takes the wire but never arrives.
  struct Next {
    Packet* packet = nullptr;
    bool lost = false;
  };
  virtual void post(const WorkPost& post) = 0;
  virtual void receive(Packet* p) = 0;
  virtual void on_event(uint32_t kind, uint64_t arg) = 0;
  // Its next packet, if one may go now, skipping the `paused` priorities. A transport that paces its connections
  // lowers `earliest` to when the first of those held back by pacing may send.
  virtual Next next_packet(uint8_t paused, Time now, Time& earliest) = 0;
  // Whether a connection has packets to send (now, or once pacing, a pause or its window allows).
  virtual bool wants_port() const = 0;
  // Joins a receive half to the send half whose data it takes (the peer's number for its ACKs).
  virtual void set_recv_peer(uint32_t recv, uint32_t send) = 0;
  // What a receive half has taken in order, in payload bytes.
  virtual int64_t delivered(uint32_t recv) const = 0;
  // A send half's current rate: its congestion control's pacing rate, or its window per round trip.
  virtual Rate send_rate(uint32_t send) const = 0;

 protected:
  ~NicTransport() = default;
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

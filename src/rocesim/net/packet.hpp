// Packets: compact records taken from a pool, so the steady state allocates nothing per packet.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "rocesim/core/units.hpp"
#include "rocesim/net/wire.hpp"

namespace rocesim {

enum class PacketKind : uint8_t { kData, kAck, kNak, kCnp, kPfc, kReadRequest };

// One hop of in-band network telemetry (HPCC, ground-truth.md 3.2): what the egress port looked like when the
// packet left it.
struct IntHop {
  uint64_t tx_bytes = 0;   // bytes the port had sent, all priorities
  Time ts;                 // when the packet left
  uint32_t qlen = 0;       // bytes queued at the port (all priorities)
  uint32_t rate_mbps = 0;  // the port's line rate
};
inline constexpr int kMaxIntHops = 5;
// The INT header on the wire: 2 bytes of hop count and 8 bytes per hop for up to 5 hops (the layout of the
// HPCC simulator's IntHeader), carried by data packets and echoed by ACKs when the congestion control asks.
inline constexpr int kIntHeaderBytes = 2 + 8 * kMaxIntHops;
inline constexpr int kPacketKinds = 6;

struct Packet {
  // Addressing and transport.
  uint32_t src = 0;    // source host index
  uint32_t dst = 0;    // destination host index
  uint32_t flow = 0;   // flow (queue pair) index
  uint32_t psn = 0;    // BTH packet sequence number (24 bits on the wire)
  uint32_t qpn = 0;    // destination queue pair at the receiving NIC (BTH DestQP)
  uint16_t sport = 0;  // UDP source port: the ECMP entropy of the flow
  uint16_t frame = 0;  // frame bytes (Ethernet header to FCS), what buffers hold
  uint16_t payload = 0;
  uint16_t in_port = 0;  // the port this packet arrived on at the node that holds it
  PacketKind kind = PacketKind::kData;
  uint8_t opcode = 0;
  uint8_t priority = 0;  // 802.1p / traffic class, 0..7
  uint8_t dscp = 0;
  uint8_t ecn = wire::kNotEct;
  uint8_t charge = 0;  // which ingress bucket of the current switch holds it (see Switch)
  uint8_t flags = 0;
  uint8_t hops = 0;
  Time sent;       // when the source NIC started sending it
  Time arrive_at;  // while on a link: when its last bit reaches the other end
  // ACK/NAK only: the send time of the data packet it answers, and how many data packets it covers and how many
  // of those arrived CE-marked (ECN echo, for DCTCP).
  Time echo;
  uint16_t ack_pkts = 0;
  uint16_t ack_ce = 0;
  // In-band telemetry (data packets, and ACKs echoing it).
  uint8_t int_hops = 0;
  IntHop telemetry[kMaxIntHops];
  // PFC frames only: which priorities the frame names, and their pause quanta.
  uint8_t pfc_enable = 0;
  uint16_t pfc_quanta[8] = {};
  Packet* next_free = nullptr;

  static constexpr uint8_t kFlagLast = 1;    // last packet of a message
  static constexpr uint8_t kFlagAckReq = 2;  // BTH AckReq
  static constexpr uint8_t kFlagRetx = 4;    // a retransmission
  static constexpr uint8_t kFlagRnr = 8;     // NAK: receiver not ready (AETH syndrome 0x20), not a sequence error

  int wire_bytes() const { return wire::on_wire(frame); }
};

// Contract: acquire() returns a zeroed packet; release() takes it back. Storage is allocated in chunks and never
// returned to the system while the pool lives; live() counts packets taken and not released, by kind.
class PacketPool {
 public:
  Packet* acquire(PacketKind kind) {
    if (!free_) {
      grow();
    }
    Packet* p = free_;
    free_ = p->next_free;
    *p = Packet{};
    p->kind = kind;
    ++live_[static_cast<int>(kind)];
    return p;
  }
  void release(Packet* p) {
    --live_[static_cast<int>(p->kind)];
    p->next_free = free_;
    free_ = p;
  }
  int64_t live(PacketKind k) const { return live_[static_cast<int>(k)]; }
  size_t capacity() const { return chunks_.size() * kChunk; }

 private:
  static constexpr size_t kChunk = 4096;
  void grow() {
    chunks_.push_back(std::make_unique<Packet[]>(kChunk));
    Packet* c = chunks_.back().get();
    for (size_t i = 0; i < kChunk; ++i) {
      c[i].next_free = (i + 1 < kChunk) ? &c[i + 1] : free_;
    }
    free_ = c;
  }
  std::vector<std::unique_ptr<Packet[]>> chunks_;
  Packet* free_ = nullptr;
  int64_t live_[kPacketKinds] = {};
};

}  // namespace rocesim

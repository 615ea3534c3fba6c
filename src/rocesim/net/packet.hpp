// Packets: compact records taken from a pool, so the steady state allocates nothing per packet.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <type_traits>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "rocesim/core/units.hpp"
#include "rocesim/net/wire.hpp"

namespace rocesim {

// kTcp: a TCP segment (kernel TCP or iWARP's offloaded TCP), data or a pure ACK (payload 0). kCredit: an
// InfiniBand flow control packet (net/credits.hpp), a link's own like PFC frames.
enum class PacketKind : uint8_t { kData, kAck, kNak, kCnp, kPfc, kReadRequest, kTcp, kCredit };

// One hop of in-band network telemetry (HPCC, Li et al., SIGCOMM 2019, section 4): what the egress port looked
// like when the packet left it.
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
inline constexpr int kPacketKinds = 8;

// The rare or optional parts of a packet, kept out of line so that the common packet fits one cache line:
// in-band telemetry (data packets and the ACKs echoing it, only when the congestion control uses it), the
// PFC class-enable vector and quanta (PFC frames only), and the SACK blocks of a TCP ACK.
struct PacketExt {
  uint8_t int_hops = 0;
  uint8_t pfc_enable = 0;  // PFC: which priorities the frame names
  uint8_t sack_blocks = 0;
  uint16_t pfc_quanta[8] = {};
  uint32_t sack[2 * wire::kMaxSackBlocks] = {};  // TCP: left and right edge of each block (sequence numbers)
  IntHop telemetry[kMaxIntHops];
};

// Packets are one cache line: a large fabric holds hundreds of thousands of them in its buffers, and the
// simulator touches each one at every hop, so their size sets how often it waits for memory.
struct alignas(64) Packet {
  // Addressing and transport.
  uint32_t src = 0;    // source host index
  uint32_t dst = 0;    // destination host index
  uint32_t flow = 0;   // flow (queue pair) index
  uint32_t psn = 0;    // BTH packet sequence number (24 bits on the wire); TCP: sequence or acknowledgment number
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
  // ACK/NAK only: how many data packets it covers and how many of those arrived CE-marked (ECN echo, for DCTCP).
  uint16_t ack_pkts = 0;
  uint16_t ack_ce = 0;
  // Data, READ request, CNP: when the source NIC started sending it. ACK/NAK: the send time of the data packet
  // it answers (echoed, for the RTT).
  Time sent;
  Packet* next = nullptr;    // the packet behind it in the queue that holds it (switch egress queues)
  PacketExt* ext = nullptr;  // telemetry or PFC fields, from PacketPool::ext(); nullptr if none

  static constexpr uint8_t kFlagLast = 1;     // last packet of a message (TCP: PSH, a message ends in it)
  static constexpr uint8_t kFlagAckReq = 2;   // BTH AckReq
  static constexpr uint8_t kFlagRetx = 4;     // a retransmission
  static constexpr uint8_t kFlagRnr = 8;      // NAK: receiver not ready (AETH syndrome 0x20), not a sequence error
  static constexpr uint8_t kFlagEce = 16;     // TCP ACK: ECN-Echo (RFC 3168)
  static constexpr uint8_t kFlagIwarp = 32;   // TCP: an iWARP connection's segment (MPA/DDP/RDMAP inside)
  static constexpr uint8_t kFlagIb = 64;      // an InfiniBand packet: delimiters, not preamble and gap, on the wire
  static constexpr uint8_t kFlagDsack = 128;  // TCP ACK: it reports a duplicate segment (D-SACK, RFC 2883)

  int wire_bytes() const { return frame + (flags & kFlagIb ? wire::kIbDelimiters : wire::kPreambleIfg); }
  // The RETH DMA length (the message's bytes) of a WRITE's first packet or a READ request, kept in the fields
  // that only ACKs use.
  uint32_t dma_length() const { return uint32_t{ack_pkts} << 16 | ack_ce; }
  void set_dma_length(uint32_t len) {
    ack_pkts = static_cast<uint16_t>(len >> 16);
    ack_ce = static_cast<uint16_t>(len & 0xFFFF);
  }
  // An iWARP segment's sequence number in the bytes TCP carries (its FPDUs' framing counted; `psn` counts
  // payload), for captures; in the same fields.
  uint32_t tcp_wire_seq() const { return dma_length(); }
  void set_tcp_wire_seq(uint32_t seq) { set_dma_length(seq); }
  int int_hops() const { return ext ? ext->int_hops : 0; }
  const IntHop* telemetry() const { return ext ? ext->telemetry : nullptr; }
};
static_assert(sizeof(Packet) == 64, "a packet is one cache line");
static_assert(std::is_trivially_destructible_v<Packet>, "pool chunks are freed without destructors");

// Contract: acquire() returns a zeroed packet without an extension; ext() gives it a zeroed one on first use;
// release() takes back both. Storage is allocated in chunks and never returned to the system while the pool
// lives, and freed packets are reused last-in first-out (the most recently touched memory first); live() counts
// packets taken and not released, by kind.
class PacketPool {
 public:
  Packet* acquire(PacketKind kind) {
    Packet* p = free_;
    if (p) [[likely]] {
      free_ = p->next;
    } else {
      if (fresh_ == fresh_end_) [[unlikely]] {
        grow();
      }
      p = fresh_++;
    }
    p = new (p) Packet{};  // (a fresh packet's lifetime starts here)
    p->kind = kind;
    ++live_[static_cast<int>(kind)];
    return p;
  }
  PacketExt& ext(Packet* p) {
    if (!p->ext) {
      if (ext_free_.empty()) {
        grow_ext();
      }
      p->ext = ext_free_.back();
      ext_free_.pop_back();
      *p->ext = PacketExt{};
    }
    return *p->ext;
  }
  void release(Packet* p) {
    --live_[static_cast<int>(p->kind)];
    if (p->ext) {
      ext_free_.push_back(p->ext);
    }
    p->next = free_;
    free_ = p;
  }
  int64_t live(PacketKind k) const { return live_[static_cast<int>(k)]; }
  size_t capacity() const { return chunks_.size() * kChunk; }

 private:
  // Chunks of 2 MiB, aligned so that the kernel can back each with one huge page (where transparent huge pages
  // are on for madvise): packets are scattered over tens of MB on large fabrics, and with 4 KiB pages nearly
  // every packet touched is also a TLB miss.
  static constexpr size_t kChunkBytes = size_t{2} << 20;
  static constexpr size_t kChunk = kChunkBytes / sizeof(Packet);
  static constexpr size_t kExtChunk = 4096;
  struct FreeChunk {
    void operator()(Packet* p) const { std::free(p); }
  };
  void grow() {
    void* mem = std::aligned_alloc(kChunkBytes, kChunkBytes);
    if (!mem) {
      throw std::bad_alloc();
    }
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    madvise(mem, kChunkBytes, MADV_HUGEPAGE);  // a hint: without huge pages it is simply slower
#endif
    // Packets are carved from the chunk as they are first needed (acquire), so a small run does not touch, and
    // have the kernel zero, the whole chunk.
    fresh_ = static_cast<Packet*>(mem);
    fresh_end_ = fresh_ + kChunk;
    chunks_.emplace_back(fresh_);
  }
  void grow_ext() {
    ext_chunks_.push_back(std::make_unique<PacketExt[]>(kExtChunk));
    PacketExt* c = ext_chunks_.back().get();
    ext_free_.reserve(ext_chunks_.size() * kExtChunk);
    for (size_t i = kExtChunk; i-- > 0;) {
      ext_free_.push_back(&c[i]);
    }
  }
  std::vector<std::unique_ptr<Packet, FreeChunk>> chunks_;  // Packet is trivially destructible
  std::vector<std::unique_ptr<PacketExt[]>> ext_chunks_;
  // Free packets, linked through Packet::next, the most recently released first: a release writes the packet
  // just handled (in cache), and there is no separate list of megabytes to grow and copy.
  Packet* free_ = nullptr;
  Packet* fresh_ = nullptr;  // the newest chunk's packets never handed out: fresh_ .. fresh_end_
  Packet* fresh_end_ = nullptr;
  std::vector<PacketExt*> ext_free_;
  int64_t live_[kPacketKinds] = {};
};

}  // namespace rocesim

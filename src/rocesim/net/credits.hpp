// InfiniBand link-level flow control (IBTA Architecture Specification vol 1, 7.9 "Flow control"): per virtual
// lane, the receiving port advertises a flow control credit limit (FCCL), the total number of 64-byte blocks it
// will have accepted, and the sending port sends a packet only if the blocks it has sent so far (FCTBS) plus the
// packet's stay within that limit. Credits come back as the receiver's buffer drains, in flow control packets.
// A frame is never dropped for lack of buffer; a full buffer holds its upstream instead (head-of-line blocking).
//
// Counters are modulo 2^32 (the spec's are 12-bit); only their differences matter.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "rocesim/core/params.hpp"
#include "rocesim/core/units.hpp"
#include "rocesim/net/packet.hpp"

namespace rocesim {

// The `infiniband` section: only read with `fabric: infiniband`.
struct InfinibandParams {
  std::string vl_buffer;     // "auto" or a size: each port's receive buffer per virtual lane
  std::string credit_batch;  // "auto" or a size: freed space a port gathers before it returns credits
  Bytes fecn_threshold;      // a switch port's VL queue above this is congested and marks FECN (annex A10)
  int64_t marking_rate = 0;  // mean packets between FECN marks at a congested port (A10 Marking_Rate)
  static const Schema<InfinibandParams>& schema();
};

inline constexpr int kCreditBlock = 64;  // bytes per credit (vol 1, 7.9.2)
constexpr uint32_t credit_blocks(int64_t bytes) {
  return static_cast<uint32_t>((bytes + kCreditBlock - 1) / kCreditBlock);
}

// The least receive buffer per VL that keeps a link at line rate: the frames a sender puts on the wire during a
// credit round trip, each taking its frame's credits (whole 64-byte blocks), and the credits the receiver holds
// back in a batch. The round trip of a frame's credits starts with the frame: its serialisation, the flight, the
// switch's latency, at worst a frame ahead of it at the egress and a frame ahead of the flow control packet on
// the way back, the flow control packet and its flight:
//   RTT = 2 x delay + latency + 3 x frame time + flow-control packet time
//   B_min = ceil(RTT / frame time) x blocks(frame) x 64 + batch
// (docs/model.md, "InfiniBand").
Bytes credit_buffer_needed(Rate rate, Time delay, Time latency, Bytes max_frame, Bytes batch);

// The port's buffer per VL and its credit batch, resolved: "auto" is twice the line-rate minimum with a batch of
// an eighth of the buffer. Throws InputError (key infiniband.*) when the batch leaves no room for a frame.
struct CreditConfig {
  uint32_t buffer_blocks = 0;
  uint32_t batch_blocks = 0;
};
CreditConfig credit_config(const InfinibandParams& p, Rate rate, Time delay, Time latency, Bytes max_frame,
                           const std::string& file);
// A buffer of `buffer` bytes (read from `buffer_key`) with the batch `batch` ("auto" or a size).
CreditConfig credit_config(Bytes buffer, const std::string& batch, Bytes max_frame, const std::string& file,
                           const std::string& buffer_key);

// The sending side of a port: per VL, blocks sent and the limit the peer last advertised, and how long packets
// have waited for credits there.
struct CreditTx {
  std::array<uint32_t, 8> limit{};
  std::array<uint32_t, 8> sent{};
  uint8_t waiting = 0;  // VLs whose head packet is held for credits, since waiting_since
  std::array<Time, 8> waiting_since{};
  std::array<Time, 8> waited{};

  bool fits(int vl, int frame) const { return static_cast<int32_t>(limit[vl] - sent[vl] - credit_blocks(frame)) >= 0; }
  void on_sent(int vl, int frame) { sent[vl] += credit_blocks(frame); }
  // A flow control packet came: its FCCL is the new limit. Ends the wait of `vl` if its head (`head_frame`
  // bytes; 0 if the VL has nothing queued) now fits.
  void on_credit(int vl, uint32_t fccl, int head_frame, Time now) {
    limit[vl] = fccl;
    if ((waiting >> vl & 1u) && fits(vl, head_frame)) {
      waited[vl] += now - waiting_since[vl];
      waiting &= static_cast<uint8_t>(~(1u << vl));
    }
  }
  // The VLs in `queued` whose head would not fit start (or go on) waiting.
  void hold(uint8_t vls, Time now) {
    for (uint8_t m = vls & static_cast<uint8_t>(~waiting); m; m &= static_cast<uint8_t>(m - 1)) {
      waiting_since[__builtin_ctz(m)] = now;
    }
    waiting |= vls;
  }
  Time waited_until(int vl, Time now) const {
    return waited[vl] + ((waiting >> vl & 1u) ? now - waiting_since[vl] : Time());
  }
};

// The receiving side of a port: per VL, blocks held in its buffer, blocks freed and the freed count last
// advertised. A credit update is due once a batch has been freed: the sender then still has room for a frame
// whatever is held back (credit_config keeps batch <= buffer - frame), so no timer is needed.
struct CreditRx {
  CreditConfig cfg;
  std::array<uint32_t, 8> held{};
  std::array<uint32_t, 8> freed{};
  std::array<uint32_t, 8> advertised{};
  int64_t overflows = 0;  // packets beyond the buffer: a sender that ignored its credits (never, if modelled right)

  // A packet arrives on `vl`; false if it does not fit (counted in `overflows`).
  bool take(int vl, int frame) {
    const uint32_t b = credit_blocks(frame);
    if (held[vl] + b > cfg.buffer_blocks) {
      ++overflows;
      return false;
    }
    held[vl] += b;
    return true;
  }
  // A packet of `vl` leaves the buffer; true when the VL's credits should be returned now.
  bool release(int vl, int frame) {
    const uint32_t b = credit_blocks(frame);
    held[vl] -= b;
    freed[vl] += b;
    return freed[vl] - advertised[vl] >= cfg.batch_blocks;
  }
  // The FCCL to send for `vl` (and it counts as advertised).
  uint32_t advertise(int vl) {
    advertised[vl] = freed[vl];
    return freed[vl] + cfg.buffer_blocks;
  }
};

// One flow control packet (IBTA vol 1, 7.9.4) for the lowest VL in `owed`, which it clears; the others follow in
// packets of their own. It advertises `rx`'s new limit for that VL.
Packet* credit_packet(PacketPool& pool, CreditRx& rx, uint8_t& owed);

}  // namespace rocesim

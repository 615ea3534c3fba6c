// The NIC's receive buffer: data frames wait in it while the NIC moves them into host memory more slowly than the
// link brings them (a slow receiver: a host whose memory, PCIe or software cannot keep up). Like a switch's ingress it
// is lossless by PFC: once it holds more than the XOFF point the NIC pauses its switch on every lossless priority,
// and resumes it at the XON point. The thresholds follow the mlx5 driver (Linux
// drivers/net/ethernet/mellanox/mlx5/core/en/port_buffer.c): the headroom above the XOFF point is
//   xoff = (301 + 2.16 x cable length [m]) x speed [Gb/s, at least 40] + 2.72 x MTU [B]  bytes,
// the XOFF point is the buffer size minus that, and the XON point is one 9216-byte jumbo frame below it
// (max(MTU, 9216)).
#pragma once

#include <cstdint>

#include "rocesim/core/units.hpp"
#include "rocesim/net/packet.hpp"

namespace rocesim {

// The headroom the mlx5 driver keeps above the XOFF point, for a link of `rate`, a cable of `cable_m` metres and
// frames of `mtu` bytes.
Bytes mlx5_rx_headroom(Rate rate, int64_t cable_m, int64_t mtu);

// Contract: a FIFO of the frames received and not yet moved to memory (linked through Packet::next), with its PFC
// state; the NIC decides when frames leave it.
class RxBuffer {
 public:
  // `size`: the buffer; `headroom`: what it keeps above the XOFF point; `xon_gap`: how far below the XOFF point
  // it resumes. Needs headroom + xon_gap < size.
  void configure(Bytes size, Bytes headroom, Bytes xon_gap);
  // Keeps `p` (true) or refuses it (false): a lossy frame above the XOFF point, or any frame that does not fit.
  bool push(Packet* p, bool lossless);
  bool empty() const { return head_ == nullptr; }
  const Packet* front() const { return head_; }
  Packet* pop();
  // PFC: set once a push took the buffer above the XOFF point, cleared once pops brought it to the XON point.
  bool xoff() const { return xoff_; }
  int64_t bytes() const { return bytes_; }
  int64_t max_bytes() const { return max_bytes_; }

 private:
  Packet* head_ = nullptr;
  Packet* tail_ = nullptr;
  int64_t size_ = 0, xoff_at_ = 0, xon_at_ = 0;
  int64_t bytes_ = 0, max_bytes_ = 0;
  bool xoff_ = false;
};

}  // namespace rocesim

#include "rocesim/nic/rx_buffer.hpp"

#include <algorithm>

namespace rocesim {

Bytes mlx5_rx_headroom(Rate rate, int64_t cable_m, int64_t mtu) {
  // In the driver's integer arithmetic: (301 + 216 * len / 100) * speed_mbps / 1000 + 272 * mtu / 100.
  const int64_t speed_mbps = std::max<int64_t>(rate.bps() / 1000'000, 40'000);
  return Bytes((301 + 216 * cable_m / 100) * speed_mbps / 1000 + 272 * mtu / 100);
}

void RxBuffer::configure(Bytes size, Bytes headroom, Bytes xon_gap) {
  size_ = size.count();
  xoff_at_ = size_ - headroom.count();
  xon_at_ = xoff_at_ - xon_gap.count();
}

bool RxBuffer::push(Packet* p, bool lossless) {
  if (bytes_ + p->frame > (lossless ? size_ : xoff_at_)) {
    return false;
  }
  p->next = nullptr;
  (tail_ ? tail_->next : head_) = p;
  tail_ = p;
  bytes_ += p->frame;
  max_bytes_ = std::max(max_bytes_, bytes_);
  xoff_ |= bytes_ > xoff_at_;
  return true;
}

Packet* RxBuffer::pop() {
  Packet* p = head_;
  head_ = p->next;
  if (!head_) {
    tail_ = nullptr;
  }
  bytes_ -= p->frame;
  xoff_ &= bytes_ > xon_at_;
  return p;
}

}  // namespace rocesim

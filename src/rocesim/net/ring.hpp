// A FIFO on a power-of-two ring that grows by doubling: no allocation in steady state.
#pragma once

#include <cstdint>
#include <vector>

#include "rocesim/net/packet.hpp"

namespace rocesim {

template <typename T>
class Ring {
 public:
  bool empty() const { return head_ == tail_; }
  size_t size() const { return tail_ - head_; }
  const T& front() const { return buf_[head_ & mask_]; }
  void push(const T& v) {
    if (size() == buf_.size()) {
      grow();
    }
    buf_[tail_++ & mask_] = v;
  }
  T pop() { return buf_[head_++ & mask_]; }

 private:
  void grow() {
    std::vector<T> nb(buf_.empty() ? 16 : buf_.size() * 2);
    const size_t n = size();
    for (size_t i = 0; i < n; ++i) {
      nb[i] = buf_[(head_ + i) & mask_];
    }
    buf_.swap(nb);
    head_ = 0;
    tail_ = n;
    mask_ = buf_.size() - 1;
  }
  std::vector<T> buf_;
  size_t head_ = 0, tail_ = 0, mask_ = 0;
};

using PacketRing = Ring<Packet*>;

}  // namespace rocesim

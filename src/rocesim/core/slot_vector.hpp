// A vector whose freed slots are reused, most recently freed first: an index stays valid while its element is in
// use, so an event's argument can name pending work, and a run's steady state allocates nothing.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace rocesim {

// Contract: an index from put() or acquire() names its element until release() or take(), once; after release()
// (not take(), which moves it out) the element keeps its storage (a vector member its capacity) for the next
// acquire().
template <class T>
class SlotVector {
 public:
  // A slot for `v`.
  uint32_t put(T v) {
    const uint32_t s = acquire();
    items_[s] = std::move(v);
    return s;
  }
  // A slot whose element the caller fills in: a new one, or the last released as it was left.
  uint32_t acquire() {
    if (free_.empty()) {
      items_.emplace_back();
      return static_cast<uint32_t>(items_.size() - 1);
    }
    const uint32_t s = free_.back();
    free_.pop_back();
    return s;
  }
  T& operator[](uint64_t s) { return items_[s]; }
  const T& operator[](uint64_t s) const { return items_[s]; }
  void release(uint64_t s) { free_.push_back(static_cast<uint32_t>(s)); }
  // The element of slot `s`, whose slot is free from now on.
  T take(uint64_t s) {
    T v = std::move(items_[s]);
    release(s);
    return v;
  }

 private:
  std::vector<T> items_;
  std::vector<uint32_t> free_;
};

}  // namespace rocesim

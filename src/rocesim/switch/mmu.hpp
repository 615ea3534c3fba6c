// The switch's buffer accounting, its MMU (the Broadcom/SONiC model, docs/model.md "Shared-buffer MMU"): where an
// arriving packet is charged (its ingress group's reserve, the shared pool up to the admission limit, or, for a
// lossless group, its PFC headroom) or why it is dropped, and when a lossless group must pause its upstream
// (XOFF) and may resume it (XON).
#pragma once

#include <cstdint>
#include <memory>

#include "rocesim/switch/buffer.hpp"

namespace rocesim {

// kLinkDown, kNoRoute and kWatchdog are the switch's, not the MMU's (see Switch).
enum class DropReason : uint8_t { kSharedLimit, kHeadroomOverflow, kBufferFull, kLinkDown, kNoRoute, kWatchdog };
inline constexpr int kDropReasons = 6;
inline constexpr int kAdmissionDrops = 3;  // the first three: the MMU's
const char* to_string(DropReason r);

// The bytes one ingress (port, priority group) holds in each bucket, and whether it has paused its upstream.
// PFC keeps one in each ingress class's line (switch/pfc.hpp), so that a packet's admission touches one cache line.
struct MmuGroup {
  int64_t min_used = 0;
  int64_t shared_used = 0;
  int64_t hdrm_used = 0;
  bool xoff = false;
  float limit_scale = 1;  // this port's share of the admission limit against the switch's (admission.alpha_by_rate)
};

class Mmu {
 public:
  enum Charge : uint8_t { kMin = 0, kShared = 1, kHeadroom = 2 };
  struct Admission {
    bool admitted = false;
    Charge charge = kMin;
    DropReason drop = DropReason::kBufferFull;  // if not admitted
    bool xoff = false;                          // the group has just crossed its pause threshold
  };

  // `max_frame`: wire bytes of the largest frame (the XOFF threshold keeps room for one more).
  Mmu(int64_t buffer, int64_t reserved, int64_t xon_offset, int64_t max_frame,
      std::unique_ptr<BufferAdmission> admission)
      : buffer_(buffer),
        reserved_(reserved),
        xon_offset_(xon_offset),
        max_frame_(max_frame),
        admission_(std::move(admission)) {}
  // What is left for the shared pool once every port's reserve and headroom are set aside (before the run).
  void set_shared_pool(int64_t bytes) { shared_pool_ = bytes; }
  int64_t shared_pool() const { return shared_pool_; }
  int64_t used() const { return total_used_; }
  int64_t shared_used() const { return shared_used_; }

  // Reserve first, then shared up to the admission limit, then (lossless only) headroom; a lossless group that
  // has spilled into headroom stays there until it drains. A lossless group whose shared use comes within a
  // frame of the limit, or that uses headroom, sends XOFF. `headroom` is read only when the packet needs it (it
  // lives in a line of the port that most packets do not touch).
  Admission admit(MmuGroup& g, int64_t bytes, bool lossless, const int64_t& headroom) {
    Admission a;
    if (total_used_ + bytes > buffer_) {
      a.drop = DropReason::kBufferFull;
      return a;
    }
    const int64_t limit = limit_of(g);
    if (g.min_used + bytes <= reserved_) {
      g.min_used += bytes;
      a.charge = kMin;
    } else if (g.shared_used + bytes <= limit && shared_used_ + bytes <= shared_pool_ &&
               !(lossless && g.hdrm_used > 0)) {
      g.shared_used += bytes;
      shared_used_ += bytes;
      a.charge = kShared;
    } else if (lossless) {
      if (g.hdrm_used + bytes > headroom) {
        a.drop = DropReason::kHeadroomOverflow;
        return a;
      }
      g.hdrm_used += bytes;
      a.charge = kHeadroom;
    } else {
      a.drop = DropReason::kSharedLimit;
      return a;
    }
    a.admitted = true;
    total_used_ += bytes;
    if (lossless && !g.xoff && (g.hdrm_used > 0 || g.shared_used + max_frame_ > limit)) {
      g.xoff = true;
      a.xoff = true;
    }
    return a;
  }

  // The packet leaves the buffer. Returns true if its group may now resume (XON): it holds nothing, or nothing
  // in headroom and its shared use is xon_offset (and a frame) below the limit.
  bool release(MmuGroup& g, int64_t bytes, Charge charge) {
    total_used_ -= bytes;
    switch (charge) {
      case kMin:
        g.min_used -= bytes;
        break;
      case kShared:
        g.shared_used -= bytes;
        shared_used_ -= bytes;
        break;
      default:
        g.hdrm_used -= bytes;
    }
    if (!g.xoff) {
      return false;
    }
    const int64_t limit = limit_of(g);
    const bool empty = g.shared_used == 0 && g.hdrm_used == 0;
    if (empty || (g.hdrm_used == 0 && g.shared_used + xon_offset_ + max_frame_ <= limit)) {
      g.xoff = false;
      return true;
    }
    return false;
  }

 private:
  int64_t limit_of(const MmuGroup& g) const {
    const int64_t limit = admission_->shared_limit(shared_pool_ - shared_used_);
    return g.limit_scale == 1 ? limit : static_cast<int64_t>(static_cast<double>(limit) * g.limit_scale);
  }
  int64_t total_used_ = 0;
  int64_t shared_used_ = 0;
  int64_t shared_pool_ = 0;
  int64_t buffer_;
  int64_t reserved_;
  int64_t xon_offset_;
  int64_t max_frame_;
  std::unique_ptr<BufferAdmission> admission_;
};

}  // namespace rocesim

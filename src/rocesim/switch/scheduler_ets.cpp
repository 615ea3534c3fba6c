// Enhanced Transmission Selection (IEEE 802.1Qaz): strict-priority classes first, then deficit weighted round
// robin over byte counts among the others (Shreedhar and Varghese, "Efficient fair queueing using deficit
// round robin"). Defaults follow the Cumulus/Onyx RoCE profile (ground-truth.md 2.3): class 6 (CNP) strict,
// the rest sharing by weight.
#include "rocesim/switch/scheduler.hpp"

namespace rocesim {
namespace {

class EtsScheduler final : public Scheduler {
 public:
  EtsScheduler(const EtsParams& p, int32_t quantum_unit) {
    for (int64_t c : p.strict) {
      strict_mask_ |= static_cast<uint8_t>(1u << c);
    }
    for (int c = 0; c < 8; ++c) {
      quantum_[c] = static_cast<int64_t>(p.weights[c]) * quantum_unit;
    }
  }

  int pick(const ClassView& v) override {
    uint8_t ready = 0;
    for (int c = 0; c < 8; ++c) {
      if (v.head_bytes[c] > 0 && !(v.blocked & (1u << c))) {
        ready |= static_cast<uint8_t>(1u << c);
      }
    }
    if (const uint8_t s = ready & strict_mask_) {
      return 31 - __builtin_clz(s);  // highest strict class
    }
    const uint8_t rr = ready & ~strict_mask_;
    // An empty class forfeits its credit (DRR); a paused one keeps it.
    for (int c = 0; c < 8; ++c) {
      if (v.head_bytes[c] == 0) {
        deficit_[c] = 0;
        if (cur_ == c) {
          topped_ = false;
        }
      }
    }
    if (!rr) {
      return -1;
    }
    // Each class is topped up once per visit and sends while its credit covers the head packet. Since the
    // quantum is at least one frame, two passes always find a sender.
    for (int step = 0; step < 17; ++step) {
      const int c = cur_;
      if ((rr & (1u << c)) && quantum_[c] > 0) {
        if (!topped_) {
          deficit_[c] += quantum_[c];
          topped_ = true;
        }
        if (v.head_bytes[c] <= deficit_[c]) {
          deficit_[c] -= v.head_bytes[c];
          return c;
        }
      }
      cur_ = (cur_ + 1) & 7;
      topped_ = false;
    }
    return 31 - __builtin_clz(rr);  // only classes of weight 0 are ready: serve them in class order
  }

 private:
  uint8_t strict_mask_ = 0;
  std::array<int64_t, 8> quantum_{};
  std::array<int64_t, 8> deficit_{};
  int cur_ = 0;
  bool topped_ = false;
};

}  // namespace

const Schema<EtsParams>& EtsParams::schema() {
  static const Schema<EtsParams> s = [] {
    Schema<EtsParams> sc("ets", "egress scheduling among traffic classes");
    sc.add(&EtsParams::type, "type", "ets", "scheduler: ets (strict classes, then DWRR by weight)", one_of({"ets"}))
        .add(&EtsParams::strict, "strict", "[6]", "classes served by strict priority (CNPs ride class 6)", {}, "class")
        .add(&EtsParams::weights, "weights", "[50, 1, 1, 50, 1, 1, 1, 1]",
             "DWRR weights of classes 0..7 (Cumulus RoCE: TC0 and TC3 at 50 % each)", {}, "relative")
        .validate([](const EtsParams& p) -> std::optional<std::pair<std::string, std::string>> {
          for (int64_t c : p.strict) {
            if (c < 0 || c > 7) {
              return std::make_pair("strict", "class " + std::to_string(c) + " is not in 0..7");
            }
          }
          if (p.weights.size() != 8) {
            return std::make_pair("weights", "needs 8 weights, one per class, got " + std::to_string(p.weights.size()));
          }
          for (int64_t w : p.weights) {
            if (w < 0) {
              return std::make_pair("weights", "weights must not be negative");
            }
          }
          return std::nullopt;
        });
    return sc;
  }();
  return s;
}

std::unique_ptr<Scheduler> make_scheduler(const EtsParams& p, int32_t quantum_unit) {
  return std::make_unique<EtsScheduler>(p, quantum_unit);
}

}  // namespace rocesim

// Enhanced Transmission Selection (IEEE 802.1Qaz): strict-priority classes first, then deficit weighted round
// robin over byte counts among the others (Shreedhar and Varghese, "Efficient fair queueing using deficit
// round robin"). Defaults follow the Cumulus/Onyx RoCE profile (Cumulus Linux "RDMA over Converged Ethernet -
// RoCE"; Onyx user manual "RoCE Commands"): class 6 (CNP) strict, the rest sharing by weight.
#include "rocesim/switch/scheduler.hpp"

namespace rocesim {
namespace {

// Weights are relative shares (switches take 1-100); the bound keeps a port's DWRR state in 32-bit counters.
constexpr int64_t kMaxWeight = 10000;

class EtsScheduler final : public Scheduler {
 public:
  EtsScheduler(const EtsParams& p, int32_t quantum_unit) {
    for (int64_t c : p.strict) {
      strict_mask_ |= static_cast<uint8_t>(1u << c);
    }
    for (int c = 0; c < 8; ++c) {
      // Weights are at most kMaxWeight (the schema checks), so a deficit (a quantum plus less than a frame) fits
      // 32 bits.
      quantum_[c] = static_cast<int32_t>(p.weights[c] * quantum_unit);
      if (quantum_[c] > 0) {
        weighted_ |= static_cast<uint8_t>(1u << c);
      }
    }
  }

  int pick(const ClassView& v, SchedulerState& state) const override {
    Dwrr& d = state.as<Dwrr>();
    const uint8_t ready = v.nonempty & static_cast<uint8_t>(~v.blocked);
    if (const uint8_t s = ready & strict_mask_) {
      return 31 - __builtin_clz(s);  // highest strict class
    }
    const auto empty = static_cast<uint8_t>(~v.nonempty);
    for (uint8_t m = d.credited & empty; m; m &= static_cast<uint8_t>(m - 1)) {
      d.deficit[__builtin_ctz(m)] = 0;
    }
    d.credited &= v.nonempty;
    if (empty & (1u << d.cur)) {
      d.topped = false;
    }
    const uint8_t rr = ready & static_cast<uint8_t>(~strict_mask_);
    if (!rr) {
      return -1;
    }
    const uint8_t eligible = rr & weighted_;
    if (!eligible) {
      return 31 - __builtin_clz(rr);  // only classes of weight 0 are ready: serve them in class order
    }
    for (;;) {
      const int c = d.cur;
      if (eligible & (1u << c)) {
        if (!d.topped) {
          d.deficit[c] += quantum_[c];
          d.credited |= static_cast<uint8_t>(1u << c);
          d.topped = true;
        }
        if (v.head_bytes[c] <= d.deficit[c]) {
          d.deficit[c] -= v.head_bytes[c];
          return c;
        }
      }
      const auto rot = static_cast<uint8_t>((eligible >> ((c + 1) & 7)) | (eligible << (8 - ((c + 1) & 7))));
      d.cur = static_cast<uint8_t>((c + 1 + __builtin_ctz(rot)) & 7);
      d.topped = false;
    }
  }

 private:
  // A port's round: per class, the bytes it may still send; the class whose turn it is, and whether it has had
  // its quantum this turn.
  struct Dwrr {
    std::array<int32_t, 8> deficit;
    uint8_t credited;  // classes whose deficit may be non-zero
    uint8_t cur;
    bool topped;
  };
  uint8_t strict_mask_ = 0;
  uint8_t weighted_ = 0;  // classes with a positive quantum
  std::array<int32_t, 8> quantum_{};
};

}  // namespace

const Schema<EtsParams>& EtsParams::schema() {
  static const Schema<EtsParams> s = [] {
    Schema<EtsParams> sc("ets", "egress scheduling among traffic classes");
    sc.add(&EtsParams::type, "type", "ets", registry_doc(scheduler_registry()), one_of(scheduler_registry().names()))
        .add(&EtsParams::strict, "strict", "[6]", "classes served by strict priority (CNPs ride class 6)", {}, "class")
        .add(&EtsParams::weights, "weights", "[50, 1, 1, 50, 1, 1, 1, 1]",
             "DWRR weights of classes 0..7, each 0..10000 (Cumulus RoCE: TC0 and TC3 at 50 % each)", {}, "relative")
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
            if (w < 0 || w > kMaxWeight) {
              return std::make_pair("weights",
                                    "weights must be 0.." + std::to_string(kMaxWeight) + ", got " + std::to_string(w));
            }
          }
          return std::nullopt;
        });
    return sc;
  }();
  return s;
}

static SchedulerEntry ets_scheduler() {
  return {"ets",
          "strict classes, then DWRR by weight",
          [](const EtsParams& p, int32_t quantum_unit) -> std::unique_ptr<Scheduler> {
            return std::make_unique<EtsScheduler>(p, quantum_unit);
          },
          {}};
}

namespace {
// Registered before main (core/registry.hpp).
const Registrar<SchedulerFactory> ets_scheduler_registered(scheduler_registry(), ets_scheduler());
}  // namespace

}  // namespace rocesim

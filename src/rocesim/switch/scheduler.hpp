// Egress scheduling among the eight traffic classes of a port.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <vector>

#include "rocesim/core/params.hpp"
#include "rocesim/core/registry.hpp"

namespace rocesim {

struct EtsParams {
  std::string type;
  std::vector<int64_t> strict;   // classes served by strict priority, higher class number first
  std::vector<int64_t> weights;  // DWRR weights of the eight classes (used by the non-strict ones)
  static const Schema<EtsParams>& schema();
};

// What the scheduler sees of a port: per class, the head packet's size (0 if the queue is empty), which classes
// have a packet queued, and which may not send now (PFC-paused).
struct ClassView {
  std::array<uint16_t, 8> head_bytes{};  // frames are at most 64 KiB (Packet::frame)
  uint8_t nonempty = 0;                  // bit c set iff head_bytes[c] > 0
  uint8_t blocked = 0;
};

// One port's scheduling state. It lives in the port, in the cache line next to the port's queues, and belongs to
// the scheduler: each implementation keeps its own trivially copyable struct in it (see SchedulerState::as). On a
// large fabric a scheduler object of its own per port would cost a cache miss per packet sent.
struct alignas(64) SchedulerState {
  std::array<std::byte, 64> bytes{};
  // The implementation's view of the bytes (zero at first).
  template <typename T>
  T& as() {
    static_assert(sizeof(T) <= sizeof(bytes) && alignof(T) <= 64 && std::is_trivially_copyable_v<T>,
                  "a scheduler's per-port state fits one cache line");
    return *std::launder(reinterpret_cast<T*>(bytes.data()));
  }
};

// Picks the class that sends next on one egress port.
// Contract: one instance serves every port of a switch and holds only configuration; a port's state is the
// `state` it is given. pick() returns -1 if no class is both non-empty and unblocked, otherwise a class whose head
// packet is then sent (pick() has already charged it).
class Scheduler {
 public:
  virtual ~Scheduler() = default;
  virtual int pick(const ClassView& v, SchedulerState& state) const = 0;
};

// `quantum_unit`: bytes of credit per unit of weight per round (at least the largest frame).
// Schedulers, one file each, registered once (`switch.ets.type`; parameters are the ets section's).
// `quantum_unit`: the DWRR quantum per unit of weight (the largest frame).
using SchedulerFactory = std::function<std::unique_ptr<Scheduler>(const EtsParams&, int32_t quantum_unit)>;
using SchedulerEntry = Registered<SchedulerFactory>;
// Filled by the implementations' own files (core/registry.hpp).
Registry<SchedulerFactory>& scheduler_registry();

std::unique_ptr<Scheduler> make_scheduler(const EtsParams& p, int32_t quantum_unit);

}  // namespace rocesim

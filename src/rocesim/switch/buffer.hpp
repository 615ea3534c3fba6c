// Shared-buffer admission (the Broadcom/SONiC MMU model): each ingress (port, priority group) first uses its
// reserved bytes, then the shared pool up to a limit; lossless groups then use their headroom.
#pragma once

#include <memory>
#include <string>

#include "rocesim/core/params.hpp"
#include "rocesim/core/registry.hpp"
#include "rocesim/core/units.hpp"

namespace rocesim {

struct BufferParams {
  std::string type;           // dynamic | static
  double alpha = 0;           // dynamic threshold factor
  Bytes static_limit;         // static threshold
  Bytes reserved;             // per (ingress port, priority group)
  std::string alpha_by_rate;  // "400Gbps 0.5; ...": alpha on ports of that rate (dynamic only)
  static const Schema<BufferParams>& schema();
  // The dynamic threshold factor of a port of this rate.
  double alpha_for(Rate r) const;
};

// How much of the shared pool one priority group may hold.
// Contract: stateless; `shared_free` is the shared pool's unused bytes at the moment of the decision.
class BufferAdmission {
 public:
  virtual ~BufferAdmission() = default;
  virtual int64_t shared_limit(int64_t shared_free) const = 0;
};

// Admission policies, one file each, registered once (`switch.admission.type` selects one; its parameters are
// the admission section's).
using AdmissionFactory = std::function<std::unique_ptr<BufferAdmission>(const BufferParams&)>;
using AdmissionEntry = Registered<AdmissionFactory>;
// Filled by the implementations' own files (core/registry.hpp).
Registry<AdmissionFactory>& buffer_admission_registry();

std::unique_ptr<BufferAdmission> make_buffer_admission(const BufferParams& p);

}  // namespace rocesim

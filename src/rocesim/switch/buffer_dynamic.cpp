// Dynamic threshold (Choudhury and Hahne, "Dynamic queue length thresholds for shared-memory packet switches";
// Broadcom/SAI `dynamic_th`, where alpha = 2^dynamic_th): a group may hold alpha times the free shared pool.
// The default alpha = 1/8 is SONiC's pg_lossless_100000_40m_profile (dynamic_th -3;
// sonic-net/sonic-buildimage src/sonic-yang-models/doc/Configuration.md).
#include "rocesim/switch/buffer.hpp"

namespace rocesim {
namespace {

class DynamicThreshold final : public BufferAdmission {
 public:
  explicit DynamicThreshold(double alpha) : alpha_(alpha) {}
  int64_t shared_limit(int64_t shared_free) const override {
    return static_cast<int64_t>(alpha_ * static_cast<double>(shared_free));
  }

 private:
  double alpha_;
};

}  // namespace

static AdmissionEntry dynamic_admission() {
  return {"dynamic",
          "alpha x the free shared pool",
          [](const BufferParams& p) -> std::unique_ptr<BufferAdmission> {
            return std::make_unique<DynamicThreshold>(p.alpha);
          },
          {}};
}

namespace {
// Registered before main (core/registry.hpp).
const Registrar<AdmissionFactory> dynamic_admission_registered(buffer_admission_registry(), dynamic_admission());
}  // namespace

}  // namespace rocesim

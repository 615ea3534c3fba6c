// Static threshold (SONiC `static_th`): a fixed number of shared bytes per priority group.
#include "rocesim/switch/buffer.hpp"

namespace rocesim {
namespace {

class StaticThreshold final : public BufferAdmission {
 public:
  explicit StaticThreshold(int64_t limit) : limit_(limit) {}
  int64_t shared_limit(int64_t shared_free) const override { return limit_; }

 private:
  int64_t limit_;
};

}  // namespace

static AdmissionEntry static_admission() {
  return {"static",
          "a fixed limit, static_limit",
          [](const BufferParams& p) -> std::unique_ptr<BufferAdmission> {
            return std::make_unique<StaticThreshold>(p.static_limit.count());
          },
          {}};
}

namespace {
// Registered before main (core/registry.hpp).
const Registrar<AdmissionFactory> static_admission_registered(buffer_admission_registry(), static_admission());
}  // namespace

}  // namespace rocesim

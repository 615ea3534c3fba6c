#include "rocesim/switch/buffer.hpp"

namespace rocesim {

const Registry<AdmissionFactory>& buffer_admission_registry() {
  static const Registry<AdmissionFactory> r("switch.admission", "dynamic", {dynamic_admission(), static_admission()});
  return r;
}

const Schema<BufferParams>& BufferParams::schema() {
  static const Schema<BufferParams> s = [] {
    Schema<BufferParams> sc("admission", "shared-buffer admission per ingress priority group");
    sc.add(&BufferParams::type, "type", "dynamic", registry_doc(buffer_admission_registry()),
           one_of(buffer_admission_registry().names()))
        .add(&BufferParams::alpha, "alpha", "0.125",
             "dynamic threshold factor, 2^dynamic_th in SONiC terms (SONiC lossless PG profile: dynamic_th -3)",
             in_range(1.0 / 1024, 64.0), "factor")
        .add(&BufferParams::static_limit, "static_limit", "1MB", "shared bytes a priority group may hold (type static)")
        .add(&BufferParams::reserved, "reserved", "1248B",
             "guaranteed bytes per ingress port and priority group (SONiC lossless PG profile 'size')");
    return sc;
  }();
  return s;
}

std::unique_ptr<BufferAdmission> make_buffer_admission(const BufferParams& p) {
  return buffer_admission_registry().find(p.type)->make(p);
}

}  // namespace rocesim

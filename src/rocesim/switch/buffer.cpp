#include "rocesim/switch/buffer.hpp"

namespace rocesim {

std::unique_ptr<BufferAdmission> make_dynamic_threshold(double alpha);
std::unique_ptr<BufferAdmission> make_static_threshold(int64_t limit);

const Schema<BufferParams>& BufferParams::schema() {
  static const Schema<BufferParams> s = [] {
    Schema<BufferParams> sc("admission", "shared-buffer admission per ingress priority group");
    sc.add(&BufferParams::type, "type", "dynamic", "dynamic (alpha x free shared pool) or static (a fixed limit)",
           one_of({"dynamic", "static"}))
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
  if (p.type == "static") {
    return make_static_threshold(p.static_limit.count());
  }
  return make_dynamic_threshold(p.alpha);
}

}  // namespace rocesim

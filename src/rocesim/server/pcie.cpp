#include "rocesim/server/pcie.hpp"

namespace rocesim {

double pcie_gt_per_s(int64_t gen) {
  switch (gen) {
    case 3:
      return 8;
    case 4:
      return 16;
    case 5:
      return 32;
    case 6:
      return 64;
    default:
      return 0;
  }
}

double pcie_payload_bytes_per_s(int64_t gen, int64_t lanes, int64_t max_payload) {
  const double raw = pcie_gt_per_s(gen) * 1e9 * static_cast<double>(lanes) / 8;  // bytes per second on the lanes
  const auto mps = static_cast<double>(max_payload);
  if (gen >= 6) {
    return raw * 236.0 / 256.0 * mps / (mps + 16);
  }
  return raw * 128.0 / 130.0 * mps / (mps + 24);
}

}  // namespace rocesim

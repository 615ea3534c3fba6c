#include "rocesim/cc/cc.hpp"

namespace rocesim {

Registry<CcFactory>& cc_registry() {
  static Registry<CcFactory> r("nic.cc", "dcqcn");
  return r;
}

std::unique_ptr<CcAlgorithm> parse_cc(const YAML::Node& n, const ParseCtx& ctx, const std::string& path) {
  return make_selected(cc_registry(), n, ctx, path);
}

}  // namespace rocesim

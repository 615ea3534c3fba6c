#include "rocesim/cc/tcp_cc.hpp"

namespace rocesim {

Registry<TcpCcFactory>& tcp_cc_registry() {
  static Registry<TcpCcFactory> r("tcp.cc", "cubic");
  return r;
}

std::unique_ptr<TcpCcAlgorithm> parse_tcp_cc(const YAML::Node& n, const ParseCtx& ctx, const std::string& path) {
  return make_selected(tcp_cc_registry(), n, ctx, path);
}

}  // namespace rocesim

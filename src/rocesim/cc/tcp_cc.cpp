#include "rocesim/cc/tcp_cc.hpp"

namespace rocesim {

const Registry<TcpCcFactory>& tcp_cc_registry() {
  static const Registry<TcpCcFactory> r("tcp.cc", "cubic", {tcp_cc_cubic(), tcp_cc_dctcp(), tcp_cc_reno()});
  return r;
}

std::unique_ptr<TcpCcAlgorithm> parse_tcp_cc(const YAML::Node& n, const ParseCtx& ctx, const std::string& path) {
  const TcpCcEntry& e = tcp_cc_registry().select(n, ctx, path);
  return e.make(n.IsDefined() && n.IsMap() ? n : YAML::Node(), ctx, path);
}

}  // namespace rocesim

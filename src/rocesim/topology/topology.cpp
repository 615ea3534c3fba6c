#include "rocesim/topology/topology.hpp"

namespace rocesim {

Time LinkParams::effective_delay() const {
  if (cable_length_m > 0) {
    return Time::ps(static_cast<int64_t>(cable_length_m * 5000.0 + 0.5));  // 5 ns/m in fibre or copper
  }
  return delay;
}

const Schema<LinkParams>& LinkParams::schema(const char* default_rate) {
  auto build = [](const char* rate) {
    Schema<LinkParams> sc("link", "a full-duplex link");
    sc.add(&LinkParams::rate, "rate", rate, "line rate", in_range(Rate::gbps(1), Rate::gbps(1600)))
        .add(&LinkParams::delay, "delay", "1us", "propagation delay")
        .add(&LinkParams::cable_length_m, "cable_length", "0", "cable length in metres; if set, delay = 5 ns/m",
             in_range(0.0, 100000.0), "m")
        .validate_keys(
            [](const LinkParams& p, const YAML::Node& n) -> std::optional<std::pair<std::string, std::string>> {
              if (p.cable_length_m > 0 && n.IsMap() && n["delay"]) {
                return std::make_pair("cable_length", "give either delay or cable_length, not both");
              }
              return std::nullopt;
            });
    return sc;
  };
  static const Schema<LinkParams> r100 = build("100Gbps");
  static const Schema<LinkParams> r400 = build("400Gbps");
  return std::string(default_rate) == "400Gbps" ? r400 : r100;
}

Registry<TopologyBuilder>& topology_registry() {
  static Registry<TopologyBuilder> r("topology", "");
  return r;
}

TopologyGraph build_topology(const YAML::Node& n, const ParseCtx& ctx, const std::string& base_dir) {
  if (!n.IsDefined() || n.IsNull()) {
    throw InputError(ctx.file, 0, "topology", "missing; the scenario needs a topology");
  }
  const TopologyEntry& e = topology_registry().select(n, ctx);
  TopologyGraph g = e.make(n, ctx, base_dir);
  g.type = e.name;
  g.resolved["type"] = e.name;
  if (g.hosts.size() < 2) {
    throw InputError(ctx.file, line_of(n), "topology", "needs at least 2 hosts");
  }
  return g;
}

}  // namespace rocesim

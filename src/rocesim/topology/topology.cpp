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

std::vector<std::string> topology_types() { return {"star", "leaf-spine", "fat-tree", "file", "hpcc"}; }

TopologyGraph build_topology(const YAML::Node& n, const ParseCtx& ctx, const std::string& base_dir) {
  if (!n.IsDefined() || n.IsNull()) {
    throw InputError(ctx.file, 0, "topology", "missing; the scenario needs a topology");
  }
  const std::string type = read_type(n, ctx, "topology", topology_types());
  TopologyGraph g;
  if (type == "star") {
    g = build_star(n, ctx);
  } else if (type == "leaf-spine") {
    g = build_leaf_spine(n, ctx);
  } else if (type == "fat-tree") {
    g = build_fat_tree(n, ctx);
  } else if (type == "hpcc") {
    g = build_hpcc_topology(n, ctx, base_dir);
  } else {
    g = build_topology_file(n, ctx, base_dir);
  }
  g.type = type;
  g.resolved["type"] = type;
  if (g.hosts.size() < 2) {
    throw InputError(ctx.file, line_of(n), "topology", "needs at least 2 hosts");
  }
  return g;
}

void describe_topologies(std::vector<ParamDoc>& out) {
  out.push_back(
      {"topology.type", "string", "", "", "star, leaf-spine, fat-tree, file, or hpcc (the HPCC ns-3 format)"});
  describe_hpcc_topology(out, "topology[hpcc]");
  describe_star(out, "topology[star]");
  describe_leaf_spine(out, "topology[leaf-spine]");
  describe_fat_tree(out, "topology[fat-tree]");
  describe_topology_file(out, "topology[file]");
}

}  // namespace rocesim

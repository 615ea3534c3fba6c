// One switch with every host attached: the simplest fabric, for incast and unit experiments.
// Hosts 0..N-1 are on switch ports 0..N-1.
#include "rocesim/topology/topology.hpp"

namespace rocesim {
namespace {
struct StarParams {
  int64_t hosts = 0;
  LinkParams host_link;
  static const Schema<StarParams>& schema() {
    static const Schema<StarParams> s = [] {
      Schema<StarParams> sc("star topology", "hosts on one switch");
      sc.reserved("type", "star")
          .add(&StarParams::hosts, "hosts", "16", "number of hosts", in_range<int64_t>(2, 100000))
          .sub(&StarParams::host_link, "host_link", LinkParams::schema("100Gbps"));
      return sc;
    }();
    return s;
  }
};
}  // namespace

namespace {
TopologyGraph build_star(const YAML::Node& n, const ParseCtx& ctx, const std::string&) {
  const StarParams p = StarParams::schema().parse(n, ctx, "topology");
  TopologyGraph g;
  std::vector<int> hosts;
  for (int64_t h = 0; h < p.hosts; ++h) {
    hosts.push_back(g.add_node("host" + std::to_string(h), NodeKind::kNic));
  }
  const int sw = g.add_node("switch0", NodeKind::kSwitch);
  for (int h : hosts) {
    g.add_link(h, sw, p.host_link.rate, p.host_link.effective_delay());
  }
  g.resolved = StarParams::schema().dump(p);
  return g;
}

}  // namespace

static TopologyEntry star_topology() {
  return {"star", "hosts on one switch", build_star, describe_schema<StarParams>()};
}

namespace {
// Registered before main (core/registry.hpp).
const Registrar<TopologyBuilder> star_topology_registered(topology_registry(), star_topology());
}  // namespace

}  // namespace rocesim

// Two-tier leaf-spine (folded Clos): every leaf connects to every spine by `links_per_spine` parallel links.
// Oversubscription at a leaf = hosts_per_leaf x host rate / (spines x links_per_spine x fabric rate).
// Host numbering: leaf-major; host h is on leaf h / hosts_per_leaf.
#include "rocesim/topology/topology.hpp"

namespace rocesim {
namespace {
struct LeafSpineParams {
  int64_t leaves = 0, spines = 0, hosts_per_leaf = 0, links_per_spine = 0;
  LinkParams host_link, fabric_link;
  static const Schema<LeafSpineParams>& schema() {
    static const Schema<LeafSpineParams> s = [] {
      Schema<LeafSpineParams> sc("leaf-spine topology", "two-tier Clos");
      sc.reserved("type", "leaf-spine")
          .add(&LeafSpineParams::leaves, "leaves", "2", "number of leaf (top-of-rack) switches",
               in_range<int64_t>(1, 4096))
          .add(&LeafSpineParams::spines, "spines", "2", "number of spine switches", in_range<int64_t>(1, 4096))
          .add(&LeafSpineParams::hosts_per_leaf, "hosts_per_leaf", "8", "hosts under each leaf",
               in_range<int64_t>(1, 4096))
          .add(&LeafSpineParams::links_per_spine, "links_per_spine", "1", "parallel links from each leaf to each spine",
               in_range<int64_t>(1, 64))
          .sub(&LeafSpineParams::host_link, "host_link", LinkParams::schema("100Gbps"))
          .sub(&LeafSpineParams::fabric_link, "fabric_link", LinkParams::schema("400Gbps"));
      return sc;
    }();
    return s;
  }
};
}  // namespace

TopologyGraph build_leaf_spine(const YAML::Node& n, const ParseCtx& ctx) {
  const LeafSpineParams p = LeafSpineParams::schema().parse(n, ctx, "topology");
  TopologyGraph g;
  for (int64_t h = 0; h < p.leaves * p.hosts_per_leaf; ++h) {
    g.add_node("host" + std::to_string(h), true);
  }
  std::vector<int> leaves, spines;
  for (int64_t l = 0; l < p.leaves; ++l) {
    leaves.push_back(g.add_node("leaf" + std::to_string(l), false));
  }
  for (int64_t s = 0; s < p.spines; ++s) {
    spines.push_back(g.add_node("spine" + std::to_string(s), false));
  }
  for (int64_t h = 0; h < p.leaves * p.hosts_per_leaf; ++h) {
    g.add_link(g.hosts[h], leaves[h / p.hosts_per_leaf], p.host_link.rate, p.host_link.effective_delay());
  }
  for (int l : leaves) {
    for (int s : spines) {
      for (int64_t k = 0; k < p.links_per_spine; ++k) {
        g.add_link(l, s, p.fabric_link.rate, p.fabric_link.effective_delay());
      }
    }
  }
  g.resolved = LeafSpineParams::schema().dump(p);
  return g;
}

void describe_leaf_spine(std::vector<ParamDoc>& out, const std::string& prefix) {
  LeafSpineParams::schema().describe(prefix, out);
}

}  // namespace rocesim

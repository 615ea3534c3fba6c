// Two-tier leaf-spine (folded Clos): every leaf connects to every spine by `links_per_spine` parallel links.
// Oversubscription at a leaf = NIC ports on it x host rate / (spines x links_per_spine x fabric rate), where a
// leaf has servers_per_leaf x nics_per_host NIC ports, or servers_per_leaf with rail.
// Servers may have several NICs (`nics_per_host`); every NIC is an endpoint of its own (what workloads call a
// host), numbered server-major: endpoint s x nics + k is NIC k of server s. Without `rail`, all NICs of a server
// sit on its leaf, servers 0..servers_per_leaf-1 on leaf 0 and so on. With `rail` (rail-optimised), leaves come in
// groups of `nics_per_host`: NIC k of the servers of group g sits on leaf g x nics + k, so equal NICs of
// different servers share a leaf.
#include "rocesim/topology/topology.hpp"

namespace rocesim {
namespace {
struct LeafSpineParams {
  int64_t leaves = 0, spines = 0, servers_per_leaf = 0, links_per_spine = 0, nics_per_host = 0;
  bool rail = false;
  LinkParams host_link, fabric_link;
  static const Schema<LeafSpineParams>& schema() {
    static const Schema<LeafSpineParams> s = [] {
      Schema<LeafSpineParams> sc("leaf-spine topology", "two-tier Clos");
      sc.reserved("type", "leaf-spine")
          .add(&LeafSpineParams::leaves, "leaves", "2", "number of leaf (top-of-rack) switches",
               in_range<int64_t>(1, 4096))
          .add(&LeafSpineParams::spines, "spines", "2", "number of spine switches", in_range<int64_t>(1, 4096))
          .add(&LeafSpineParams::servers_per_leaf, "servers_per_leaf", "8",
               "servers with NICs on each leaf: all nics_per_host NICs of each, or with rail one (NIC ports per "
               "leaf: servers_per_leaf x nics_per_host, or servers_per_leaf with rail)",
               in_range<int64_t>(1, 4096))
          .renamed("hosts_per_leaf", "servers_per_leaf",
                   "it counts servers; a leaf has servers_per_leaf x nics_per_host NIC ports, or servers_per_leaf "
                   "with rail")
          .add(&LeafSpineParams::links_per_spine, "links_per_spine", "1", "parallel links from each leaf to each spine",
               in_range<int64_t>(1, 64))
          .add(&LeafSpineParams::nics_per_host, "nics_per_host", "1", "NICs per server, each with its own link",
               in_range<int64_t>(1, 64))
          .add(&LeafSpineParams::rail, "rail", "false",
               "rail-optimised: NIC k of every server in a group of leaves goes to the group's k-th leaf")
          .validate([](const LeafSpineParams& p) -> std::optional<std::pair<std::string, std::string>> {
            if (p.rail && p.leaves % p.nics_per_host != 0) {
              return std::make_pair("leaves", "with rail, leaves (" + std::to_string(p.leaves) +
                                                  ") must be a multiple of nics_per_host (" +
                                                  std::to_string(p.nics_per_host) + ")");
            }
            return std::nullopt;
          })
          .sub(&LeafSpineParams::host_link, "host_link", LinkParams::schema("100Gbps"))
          .sub(&LeafSpineParams::fabric_link, "fabric_link", LinkParams::schema("400Gbps"));
      return sc;
    }();
    return s;
  }
};
}  // namespace

namespace {
TopologyGraph build_leaf_spine(const YAML::Node& n, const ParseCtx& ctx, const std::string&) {
  const LeafSpineParams p = LeafSpineParams::schema().parse(n, ctx, "topology");
  TopologyGraph g;
  const int64_t nics = p.nics_per_host;
  // Servers: servers_per_leaf per leaf, or per group of `nics` leaves with rail (one NIC of each on every leaf).
  const int64_t servers = p.rail ? p.leaves / nics * p.servers_per_leaf : p.leaves * p.servers_per_leaf;
  for (int64_t s = 0; s < servers; ++s) {
    g.server_names.push_back("host" + std::to_string(s));
    for (int64_t k = 0; k < nics; ++k) {
      g.add_node("host" + std::to_string(s) + (nics > 1 ? ".nic" + std::to_string(k) : ""), NodeKind::kNic);
      g.endpoint_server.push_back(static_cast<int>(s));
    }
  }
  std::vector<int> leaves, spines;
  for (int64_t l = 0; l < p.leaves; ++l) {
    leaves.push_back(g.add_node("leaf" + std::to_string(l), NodeKind::kSwitch));
  }
  for (int64_t s = 0; s < p.spines; ++s) {
    spines.push_back(g.add_node("spine" + std::to_string(s), NodeKind::kSwitch));
  }
  for (int64_t s = 0; s < servers; ++s) {
    for (int64_t k = 0; k < nics; ++k) {
      const int64_t leaf = p.rail ? (s / p.servers_per_leaf) * nics + k : s / p.servers_per_leaf;
      g.add_link(g.hosts[s * nics + k], leaves[leaf], p.host_link.rate, p.host_link.effective_delay());
    }
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

}  // namespace

static TopologyEntry leaf_spine_topology() {
  return {"leaf-spine", "two-tier Clos", build_leaf_spine, describe_schema<LeafSpineParams>()};
}

namespace {
// Registered before main (core/registry.hpp).
const Registrar<TopologyBuilder> leaf_spine_topology_registered(topology_registry(), leaf_spine_topology());
}  // namespace

}  // namespace rocesim

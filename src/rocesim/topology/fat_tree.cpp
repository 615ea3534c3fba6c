// Three-tier k-ary fat-tree (Al-Fares et al., SIGCOMM 2008): k pods of k/2 edge and k/2 aggregation switches,
// (k/2)^2 core switches, k^3/4 host (NIC) ports. Servers may have several NICs (`nics_per_host`), numbered
// server-major as on leaf-spine. Without `rail`, NIC endpoint e is on edge switch e / (k/2): a server's NICs
// share its edge switch. With `rail`, edge switches form groups of nics_per_host, and NIC k of each of the k/2
// servers of a group goes to the group's k-th edge switch (one rail per NIC index).
#include "rocesim/topology/topology.hpp"

namespace rocesim {
namespace {
struct FatTreeParams {
  int64_t k = 0, nics_per_host = 0;
  bool rail = false;
  LinkParams host_link, fabric_link;
  static const Schema<FatTreeParams>& schema() {
    static const Schema<FatTreeParams> s = [] {
      Schema<FatTreeParams> sc("fat-tree topology", "three-tier k-ary fat-tree");
      sc.reserved("type", "fat-tree")
          .add(&FatTreeParams::k, "k", "4", "switch radix (even): k^3/4 hosts, 5k^2/4 switches",
               in_range<int64_t>(2, 128))
          .add(&FatTreeParams::nics_per_host, "nics_per_host", "1", "NICs per server, each with its own link",
               in_range<int64_t>(1, 64))
          .add(&FatTreeParams::rail, "rail", "false",
               "rail-optimised: NIC k of every server in a group of edge switches goes to the group's k-th edge")
          .sub(&FatTreeParams::host_link, "host_link", LinkParams::schema("100Gbps"))
          .sub(&FatTreeParams::fabric_link, "fabric_link", LinkParams::schema("100Gbps"))
          .validate([](const FatTreeParams& p) -> std::optional<std::pair<std::string, std::string>> {
            if (p.k % 2 != 0) {
              return std::make_pair("k", "must be even, got " + std::to_string(p.k));
            }
            const int64_t half = p.k / 2, edges = p.k * half;
            if (!p.rail && half % p.nics_per_host != 0) {
              return std::make_pair("nics_per_host", "an edge switch's " + std::to_string(half) +
                                                         " host ports must hold whole servers: nics_per_host (" +
                                                         std::to_string(p.nics_per_host) + ") must divide k/2");
            }
            if (p.rail && edges % p.nics_per_host != 0) {
              return std::make_pair("nics_per_host", "with rail, the " + std::to_string(edges) +
                                                         " edge switches must form whole groups: nics_per_host (" +
                                                         std::to_string(p.nics_per_host) + ") must divide k^2/2");
            }
            return std::nullopt;
          });
      return sc;
    }();
    return s;
  }
};
}  // namespace

namespace {
TopologyGraph build_fat_tree(const YAML::Node& n, const ParseCtx& ctx, const std::string&) {
  const FatTreeParams p = FatTreeParams::schema().parse(n, ctx, "topology");
  const int64_t k = p.k, half = k / 2;
  TopologyGraph g;
  const int64_t nics = p.nics_per_host, servers = k * k * k / 4 / nics;
  for (int64_t s = 0; s < servers; ++s) {
    g.server_names.push_back("host" + std::to_string(s));
    for (int64_t i = 0; i < nics; ++i) {
      g.add_node("host" + std::to_string(s) + (nics > 1 ? ".nic" + std::to_string(i) : ""), NodeKind::kNic);
      g.endpoint_server.push_back(static_cast<int>(s));
    }
  }
  std::vector<int> edge, agg, core;
  for (int64_t pod = 0; pod < k; ++pod) {
    for (int64_t i = 0; i < half; ++i) {
      edge.push_back(g.add_node("edge" + std::to_string(pod) + "_" + std::to_string(i), NodeKind::kSwitch));
    }
    for (int64_t i = 0; i < half; ++i) {
      agg.push_back(g.add_node("agg" + std::to_string(pod) + "_" + std::to_string(i), NodeKind::kSwitch));
    }
  }
  for (int64_t i = 0; i < half * half; ++i) {
    core.push_back(g.add_node("core" + std::to_string(i), NodeKind::kSwitch));
  }
  const Rate hr = p.host_link.rate, fr = p.fabric_link.rate;
  const Time hd = p.host_link.effective_delay(), fd = p.fabric_link.effective_delay();
  for (int64_t e = 0; e < servers * nics; ++e) {
    const int64_t s = e / nics, i = e % nics;
    g.add_link(g.hosts[e], edge[p.rail ? s / half * nics + i : e / half], hr, hd);
  }
  for (int64_t pod = 0; pod < k; ++pod) {
    for (int64_t e = 0; e < half; ++e) {
      for (int64_t a = 0; a < half; ++a) {
        g.add_link(edge[pod * half + e], agg[pod * half + a], fr, fd);
      }
    }
    // Aggregation switch a of every pod connects to cores a*half .. a*half+half-1.
    for (int64_t a = 0; a < half; ++a) {
      for (int64_t c = 0; c < half; ++c) {
        g.add_link(agg[pod * half + a], core[a * half + c], fr, fd);
      }
    }
  }
  g.resolved = FatTreeParams::schema().dump(p);
  return g;
}

}  // namespace

static TopologyEntry fat_tree_topology() {
  return {"fat-tree", "three-tier k-ary fat-tree", build_fat_tree, describe_schema<FatTreeParams>()};
}

namespace {
// Registered before main (core/registry.hpp).
const Registrar<TopologyBuilder> fat_tree_topology_registered(topology_registry(), fat_tree_topology());
}  // namespace

}  // namespace rocesim

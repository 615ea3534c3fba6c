// Topologies: a graph of hosts and switches joined by full-duplex links, built from the scenario's
// `topology` section by the builder its `type` names (one file per builder).
#pragma once

#include <yaml-cpp/yaml.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "rocesim/core/node_kind.hpp"
#include "rocesim/core/params.hpp"
#include "rocesim/core/registry.hpp"

namespace rocesim {

struct LinkParams {
  Rate rate;
  Time delay;
  double cable_length_m = 0;  // if > 0, delay = 5 ns per metre
  Time effective_delay() const;
  static const Schema<LinkParams>& schema(const char* default_rate);
};

struct TopoNode {
  std::string name;
  NodeKind kind = NodeKind::kSwitch;
  bool is_nic() const { return kind == NodeKind::kNic; }
};
struct TopoLink {
  int a = 0, b = 0;
  Rate rate;
  Time delay;
};

// The most nodes a topology may have (hosts and switches): 1,000,000, beyond any fabric one process simulates,
// so that a typo in a count fails at once instead of exhausting memory.
inline constexpr int64_t kMaxTopologyNodes = 1'000'000;

// Hosts are numbered 0..N-1 in the order of `hosts` (each builder documents its order).
struct TopologyGraph {
  std::string type;
  std::vector<TopoNode> nodes;
  std::vector<TopoLink> links;
  std::vector<int> hosts;  // host (NIC endpoint) index -> node index
  // Servers holding several NICs: endpoint -> server index, and the servers' names. Empty: every endpoint is a
  // server of its own, named as its node.
  std::vector<int> endpoint_server;
  std::vector<std::string> server_names;
  nlohmann::json resolved;            // the parameters as used, for summary.json
  std::vector<std::string> warnings;  // inputs the builder read but rocesim cannot honour

  int add_node(std::string name, NodeKind kind) {
    nodes.push_back({std::move(name), kind});
    if (kind == NodeKind::kNic) {
      hosts.push_back(static_cast<int>(nodes.size() - 1));
    }
    return static_cast<int>(nodes.size() - 1);
  }
  void add_link(int a, int b, Rate r, Time d) { links.push_back({a, b, r, d}); }
};

// A builder: the `topology` mapping (of its type) to a graph; `base_dir` resolves relative paths in it.
using TopologyBuilder =
    std::function<TopologyGraph(const YAML::Node& n, const ParseCtx& ctx, const std::string& base_dir)>;
using TopologyEntry = Registered<TopologyBuilder>;

// Filled by the implementations' own files (core/registry.hpp).
Registry<TopologyBuilder>& topology_registry();
// `base_dir`: where relative paths in the scenario (e.g. a topology file) are resolved.
TopologyGraph build_topology(const YAML::Node& n, const ParseCtx& ctx, const std::string& base_dir);

// Builders, one file each.
// Reads the HPCC ns-3 simulator's topology format; graph node i is that simulator's node i.
TopologyGraph read_hpcc_topology(std::istream& in, const std::string& file);

}  // namespace rocesim

// The HPCC ns-3 simulator's topology format (docs/hpcc-compat.md):
//   node_num switch_num link_num
//   <switch ids, switch_num of them>
//   src dst rate delay error_rate          one line per link, e.g. "0 320 100Gbps 1000ns 0"
// Nodes that are not switches are hosts. rocesim numbers hosts by ascending node id.
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "rocesim/core/text.hpp"
#include "rocesim/topology/topology.hpp"

namespace rocesim {
namespace {
struct HpccTopoParams {
  std::string path;
  static const Schema<HpccTopoParams>& schema() {
    static const Schema<HpccTopoParams> s =
        Schema<HpccTopoParams>("hpcc topology", "a topology file in the HPCC ns-3 simulator's format")
            .reserved("type", "hpcc")
            .add(&HpccTopoParams::path, "path", "topology.txt", "the file, relative to the scenario file");
    return s;
  }
};
}  // namespace

TopologyGraph read_hpcc_topology(std::istream& in, const std::string& f) {
  std::string line;
  int lineno = 0;
  if (!next_content_line(in, line, lineno)) {
    throw InputError(f, 1, "header", "empty file; expected 'node_num switch_num link_num'");
  }
  int64_t nodes = -1, switches = -1, links = -1;
  {
    std::istringstream ss(line);
    if (!(ss >> nodes >> switches >> links) || nodes <= 0 || switches < 0 || links < 0 || switches > nodes) {
      throw InputError(f, lineno, "header",
                       "expected 'node_num switch_num link_num' (non-negative, switches <= nodes)");
    }
    if (nodes > kMaxTopologyNodes || links > 64 * kMaxTopologyNodes) {
      throw InputError(f, lineno, "header",
                       "at most " + std::to_string(kMaxTopologyNodes) + " nodes and 64 links per node (here " +
                           std::to_string(nodes) + " nodes, " + std::to_string(links) + " links)");
    }
  }
  std::set<int64_t> sw;
  int switch_line = 0;
  {
    std::vector<int64_t> ids;
    int64_t id = 0;
    std::string rest;
    if (switches > 0) {
      if (!next_content_line(in, line, lineno)) {
        throw InputError(f, lineno + 1, "switches", "missing the line of switch ids");
      }
      switch_line = lineno;
      std::istringstream ss(line);
      while (ss >> id) {
        ids.push_back(id);
      }
      if (!ss.eof()) {
        throw InputError(f, lineno, "switches", "switch ids must be integers");
      }
    }
    if (static_cast<int64_t>(ids.size()) != switches) {
      throw InputError(
          f, lineno, "switches",
          "the header says " + std::to_string(switches) + " switches, this line lists " + std::to_string(ids.size()));
    }
    for (int64_t s : ids) {
      if (s < 0 || s >= nodes) {
        throw InputError(f, lineno, "switches",
                         "switch id " + std::to_string(s) + " is not a node (0.." + std::to_string(nodes - 1) + ")");
      }
      if (!sw.insert(s).second) {
        throw InputError(f, lineno, "switches", "switch id " + std::to_string(s) + " is listed twice");
      }
    }
  }
  TopologyGraph g;
  for (int64_t i = 0; i < nodes; ++i) {
    const bool host = !sw.count(i);
    g.add_node((host ? "host" : "switch") + std::to_string(i), host ? NodeKind::kNic : NodeKind::kSwitch);
  }
  bool lossy_links = false;
  for (int64_t k = 0; k < links; ++k) {
    if (!next_content_line(in, line, lineno)) {
      throw InputError(f, lineno, "links",
                       "the header says " + std::to_string(links) + " links, the file has " + std::to_string(k));
    }
    std::istringstream ss(line);
    int64_t a = -1, b = -1;
    std::string rate, delay;
    double err = 0;
    if (!(ss >> a >> b >> rate >> delay >> err)) {
      throw InputError(f, lineno, "link", "expected 'src dst rate delay error_rate', e.g. '0 320 100Gbps 1000ns 0'");
    }
    for (int64_t x : {a, b}) {
      if (x < 0 || x >= nodes) {
        throw InputError(f, lineno, "link",
                         "node " + std::to_string(x) + " does not exist (0.." + std::to_string(nodes - 1) + ")");
      }
    }
    if (a == b) {
      throw InputError(f, lineno, "link", "a link needs two different nodes");
    }
    Rate r;
    Time d;
    try {
      r = parse_rate(rate);
      d = parse_time(delay);
    } catch (const UnitError& e) {
      throw InputError(f, lineno, "link", e.message);
    }
    // The same limits as a YAML topology's links (topology.cpp, LinkParams).
    if (r < Rate::gbps(1) || r > Rate::gbps(1600)) {
      throw InputError(f, lineno, "link", "rate " + to_string(r) + " is outside 1Gbps..1600Gbps");
    }
    if (err < 0 || err > 1) {
      throw InputError(f, lineno, "link", "error_rate must be in 0..1");
    }
    lossy_links = lossy_links || err > 0;
    g.add_link(static_cast<int>(a), static_cast<int>(b), r, d);
  }
  if (next_content_line(in, line, lineno)) {
    throw InputError(f, lineno, "links",
                     "more lines than the " + std::to_string(links) + " links the header announces");
  }
  if (lossy_links) {
    g.warnings.push_back(f + ": per-link error rates are not modelled (links are loss-free)");
  }
  std::vector<int> degree(g.nodes.size(), 0);
  for (const TopoLink& l : g.links) {
    ++degree[static_cast<size_t>(l.a)];
    ++degree[static_cast<size_t>(l.b)];
  }
  for (int64_t s : sw) {
    if (degree[static_cast<size_t>(s)] == 0) {
      throw InputError(f, switch_line, "switches", "switch " + std::to_string(s) + " has no link");
    }
  }
  return g;
}

namespace {
TopologyGraph build_hpcc_topology(const YAML::Node& n, const ParseCtx& ctx, const std::string& base_dir) {
  const HpccTopoParams p = HpccTopoParams::schema().parse(n, ctx, "topology");
  InputFile f = open_input(p.path, base_dir, ctx, n["path"], "topology.path");
  TopologyGraph g = read_hpcc_topology(f.in, f.path);
  g.resolved = HpccTopoParams::schema().dump(p);
  return g;
}

}  // namespace

static TopologyEntry hpcc_topology() {
  return {"hpcc", "the HPCC ns-3 topology format", build_hpcc_topology, describe_schema<HpccTopoParams>()};
}

namespace {
// Registered before main (core/registry.hpp).
const Registrar<TopologyBuilder> hpcc_topology_registered(topology_registry(), hpcc_topology());
}  // namespace

}  // namespace rocesim

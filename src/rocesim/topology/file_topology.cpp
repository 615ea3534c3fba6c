// A custom topology from a text file (docs/scenario-reference.md, "Topology files"):
//   # comment
//   host <name> [nics=N]        a server with N NICs (default 1): nodes <name>.nic0 .. <name>.nic<N-1>, one endpoint
//   each switch <name> link <name-a> <name-b> <rate> <delay>      e.g.  link h0 tor0 100Gbps 1us
// Hosts are numbered in the order of their `host` lines. Each host has exactly one link.
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "rocesim/core/error.hpp"
#include "rocesim/core/text.hpp"
#include "rocesim/topology/topology.hpp"

namespace rocesim {
namespace {
struct FileTopoParams {
  std::string path;
  static const Schema<FileTopoParams>& schema() {
    static const Schema<FileTopoParams> s =
        Schema<FileTopoParams>("file topology", "nodes and links from a text file")
            .reserved("type", "file")
            .add(&FileTopoParams::path, "path", "topology.txt", "the file, relative to the scenario file");
    return s;
  }
};
}  // namespace

namespace {
// Node names reach every output (CSV fields, JSON strings, the terminal): one line of UTF-8 text. Commas and quotes
// are allowed (CSV writers quote them).
std::string name_error(const std::string& name) {
  if (is_plain_text(name)) {
    return "";
  }
  return "node name '" + printable(name) + "' holds a control byte or bytes that are not UTF-8";
}

TopologyGraph build_topology_file(const YAML::Node& n, const ParseCtx& ctx, const std::string& base_dir) {
  const FileTopoParams p = FileTopoParams::schema().parse(n, ctx, "topology");
  InputFile file = open_input(p.path, base_dir, ctx, n["path"], "topology.path");
  std::ifstream& in = file.in;
  const std::string f = file.path;
  TopologyGraph g;
  std::map<std::string, int> ids;
  std::vector<int> degree;
  std::string line;
  int lineno = 0;
  while (next_content_line(in, line, lineno, '#')) {
    std::istringstream ss(line);
    std::string kw;
    if (!(ss >> kw)) {
      continue;
    }
    if (kw == "host" || kw == "switch") {
      std::string name;
      if (!(ss >> name)) {
        throw InputError(f, lineno, kw, "missing node name");
      }
      if (const std::string why = name_error(name); !why.empty()) {
        throw InputError(f, lineno, kw, why);
      }
      if (ids.count(name)) {
        throw InputError(f, lineno, kw, "node '" + name + "' is declared twice");
      }
      int64_t nics = 1;
      std::string opt;
      if (ss >> opt) {
        if (kw != "host" || opt.rfind("nics=", 0) != 0) {
          throw InputError(f, lineno, kw, "unexpected '" + opt + "' (a host may take nics=N)");
        }
        try {
          nics = std::stoll(opt.substr(5));
        } catch (...) {
          nics = 0;
        }
        if (nics < 1 || nics > 64) {
          throw InputError(f, lineno, kw, "nics must be 1..64");
        }
      }
      if (kw == "host") {
        g.server_names.push_back(name);
      }
      for (int64_t k = 0; k < nics; ++k) {
        const std::string nm = nics > 1 ? name + ".nic" + std::to_string(k) : name;
        if (ids.count(nm)) {
          throw InputError(f, lineno, kw, "node '" + nm + "' is declared twice");
        }
        ids[nm] = g.add_node(nm, kw == "host" ? NodeKind::kNic : NodeKind::kSwitch);
        degree.push_back(0);
        if (kw == "host") {
          g.endpoint_server.push_back(static_cast<int>(g.server_names.size() - 1));
        }
      }
    } else if (kw == "link") {
      std::string a, b, rate, delay, extra;
      if (!(ss >> a >> b >> rate >> delay) || (ss >> extra)) {
        throw InputError(f, lineno, "link", "expected: link <node-a> <node-b> <rate> <delay>");
      }
      for (const auto& nm : {a, b}) {
        if (!ids.count(nm)) {
          throw InputError(f, lineno, "link", "unknown node '" + nm + "' (declare it with host or switch first)");
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
      g.add_link(ids[a], ids[b], r, d);
      ++degree[ids[a]];
      ++degree[ids[b]];
    } else {
      throw InputError(f, lineno, kw, "unknown line type; expected host, switch or link");
    }
  }
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (g.nodes[i].is_nic() && degree[i] != 1) {
      throw InputError(f, 0, "host " + g.nodes[i].name,
                       "a host needs exactly one link (it has " + std::to_string(degree[i]) + ")");
    }
    if (!g.nodes[i].is_nic() && degree[i] == 0) {
      throw InputError(f, 0, "switch " + g.nodes[i].name, "switch has no links");
    }
  }
  g.resolved = FileTopoParams::schema().dump(p);
  return g;
}

}  // namespace

static TopologyEntry file_topology() {
  return {"file", "nodes and links from a file", build_topology_file, describe_schema<FileTopoParams>()};
}

namespace {
// Registered before main (core/registry.hpp).
const Registrar<TopologyBuilder> file_topology_registered(topology_registry(), file_topology());
}  // namespace

}  // namespace rocesim

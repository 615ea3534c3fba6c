#include "rocesim/engine/partitioner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>
#include <string_view>

namespace rocesim {

Time fabric_lookahead(const TopologyGraph& g, wire::Fabric fabric) {
  // The smallest frame on the wire: an InfiniBand flow-control packet, or an Ethernet minimum frame (a PFC frame).
  const int smallest = fabric == wire::Fabric::kInfiniband ? wire::kIbFlowControl + wire::kIbDelimiters
                                                           : wire::kMinFrame + wire::kPreambleIfg;
  const std::vector<uint32_t> unit = units_of(g);
  Time least = Time::max();
  for (const TopoLink& l : g.links) {
    if (unit[l.a] != unit[l.b]) {
      least = std::min(least, l.delay + l.rate.tx_time(Bytes(smallest)));
    }
  }
  return least == Time::max() ? Time::ms(1) : least;
}

namespace {

// Per graph node, its switch's or server's number.
std::vector<uint32_t> switches_and_servers(const TopologyGraph& g) {
  std::vector<uint32_t> unit(g.nodes.size(), UINT32_MAX);
  uint32_t next = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (!g.nodes[i].is_nic()) {
      unit[i] = next++;
    }
  }
  const bool grouped = g.endpoint_server.size() == g.hosts.size();
  std::vector<uint32_t> server_unit;
  for (size_t h = 0; h < g.hosts.size(); ++h) {
    const auto server = static_cast<size_t>(grouped ? g.endpoint_server[h] : static_cast<int>(h));
    if (server_unit.size() <= server) {
      server_unit.resize(server + 1, UINT32_MAX);
    }
    if (server_unit[server] == UINT32_MAX) {
      server_unit[server] = next++;
    }
    unit[g.hosts[h]] = server_unit[server];
  }
  return unit;
}

}  // namespace

std::vector<uint32_t> units_of(const TopologyGraph& g) {
  std::vector<uint32_t> unit = switches_and_servers(g);
  // Union-find over the zero-delay links; the merged units keep the order of their first member.
  std::vector<uint32_t> parent(unit.empty() ? 0 : *std::max_element(unit.begin(), unit.end()) + 1);
  for (uint32_t u = 0; u < parent.size(); ++u) {
    parent[u] = u;
  }
  auto root = [&](uint32_t u) {
    while (parent[u] != u) {
      u = parent[u] = parent[parent[u]];
    }
    return u;
  };
  for (const TopoLink& l : g.links) {
    if (l.delay == Time()) {
      const uint32_t a = root(unit[l.a]), b = root(unit[l.b]);
      parent[std::max(a, b)] = std::min(a, b);
    }
  }
  std::vector<uint32_t> number(parent.size(), UINT32_MAX);
  uint32_t next = 0;
  for (uint32_t u = 0; u < parent.size(); ++u) {
    if (number[root(u)] == UINT32_MAX) {
      number[root(u)] = next++;
    }
  }
  for (uint32_t& u : unit) {
    u = number[root(u)];
  }
  return unit;
}

size_t zero_delay_joins(const TopologyGraph& g) {
  const std::vector<uint32_t> unit = switches_and_servers(g);
  size_t n = 0;
  for (const TopoLink& l : g.links) {
    n += l.delay == Time() && unit[l.a] != unit[l.b];
  }
  return n;
}

Partitioning partition_fabric(const TopologyGraph& g, size_t parts, wire::Fabric fabric) {
  Partitioning out;
  out.parts = parts;
  out.lookahead = fabric_lookahead(g, fabric);
  const std::vector<uint32_t> unit = units_of(g);
  const size_t units = unit.empty() ? 0 : *std::max_element(unit.begin(), unit.end()) + 1;
  // Load of a unit: the link ends of its nodes.
  std::vector<int64_t> load(units, 0);
  std::vector<std::vector<int>> nic_neighbours(g.nodes.size());
  for (const TopoLink& l : g.links) {
    ++load[unit[l.a]];
    ++load[unit[l.b]];
    if (g.nodes[l.a].is_nic()) {
      nic_neighbours[l.b].push_back(l.a);
    }
    if (g.nodes[l.b].is_nic()) {
      nic_neighbours[l.a].push_back(l.b);
    }
  }
  // Order: each leaf (a switch with NICs) followed by the servers first attached to it; the other switches spread
  // evenly between the leaf groups, so that a contiguous share of the order holds a share of them.
  std::vector<int> leaves, uppers;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (!g.nodes[i].is_nic()) {
      (nic_neighbours[i].empty() ? uppers : leaves).push_back(static_cast<int>(i));
    }
  }
  std::vector<uint32_t> order;
  std::vector<bool> placed(units, false);
  auto place = [&](uint32_t u) {
    if (!placed[u]) {
      placed[u] = true;
      order.push_back(u);
    }
  };
  // A server goes with one of the leaves its NICs reach: the only one on an ordinary leaf-spine; on a rail fabric,
  // where every server reaches every rail's leaf, the servers take turns, so that each share of the leaves gets a
  // share of the servers (and of their GPUs' and NICs' work).
  std::vector<std::vector<uint32_t>> leaf_units(units);  // per server unit: the leaves it reaches, in order
  std::vector<uint32_t> servers_in_order;
  for (size_t k = 0; k < leaves.size(); ++k) {
    for (int n : nic_neighbours[leaves[k]]) {
      std::vector<uint32_t>& reach = leaf_units[unit[n]];
      if (reach.empty()) {
        servers_in_order.push_back(unit[n]);
      }
      if (reach.empty() || reach.back() != k) {
        reach.push_back(static_cast<uint32_t>(k));
      }
    }
  }
  std::vector<std::vector<uint32_t>> servers_of(leaves.size());
  for (size_t j = 0; j < servers_in_order.size(); ++j) {
    const std::vector<uint32_t>& reach = leaf_units[servers_in_order[j]];
    servers_of[reach[j % reach.size()]].push_back(servers_in_order[j]);
  }
  size_t next_upper = 0;
  for (size_t k = 0; k < leaves.size(); ++k) {
    place(unit[leaves[k]]);
    for (uint32_t u : servers_of[k]) {
      place(u);
    }
    for (; next_upper < uppers.size() && next_upper * leaves.size() <= k * uppers.size(); ++next_upper) {
      place(unit[uppers[next_upper]]);
    }
  }
  for (; next_upper < uppers.size(); ++next_upper) {
    place(unit[uppers[next_upper]]);
  }
  for (uint32_t u = 0; u < units; ++u) {
    place(u);
  }
  // Contiguous shares of about equal load, each at least one unit: a unit starts the next share when the share
  // would end nearer its target without it (half of it or more past the target).
  int64_t total = 0;
  for (int64_t l : load) {
    total += std::max<int64_t>(l, 1);
  }
  std::vector<uint32_t> unit_part(units, 0);
  size_t part = 0, in_part = 0;
  int64_t sum = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    const size_t units_left = order.size() - i;  // this one included
    const int64_t half = std::max<int64_t>(load[order[i]], 1) / 2;
    if (in_part > 0 && part + 1 < parts &&
        (units_left <= parts - part - 1 ||
         (sum + half) * static_cast<int64_t>(parts) >= total * static_cast<int64_t>(part + 1))) {
      ++part;
      in_part = 0;
    }
    unit_part[order[i]] = static_cast<uint32_t>(part);
    ++in_part;
    sum += std::max<int64_t>(load[order[i]], 1);
  }
  out.node_part.resize(g.nodes.size());
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    out.node_part[i] = unit_part[unit[i]];
  }
  return out;
}

Partitioning partition_named(const TopologyGraph& g, const std::vector<std::string>& parts, wire::Fabric fabric) {
  constexpr uint32_t kNone = UINT32_MAX;
  // Every name a pattern can match: the nodes', and each server's (standing for its NICs).
  std::vector<std::vector<int>> server_nodes(g.server_names.size());
  for (size_t h = 0; h < g.endpoint_server.size() && h < g.hosts.size(); ++h) {
    server_nodes[static_cast<size_t>(g.endpoint_server[h])].push_back(g.hosts[h]);
  }
  std::vector<uint32_t> node_part(g.nodes.size(), kNone);
  for (size_t p = 0; p < parts.size(); ++p) {
    std::istringstream words(parts[p]);
    std::string pattern;
    size_t named = 0;
    while (words >> pattern) {
      const bool prefix = pattern.back() == '*';
      const std::string_view stem = prefix ? std::string_view(pattern).substr(0, pattern.size() - 1) : pattern;
      auto matches = [&](const std::string& name) { return prefix ? name.starts_with(stem) : name == stem; };
      size_t hits = 0;
      auto take = [&](int node) {
        const auto n = static_cast<size_t>(node);
        if (node_part[n] != kNone && node_part[n] != p) {
          throw AssignmentError{p, fmt::format("{} is already in partition {}", g.nodes[n].name, node_part[n])};
        }
        node_part[n] = static_cast<uint32_t>(p);
        ++hits;
      };
      for (size_t i = 0; i < g.nodes.size(); ++i) {
        if (matches(g.nodes[i].name)) {
          take(static_cast<int>(i));
        }
      }
      for (size_t sv = 0; sv < server_nodes.size(); ++sv) {
        if (matches(g.server_names[sv])) {
          for (int n : server_nodes[sv]) {
            take(n);
          }
        }
      }
      if (hits == 0) {
        throw AssignmentError{p, fmt::format("'{}' names no switch, server or NIC of the topology", pattern)};
      }
      named += hits;
    }
    if (named == 0) {
      throw AssignmentError{p, "a partition with no nodes"};
    }
  }
  const std::vector<uint32_t> unit = units_of(g);
  std::vector<size_t> first_of_unit(g.nodes.size(), SIZE_MAX);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (node_part[i] == kNone) {
      throw AssignmentError{SIZE_MAX,
                            fmt::format("{} is in no partition: every switch and NIC must be", g.nodes[i].name)};
    }
    size_t& first = first_of_unit[unit[i]];
    if (first == SIZE_MAX) {
      first = i;
    } else if (node_part[first] != node_part[i]) {
      throw AssignmentError{
          SIZE_MAX, fmt::format("{} (partition {}) and {} (partition {}) must stay together: a server with its NICs, "
                                "and nodes joined by a link without delay, are never cut",
                                g.nodes[first].name, node_part[first], g.nodes[i].name, node_part[i])};
    }
  }
  Partitioning out;
  out.parts = parts.size();
  out.lookahead = fabric_lookahead(g, fabric);
  out.node_part = std::move(node_part);
  return out;
}

}  // namespace rocesim

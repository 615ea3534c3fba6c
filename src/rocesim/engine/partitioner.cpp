#include "rocesim/engine/partitioner.hpp"

#include <algorithm>

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

std::vector<uint32_t> units_of(const TopologyGraph& g) {
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
  // Contiguous shares of about equal load, each at least one unit.
  int64_t total = 0;
  for (int64_t l : load) {
    total += std::max<int64_t>(l, 1);
  }
  std::vector<uint32_t> unit_part(units, 0);
  size_t part = 0, in_part = 0;
  int64_t sum = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    const size_t units_left = order.size() - i;  // this one included
    if (in_part > 0 && part + 1 < parts &&
        (units_left <= parts - part - 1 ||
         sum * static_cast<int64_t>(parts) >= total * static_cast<int64_t>(part + 1))) {
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

}  // namespace rocesim

#include "rocesim/topology/routing.hpp"

#include <cctype>
#include <deque>
#include <optional>
#include <string>

namespace rocesim {

Adjacency adjacency(const TopologyGraph& g, const std::vector<char>& up) {
  Adjacency adj(g.nodes.size());
  std::vector<uint16_t> next_port(g.nodes.size(), 0);
  for (size_t i = 0; i < g.links.size(); ++i) {
    const TopoLink& l = g.links[i];
    const uint16_t pa = next_port[l.a]++, pb = next_port[l.b]++;
    if (up[i]) {
      adj[l.a].push_back({l.b, pa, static_cast<int>(i)});
      adj[l.b].push_back({l.a, pb, static_cast<int>(i)});
    }
  }
  return adj;
}

void distances_to(const TopologyGraph& g, const Adjacency& adj, int target, std::vector<int>& dist) {
  dist.assign(g.nodes.size(), -1);
  std::deque<int> q;
  dist[target] = 0;
  q.push_back(target);
  while (!q.empty()) {
    const int u = q.front();
    q.pop_front();
    if (g.nodes[u].is_nic() && u != target) {
      continue;
    }
    for (const Arc& a : adj[u]) {
      if (dist[a.node] < 0) {
        dist[a.node] = dist[u] + 1;
        q.push_back(a.node);
      }
    }
  }
}

std::vector<int> levels(const TopologyGraph& g) {
  const Adjacency adj = adjacency(g, std::vector<char>(g.links.size(), 1));
  std::vector<int> level(g.nodes.size(), -1);
  std::deque<int> q;
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    if (g.nodes[n].is_nic()) {
      level[n] = 0;
      q.push_back(static_cast<int>(n));
    }
  }
  while (!q.empty()) {
    const int u = q.front();
    q.pop_front();
    for (const Arc& a : adj[u]) {
      if (level[a.node] < 0) {
        level[a.node] = level[u] + 1;
        q.push_back(a.node);
      }
    }
  }
  return level;
}

Tiers switch_tiers(const TopologyGraph& g) {
  Tiers t;
  const std::vector<int> level = levels(g);
  t.of_node.assign(g.nodes.size(), -1);
  std::vector<std::optional<std::string>> prefix;
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    if (g.nodes[n].is_nic() || level[n] < 1) {
      continue;
    }
    const int tier = level[n] - 1;
    t.of_node[n] = tier;
    if (prefix.size() <= static_cast<size_t>(tier)) {
      prefix.resize(tier + 1);
    }
    const std::string& name = g.nodes[n].name;
    size_t len = 0;
    while (len < name.size() && std::isalpha(static_cast<unsigned char>(name[len]))) {
      ++len;
    }
    std::string mine = name.substr(0, len);
    if (!prefix[tier]) {
      prefix[tier] = mine;
    } else {  // keep what every name so far shares
      size_t k = 0;
      while (k < prefix[tier]->size() && k < mine.size() && (*prefix[tier])[k] == mine[k]) {
        ++k;
      }
      prefix[tier]->resize(k);
    }
  }
  for (size_t tier = 0; tier < prefix.size(); ++tier) {
    const bool named = prefix[tier] && !prefix[tier]->empty();
    t.names.push_back(named ? *prefix[tier] : "tier" + std::to_string(tier + 1));
  }
  return t;
}

}  // namespace rocesim

#include "rocesim/topology/routing.hpp"

#include <deque>

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

}  // namespace rocesim

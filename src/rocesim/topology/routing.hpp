// Shortest-path ECMP over a topology graph: the routes every switch computes (Network's forwarding tables) and
// the static analyses (`rocesim check`) read the same next hops from here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rocesim/topology/topology.hpp"

namespace rocesim {

// One end of a link as seen from a node: the neighbour, this node's port on the link, and the link's index.
struct Arc {
  int node = 0;
  uint16_t port = 0;
  int link = 0;
};
// Per node, the arcs of the links that are up (`up[link]`); a node's ports are numbered in link order whether
// their links are up or not, so that a port keeps its number when a link fails.
using Adjacency = std::vector<std::vector<Arc>>;
Adjacency adjacency(const TopologyGraph& g, const std::vector<char>& up);

// Hop counts to `target` over `adj` (-1: unreachable) into `dist`. A NIC other than the target is never a
// transit hop.
void distances_to(const TopologyGraph& g, const Adjacency& adj, int target, std::vector<int>& dist);

// Per node, its level: hops from the nearest NIC over every link (NICs 0, a leaf 1, a spine 2; -1 for a node no NIC
// reaches). Up-down routing and Tagger's bounces (switch/tagger.hpp) are relative to it.
std::vector<int> levels(const TopologyGraph& g);

// The switches' tiers: tier t holds the switches of level t + 1, named by the prefix of letters their names share
// ("leaf", "spine"; a fat-tree's "edge", "agg", "core"), or "tier<t+1>" if they share none.
struct Tiers {
  std::vector<int> of_node;        // per node: its tier, -1 for a NIC or a node no NIC reaches
  std::vector<std::string> names;  // per tier
};
Tiers switch_tiers(const TopologyGraph& g);

// Whether the arc from `node` (at distance dist[node] > 0 from `target`) is one of its ECMP next hops: one hop
// closer, and not through another NIC.
inline bool is_next_hop(const TopologyGraph& g, const std::vector<int>& dist, int node, const Arc& a, int target) {
  return dist[a.node] >= 0 && dist[a.node] == dist[node] - 1 && (!g.nodes[a.node].is_nic() || a.node == target);
}

}  // namespace rocesim

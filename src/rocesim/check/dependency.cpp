#include "rocesim/check/dependency.hpp"

#include <algorithm>
#include <map>

#include "rocesim/core/cycles.hpp"
#include "rocesim/topology/routing.hpp"

namespace rocesim {
namespace {

// The fabric at switch level: egress queues toward other switches are the graph's nodes (a queue toward a NIC
// waits on nothing: NICs take what arrives).
struct Fabric {
  explicit Fabric(const TopologyGraph& graph) : g(graph), level(levels(graph)) {
    node_sw.assign(g.nodes.size(), -1);
    std::vector<int> ports(g.nodes.size(), 0);
    for (const TopoLink& l : g.links) {
      ++ports[l.a];
      ++ports[l.b];
    }
    for (size_t n = 0; n < g.nodes.size(); ++n) {
      if (!g.nodes[n].is_nic()) {
        node_sw[n] = static_cast<int>(sw_node.size());
        sw_node.push_back(static_cast<int>(n));
        port_base.push_back(static_cast<uint32_t>(egress_peer.size()));
        egress_peer.resize(egress_peer.size() + static_cast<size_t>(ports[n]), -1);
        owner.resize(egress_peer.size(), static_cast<int>(sw_node.size()) - 1);
      }
    }
    port_base.push_back(static_cast<uint32_t>(egress_peer.size()));
    link_port.resize(g.links.size());
    std::vector<uint16_t> next(g.nodes.size(), 0);
    std::vector<int> nic_links(g.nodes.size(), 0);
    for (size_t i = 0; i < g.links.size(); ++i) {
      const TopoLink& l = g.links[i];
      link_port[i] = {next[l.a]++, next[l.b]++};
      const int sa = node_sw[l.a], sb = node_sw[l.b];
      if (sa >= 0) {
        egress_peer[port_base[sa] + link_port[i].first] = sb;
      }
      if (sb >= 0) {
        egress_peer[port_base[sb] + link_port[i].second] = sa;
      }
      if (sa >= 0 && sb >= 0) {
        switch_links.push_back(static_cast<int>(i));
      }
      ++nic_links[l.a];
      ++nic_links[l.b];
    }
    // Destinations: a NIC on one link is reached through its switch (every NIC there has the same routes
    // beyond it); a NIC on several links is a destination of its own.
    std::vector<char> is_target(g.nodes.size(), 0), is_source(sw_node.size(), 0);
    for (size_t i = 0; i < g.links.size(); ++i) {
      const TopoLink& l = g.links[i];
      for (const auto& [nic, sw] : {std::pair{l.a, l.b}, std::pair{l.b, l.a}}) {
        if (g.nodes[nic].is_nic() && node_sw[sw] >= 0) {
          is_target[nic_links[nic] == 1 ? sw : nic] = 1;
          is_source[node_sw[sw]] = 1;
        }
      }
    }
    for (size_t n = 0; n < g.nodes.size(); ++n) {
      if (is_target[n]) {
        targets.push_back(static_cast<int>(n));
      }
    }
    for (size_t s = 0; s < sw_node.size(); ++s) {
      if (is_source[s]) {
        sources.push_back(static_cast<int>(s));
      }
    }
    mask_off.resize(egress_peer.size() + 1, 0);
    for (size_t e = 0; e < egress_peer.size(); ++e) {
      const int b = egress_peer[e];
      mask_off[e + 1] = mask_off[e] + (b < 0 ? 0 : words(b));
    }
    sw_off.resize(sw_node.size() + 1, 0);
    for (size_t sw = 0; sw < sw_node.size(); ++sw) {
      sw_off[sw + 1] = sw_off[sw] + words(static_cast<int>(sw));
    }
    to_switch.assign(sw_off.back(), 0);
    for (size_t sw = 0; sw < sw_node.size(); ++sw) {
      for (uint32_t p = 0; p < port_base[sw + 1] - port_base[sw]; ++p) {
        if (egress_peer[port_base[sw] + p] >= 0) {
          to_switch[sw_off[sw] + p / 64] |= uint64_t{1} << (p % 64);
        }
      }
    }
  }
  uint32_t words(int sw) const { return (port_base[sw + 1] - port_base[sw] + 63) / 64; }
  // Whether queue e (A toward B) waiting on queue f (B toward C) is a bounce at B: A and C both above B.
  bool bounce(uint32_t e, uint32_t f) const {
    const int b = level[sw_node[egress_peer[e]]];
    return level[sw_node[owner[e]]] > b && level[sw_node[egress_peer[f]]] > b;
  }
  std::string queue_name(uint32_t e) const {
    const int s = static_cast<int>(std::upper_bound(port_base.begin(), port_base.end(), e) - port_base.begin()) - 1;
    return g.nodes[sw_node[s]].name + ":" + std::to_string(e - port_base[s]);
  }
  std::string link_name(int i) const {
    const TopoLink& l = g.links[i];
    return g.nodes[l.a].name + ":" + std::to_string(link_port[i].first) + "-" + g.nodes[l.b].name + ":" +
           std::to_string(link_port[i].second);
  }

  const TopologyGraph& g;
  std::vector<int> level;  // per node (topology/routing.hpp)
  std::vector<int> sw_node, node_sw;
  std::vector<uint32_t> port_base;                       // per switch (and one past the last): its first egress queue
  std::vector<int> egress_peer;                          // per egress queue: the switch it feeds, or -1 (a NIC)
  std::vector<int> owner;                                // per egress queue: its switch
  std::vector<std::pair<uint16_t, uint16_t>> link_port;  // per link: the ports at its two ends
  std::vector<int> switch_links;                         // links between two switches: the ones failure sets take
  std::vector<int> targets, sources;                     // destination nodes; switches with NICs attached
  std::vector<uint32_t> mask_off;                        // per egress queue: where its dependency mask starts
  // Port masks per switch (words sw_off[s] .. sw_off[s + 1]): `to_switch`, the ports toward another switch.
  std::vector<uint32_t> sw_off;
  std::vector<uint64_t> to_switch;
};

// A set of ports of every switch, as bit masks laid out by Fabric::sw_off.
using PortSets = std::vector<uint64_t>;

template <typename F>
void for_each_port(const Fabric& f, const PortSets& ps, int sw, F&& fn) {
  for (uint32_t w = f.sw_off[sw]; w < f.sw_off[sw + 1]; ++w) {
    for (uint64_t m = ps[w]; m; m &= m - 1) {
      fn(static_cast<uint16_t>((w - f.sw_off[sw]) * 64 + static_cast<uint32_t>(__builtin_ctzll(m))));
    }
  }
}

// A dependency graph: per egress queue, the set of the next switch's queues it can wait on, as a bit mask.
struct DepGraph {
  explicit DepGraph(const Fabric& f) : f(f), bits(f.mask_off.back(), 0) {}
  void clear() { std::fill(bits.begin(), bits.end(), 0); }
  void merge(const DepGraph& o) {
    for (size_t w = 0; w < bits.size(); ++w) {
      bits[w] |= o.bits[w];
    }
  }
  // `from` (a queue toward switch b) waits on b's queues in `next` (b's next hops) that lead to a switch.
  void add(uint32_t from, int b, const PortSets& next) {
    for (uint32_t w = 0; w < f.sw_off[b + 1] - f.sw_off[b]; ++w) {
      bits[f.mask_off[from] + w] |= next[f.sw_off[b] + w] & f.to_switch[f.sw_off[b] + w];
    }
  }
  template <typename F>
  void for_each_next(uint32_t e, F&& fn) const {
    const int b = f.egress_peer[e];
    for (uint32_t w = f.mask_off[e]; w < f.mask_off[e + 1]; ++w) {
      for (uint64_t m = bits[w]; m; m &= m - 1) {
        fn(f.port_base[b] + (w - f.mask_off[e]) * 64 + static_cast<uint32_t>(__builtin_ctzll(m)));
      }
    }
  }
  const Fabric& f;
  std::vector<uint64_t> bits;
};

// Adds to `dep` the waits that one destination's traffic creates with next hops `nh`, from every switch that
// traffic can reach (from a switch with NICs, along next hops).
void add_target(const Fabric& f, const PortSets& nh, DepGraph& dep, std::vector<char>& seen, std::vector<int>& stack) {
  std::fill(seen.begin(), seen.end(), 0);
  stack.clear();
  for (int s : f.sources) {
    seen[s] = 1;
    stack.push_back(s);
  }
  while (!stack.empty()) {
    const int a = stack.back();
    stack.pop_back();
    for_each_port(f, nh, a, [&](uint16_t p) {
      const uint32_t e = f.port_base[a] + p;
      const int b = f.egress_peer[e];
      if (b < 0) {
        return;
      }
      dep.add(e, b, nh);
      if (!seen[b]) {
        seen[b] = 1;
        stack.push_back(b);
      }
    });
  }
}

// One cycle through each strongly connected set of `dep`, as egress queue ids; `tagged`: without the waits across
// a bounce.
std::vector<std::vector<uint32_t>> cycles_of(const Fabric& f, const DepGraph& dep, bool tagged) {
  std::vector<char> active(f.egress_peer.size());
  for (size_t e = 0; e < active.size(); ++e) {
    active[e] = f.egress_peer[e] >= 0;
  }
  return one_cycle_per_component(static_cast<uint32_t>(active.size()), active, [&](uint32_t v, auto&& fn) {
    dep.for_each_next(v, [&](uint32_t w) {
      if (!tagged || !f.bounce(v, w)) {
        fn(w);
      }
    });
  });
}

// Calls fn(set) for every set of `k` of `items`, in lexicographic order.
template <typename F>
void for_each_subset(const std::vector<int>& items, int k, F&& fn) {
  std::vector<size_t> idx(static_cast<size_t>(k));
  for (size_t i = 0; i < idx.size(); ++i) {
    idx[i] = i;
  }
  if (static_cast<size_t>(k) > items.size()) {
    return;
  }
  std::vector<int> set(static_cast<size_t>(k));
  while (true) {
    for (size_t i = 0; i < idx.size(); ++i) {
      set[i] = items[idx[i]];
    }
    fn(set);
    int i = k - 1;
    while (i >= 0 && idx[static_cast<size_t>(i)] == items.size() - static_cast<size_t>(k - i)) {
      --i;
    }
    if (i < 0) {
      return;
    }
    ++idx[static_cast<size_t>(i)];
    for (size_t j = static_cast<size_t>(i) + 1; j < idx.size(); ++j) {
      idx[j] = idx[j - 1] + 1;
    }
  }
}

// Each switch's next hops toward `target` at distances `dist`, over the arcs of `adj`.
void next_hops(const Fabric& f, const Adjacency& adj, const std::vector<int>& dist, int target, PortSets& out) {
  std::fill(out.begin(), out.end(), 0);
  for (size_t s = 0; s < f.sw_node.size(); ++s) {
    const int node = f.sw_node[s];
    if (dist[node] <= 0) {
      continue;
    }
    for (const Arc& a : adj[node]) {
      if (is_next_hop(f.g, dist, node, a, target)) {
        out[f.sw_off[s] + a.port / 64] |= uint64_t{1} << (a.port % 64);
      }
    }
  }
}

}  // namespace

DependencyReport find_dependency_cycles(const TopologyGraph& g, int failures, bool tagged,
                                        const std::function<void(size_t, size_t)>& progress) {
  const Fabric f(g);
  DependencyReport rep;
  rep.failures = failures;
  rep.tagged = tagged;
  const std::vector<char> all_up(g.links.size(), 1);
  const Adjacency adj0 = adjacency(g, all_up);
  std::vector<PortSets> before(f.targets.size(), PortSets(f.sw_off.back()));
  std::vector<int> dist;
  for (size_t t = 0; t < f.targets.size(); ++t) {
    distances_to(g, adj0, f.targets[t], dist);
    next_hops(f, adj0, dist, f.targets[t], before[t]);
  }
  DepGraph settled(f), converging(f);
  PortSets now(f.sw_off.back()), mixed(f.sw_off.back()), up_ports(f.sw_off.back());
  std::vector<char> seen(f.sw_node.size());
  std::vector<int> stack;
  std::map<std::vector<uint32_t>, size_t> known;

  const auto check = [&](const std::vector<int>& down) {
    settled.clear();
    converging.clear();
    if (down.empty()) {
      for (const PortSets& nh : before) {
        add_target(f, nh, settled, seen, stack);
      }
    } else {
      std::vector<char> up = all_up;
      for (int l : down) {
        up[l] = 0;
      }
      const Adjacency adj = adjacency(g, up);
      std::fill(up_ports.begin(), up_ports.end(), ~uint64_t{0});
      for (int l : down) {
        const TopoLink& tl = g.links[l];
        for (const auto& [node, port] :
             {std::pair{tl.a, f.link_port[l].first}, std::pair{tl.b, f.link_port[l].second}}) {
          if (f.node_sw[node] >= 0) {
            up_ports[f.sw_off[f.node_sw[node]] + port / 64] &= ~(uint64_t{1} << (port % 64));
          }
        }
      }
      for (size_t t = 0; t < f.targets.size(); ++t) {
        distances_to(g, adj, f.targets[t], dist);
        next_hops(f, adj, dist, f.targets[t], now);
        add_target(f, now, settled, seen, stack);
        // A switch still on its old routes forwards over the links that are still up. Where no route changed
        // but for the lost links, the mix adds nothing to the settled routes' waits.
        bool mixes = false;
        for (size_t w = 0; w < mixed.size(); ++w) {
          mixed[w] = now[w] | (before[t][w] & up_ports[w]);
          mixes |= mixed[w] != now[w];
        }
        if (mixes) {
          add_target(f, mixed, converging, seen, stack);
        }
      }
      converging.merge(settled);
    }
    ++rep.failure_sets;
    const auto steady = cycles_of(f, settled, tagged);
    std::vector<std::vector<uint32_t>> transient;
    if (!down.empty()) {
      for (auto& c : cycles_of(f, converging, tagged)) {
        if (!std::binary_search(steady.begin(), steady.end(), c)) {
          transient.push_back(std::move(c));
        }
      }
    }
    rep.sets_with_cycles += !steady.empty();
    rep.sets_with_transient += steady.empty() && !transient.empty();
    for (int pass = 0; pass < 2; ++pass) {
      for (const auto& c : pass == 0 ? steady : transient) {
        const auto [it, fresh] = known.emplace(c, rep.cycles.size());
        if (!fresh) {
          ++rep.cycles[it->second].failure_sets;
          continue;
        }
        DependencyCycle dc;
        for (uint32_t e : c) {
          dc.queues.push_back(f.queue_name(e));
        }
        for (int l : down) {
          dc.failed.push_back(f.link_name(l));
        }
        dc.transient = pass == 1;
        rep.cycles.push_back(std::move(dc));
      }
    }
  };

  // Sets to check: the fabric as built, then every set of 1..failures switch-to-switch links.
  size_t total = 1;
  for (int k = 1; k <= failures; ++k) {
    double c = 1;
    for (int i = 0; i < k; ++i) {
      c = c * static_cast<double>(f.switch_links.size() - static_cast<size_t>(i)) / (i + 1);
    }
    total += static_cast<size_t>(c);
  }
  const auto checked = [&](const std::vector<int>& down) {
    check(down);
    if (progress) {
      progress(rep.failure_sets, total);
    }
  };
  checked({});
  for (int k = 1; k <= failures; ++k) {
    for_each_subset(f.switch_links, k, checked);
  }
  return rep;
}

}  // namespace rocesim

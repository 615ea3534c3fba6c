// Cycles of a directed graph: one through each strongly connected set of nodes (Tarjan's algorithm, iterative,
// then a breadth-first search inside the set). The buffer dependency analysis and the run's deadlock detector
// both ask "which queues wait on each other in a circle".
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace rocesim {

// Nodes 0..n-1 with active[v]; next(v, fn) calls fn(w) for every edge v -> w (edges to inactive nodes are
// ignored). Returns, for each strongly connected set of two or more active nodes, its shortest cycle through
// its smallest node, starting there; sorted. Deterministic for a given graph.
template <typename Next>
std::vector<std::vector<uint32_t>> one_cycle_per_component(uint32_t n, const std::vector<char>& active, Next&& next) {
  std::vector<int64_t> index(n, -1), low(n, 0);
  std::vector<char> on_stack(n, 0);
  std::vector<uint32_t> st, comp(n, UINT32_MAX), succ;
  std::vector<std::vector<uint32_t>> sets;
  int64_t counter = 0;
  struct Frame {
    uint32_t v;
    size_t begin, end, i;  // v's successors: succ[begin .. end)
  };
  std::vector<Frame> call;
  const auto enter = [&](uint32_t v) {
    index[v] = low[v] = counter++;
    st.push_back(v);
    on_stack[v] = 1;
    const size_t begin = succ.size();
    next(v, [&](uint32_t w) {
      if (active[w]) {
        succ.push_back(w);
      }
    });
    call.push_back({v, begin, succ.size(), begin});
  };
  for (uint32_t root = 0; root < n; ++root) {
    if (index[root] >= 0 || !active[root]) {
      continue;
    }
    enter(root);
    while (!call.empty()) {
      Frame& fr = call.back();
      if (fr.i < fr.end) {
        const uint32_t w = succ[fr.i++];
        if (index[w] < 0) {
          enter(w);
        } else if (on_stack[w]) {
          low[fr.v] = std::min(low[fr.v], index[w]);
        }
        continue;
      }
      const uint32_t v = fr.v;
      succ.resize(fr.begin);  // frames above this one are gone: their successors were pushed after it
      call.pop_back();
      if (!call.empty()) {
        low[call.back().v] = std::min(low[call.back().v], low[v]);
      }
      if (low[v] == index[v]) {
        std::vector<uint32_t> members;
        uint32_t w;
        do {
          w = st.back();
          st.pop_back();
          on_stack[w] = 0;
          members.push_back(w);
        } while (w != v);
        if (members.size() > 1) {
          for (uint32_t m : members) {
            comp[m] = static_cast<uint32_t>(sets.size());
          }
          sets.push_back(std::move(members));
        }
      }
    }
  }
  std::vector<std::vector<uint32_t>> out;
  std::vector<uint32_t> parent(n, UINT32_MAX);
  for (const auto& members : sets) {
    const uint32_t start = *std::min_element(members.begin(), members.end());
    const uint32_t c = comp[start];
    std::vector<uint32_t> queue{start};
    parent[start] = start;
    uint32_t last = UINT32_MAX;
    for (size_t qi = 0; qi < queue.size() && last == UINT32_MAX; ++qi) {
      const uint32_t u = queue[qi];
      next(u, [&](uint32_t w) {
        if (last != UINT32_MAX || !active[w] || comp[w] != c) {
          return;
        }
        if (w == start) {
          last = u;
        } else if (parent[w] == UINT32_MAX) {
          parent[w] = u;
          queue.push_back(w);
        }
      });
    }
    std::vector<uint32_t> cycle;
    for (uint32_t v = last; v != start; v = parent[v]) {
      cycle.push_back(v);
    }
    cycle.push_back(start);
    std::reverse(cycle.begin(), cycle.end());
    for (uint32_t t : queue) {
      parent[t] = UINT32_MAX;
    }
    out.push_back(std::move(cycle));
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace rocesim

// Cyclic buffer dependencies: the condition for PFC deadlock. A lossless egress queue that cannot drain (its
// next hop paused it) fills the ingress buffer behind it, which pauses the queue upstream; when such waits form
// a cycle, every queue on it can stay paused for ever (Hu et al., "Deadlocks in Datacenter Networks: Why Do
// They Form, and How to Avoid Them", HotNets 2016; Hu et al., "Tagger: Practical PFC Deadlock Prevention in
// Data Center Networks", CoNEXT 2017). Which queue waits on which follows from the routes: switch A's queue
// toward B waits on B's queue toward C when some destination's traffic reaches A, goes to B and then to C.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "rocesim/topology/topology.hpp"

namespace rocesim {

struct DependencyCycle {
  // Egress queues as "switch:port", each waiting on the next and the last on the first.
  std::vector<std::string> queues;
  // The links down in the first failure set that forms it (empty: the fabric as built), as "switch:port-switch:port".
  std::vector<std::string> failed;
  // Only while switches converge on new routes, some still forwarding on the old ones (routing.jitter makes
  // that last); otherwise the routes the fabric settles on hold it.
  bool transient = false;
  size_t failure_sets = 1;  // how many of the failure sets checked form it
};

struct DependencyReport {
  std::vector<int64_t> priorities;      // the lossless priorities this graph is that of
  bool tagged = false;                  // Tagger moves their packets at bounces (waits across a bounce leave them)
  int failures = 0;                     // up to this many links down at a time
  size_t failure_sets = 0;              // route sets checked: the fabric as built, then each failure set
  size_t sets_with_cycles = 0;          // ... whose settled routes have a cycle
  size_t sets_with_transient = 0;       // ... with a cycle only while routes converge
  std::vector<DependencyCycle> cycles;  // distinct cycles, in the order found (at most one per strongly connected set)
};

// The buffer dependency graph of the fabric's shortest-path ECMP routes (every choice ECMP can make, for every
// destination, from every switch that destination's traffic can reach), and its cycles; with `failures` > 0,
// also for every set of up to that many switch-to-switch links down: the routes the switches settle on, and, during
// convergence, any mix of old and new tables (a switch still on old routes forwards over links that are up).
// Routing does not depend on the priority, so the graph is that of every lossless priority alike, but for the
// priorities on Tagger's ladder (`tagged`): a packet that bounces (switch/tagger.hpp) leaves the priority, so a
// queue on it never waits across a bounce, and those waits are left out. Links to NICs are left out of failure
// sets: a NIC is never a transit hop, so losing one cannot add a dependency.
// `progress(done, total)` is called after each set of failed links is checked.
DependencyReport find_dependency_cycles(const TopologyGraph& g, int failures, bool tagged = false,
                                        const std::function<void(size_t, size_t)>& progress = {});

}  // namespace rocesim

// Collective algorithms: how a collective's data moves between the ranks of a group. Each algorithm plans its
// connections once for the group and then, per call, gives every rank its work as runners: sequences of items
// that the engine (engine.hpp) runs one item at a time per runner, several runners side by side (NCCL's
// channels, or the two halves of a tree channel's threads).
//
// Algorithms, one file each: ring (ring.cpp), tree (NCCL's double binary tree, tree.cpp), halving_doubling
// (Rabenseifner's recursive halving and doubling, halving_doubling.cpp), and pairwise for all-to-all
// (pairwise.cpp). The scenario selects the all-reduce algorithm by name (`protocol.algorithm`).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "rocesim/collective/collective.hpp"
#include "rocesim/core/registry.hpp"

namespace rocesim {

inline constexpr uint32_t kNoLink = UINT32_MAX;

struct RankPlace {
  uint32_t server = 0, gpu = 0;
  uint32_t endpoint = 0;  // the NIC the GPU sends and receives through
};

// A collective to run: one op on `bytes` (nccl-tests' size: all-reduce and broadcast the buffer, reduce-scatter
// the input, all-gather the output, all-to-all the whole send buffer).
struct CollectiveCall {
  CollOp op = CollOp::kAllReduce;
  Bytes bytes;
  uint32_t root = 0;  // broadcast: the rank that has the data
};

// One step of a rank's work on one slice: wait until every `in` link has a slice waiting and every `out` link a
// free slot at its receiver, then reduce the received slices into the local data (if `reduce`) and write the
// slice to every `out` link. An item may also wait for another runner of the same rank to have finished
// `after_items` items (the data it sends is what that runner produced).
struct Item {
  int64_t bytes = 0;
  std::array<uint32_t, 3> in{kNoLink, kNoLink, kNoLink};  // NCCL_MAX_TREE_ARITY 3
  std::array<uint32_t, 3> out{kNoLink, kNoLink, kNoLink};
  bool reduce = false;
  uint32_t after_runner = kNoLink;
  uint32_t after_items = 0;

  // A slice received on `from` (reduced if `reduce`) and written on to `to`; either may be kNoLink.
  static Item pass(int64_t bytes, uint32_t from, uint32_t to, bool reduce) {
    Item it;
    it.bytes = bytes;
    it.in[0] = from;
    it.out[0] = to;
    it.reduce = reduce && from != kNoLink;
    return it;
  }
  bool operator==(const Item&) const = default;
};

// A runner's items in order, kept as runs of equal items: a ring repeats one step for every rank, so a rank's work
// takes memory by its distinct steps, not by the size of the group.
class Runner {
 public:
  struct Run {
    Item item;
    uint64_t count = 0;
  };
  // `count` copies of `it` after the items already there.
  void push_back(const Item& it, uint64_t count = 1) {
    if (count == 0) {
      return;
    }
    if (runs_.empty() || !(runs_.back().item == it)) {
      runs_.push_back({it, 0});
    }
    runs_.back().count += count;
    size_ += count;
  }
  // `times` copies of `it` cut into slices of at most `slice` bytes (as slices_of cuts `it.bytes`).
  void push_slices(const Item& it, int64_t slice, uint64_t times);
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const std::vector<Run>& runs() const { return runs_; }
  // Calls f(Item&) on each run's item, to rewrite it in place (the engine renames links to its own slots).
  template <class F>
  void rewrite_items(F f) {
    for (Run& r : runs_) {
      f(r.item);
    }
  }

 private:
  std::vector<Run> runs_;
  size_t size_ = 0;
};

// A directed connection between two ranks. Each algorithm makes its own (one per ring edge and channel, tree
// edge and channel, ...): a connection's slots belong to one sequence of sends.
struct CollLink {
  uint32_t from = 0, to = 0;        // ranks
  bool net = false;                 // between servers: over a queue pair
  int64_t window = 1;               // slots at the receiver: slices in flight
  uint32_t qp_from = 0, qp_to = 0;  // the queue pair's handles at the two servers (set by the engine)
  // Where the link's counters are kept at the sender's and the receiver's server (equal when both ends are on one
  // server): each server holds only its own links' state.
  uint32_t slot_from = 0, slot_to = 0;
};

// The group an algorithm plans for, and the connections it makes.
struct GroupLayout {
  std::vector<RankPlace> ranks;
  std::vector<uint32_t> servers;             // in the order of their first rank
  std::vector<std::vector<uint32_t>> local;  // per entry of `servers`: its ranks, in rank order
  std::vector<CollLink> links;
  std::vector<uint32_t> rank_server;  // per rank: its entry of `servers`
  std::vector<uint32_t> slots;        // per entry of `servers`: links with an end there (CollLink::slot_from)

  explicit GroupLayout(std::vector<RankPlace> r);
  size_t size() const { return ranks.size(); }
  uint32_t connect(uint32_t from, uint32_t to, int64_t window);
};

// Contract: built once per group (it may add links to the layout then, never later); runners() depends only on
// that plan and the call. Over all ranks, the items that send on a link and the items that receive on it match
// one to one, in order, with the same bytes; and every rank's runners together move the data the operation
// defines (nccl-tests sizes: CollectiveCall).
class CollectiveAlgorithm {
 public:
  virtual ~CollectiveAlgorithm() = default;
  virtual std::vector<Runner> runners(uint32_t rank, const CollectiveCall& call) const = 0;
};

using AlgorithmFactory = std::function<std::unique_ptr<CollectiveAlgorithm>(GroupLayout&, const ProtocolParams&)>;
using AlgorithmEntry = Registered<AlgorithmFactory>;

// The algorithms a scenario can name for all-reduce (`protocol.algorithm`); every one of them runs all-reduce.
// Filled by the implementations' own files (core/registry.hpp).
Registry<AlgorithmFactory>& collective_algorithm_registry();
// All-to-all: every rank writes its block for each other rank directly (NCCL's send/recv pairs).
std::unique_ptr<CollectiveAlgorithm> make_pairwise(GroupLayout& g, const ProtocolParams& p);
// Rings, for the operations other than all-to-all whatever the all-reduce algorithm.
std::unique_ptr<CollectiveAlgorithm> make_ring(GroupLayout& g, const ProtocolParams& p);

// Near-equal blocks of `total` in `parts`, each a multiple of `unit` bytes where possible (the rest goes to the
// last block).
std::vector<int64_t> split_blocks(int64_t total, size_t parts, int64_t unit);
// The same blocks without the list: block i in constant time, for groups too large to list a block per rank at
// every rank.
class BlockSplit {
 public:
  BlockSplit(int64_t total, size_t parts, int64_t unit);
  int64_t operator[](size_t i) const;
  // How many blocks from i down (i, i - 1, .., stopping at 0) are certainly equal to block i.
  size_t equal_below(size_t i) const;

 private:
  int64_t parts_, unit_, base_units_, bigger_, rest_;  // the first `bigger_` blocks have a unit more
};
// `bytes` cut into slices of at most `slice` (at least one, possibly empty).
std::vector<int64_t> slices_of(int64_t bytes, int64_t slice);

}  // namespace rocesim

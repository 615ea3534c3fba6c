// NCCL's double binary tree all-reduce (NVIDIA/nccl src/graph/trees.cc, src/graph/connect.cc,
// src/device/all_reduce.h; Sanders, Speck and Träff, "Two-tree algorithms for full bandwidth broadcast, reduction
// and scan", Parallel Computing 2009).
//
// Between servers, a binary tree over the servers (the bit pattern of ncclGetBtree: server 0 is the root, a
// server's parent clears its lowest set bit and sets the next one up); the second tree mirrors it (an even
// number of servers) or shifts it by one (odd), so a server that is a leaf in one tree is inside the other.
// As NCCL duplicates its channels for trees, there are 2 x `channels` tree channels: channel c < channels runs
// the first tree and channel c + channels the second, both on the same chain, so each NIC is inside one tree and
// a leaf of the other and carries the same load as in a ring. Inside a server, channel c's GPUs form a chain
// starting at GPU c (c, c+1, ..), and the chain's head talks to the parent and child servers through its NIC, on
// rail c (NCCL_TOPO_PATTERN_TREE). Every rank thus has up to three children (NCCL_MAX_TREE_ARITY).
//
// A channel's data moves in chunks of one step (NCCL Simple, tree: chunkSteps = sliceSteps = 1), halved while
// the channel has fewer than depth x 8, x 4, x 1 chunks (src/enqueue.cc), NCCL_STEPS slots per connection. Each
// rank but the root runs two runners side by side, as NCCL splits a tree channel's threads: one receives its
// children's chunks, reduces them into its own and sends the sum up; the other receives the result from its
// parent and sends it down to its children. The root receives, reduces and sends the result down in one.
#include <algorithm>
#include <bit>

#include "rocesim/collective/algorithm.hpp"

namespace rocesim {
namespace {

// One binary tree over `n` vertices rooted at 0 (NCCL's ncclGetBtree): `parent` (-1 at the root) and up to two
// children.
struct TreeVertex {
  int parent = -1;
  std::array<int, 2> child{-1, -1};
};

TreeVertex btree(int n, int v) {
  TreeVertex t;
  int bit = 1;
  while (bit < n && !(bit & v)) {
    bit <<= 1;
  }
  if (v == 0) {
    t.child[0] = n > 1 ? bit >> 1 : -1;
    return t;
  }
  t.parent = (v ^ bit) | (bit << 1);
  if (t.parent >= n) {
    t.parent = v ^ bit;
  }
  int low = bit >> 1;
  if (low != 0) {
    t.child[0] = v - low;
    while (low != 0 && v + low >= n) {
      low >>= 1;
    }
    t.child[1] = low != 0 ? v + low : -1;
  }
  return t;
}

// The second tree: the first mirrored (even n) or shifted by one vertex (odd n).
TreeVertex second_tree(int n, int v) {
  const bool odd = n % 2 == 1;
  const auto to = [&](int u) { return u < 0 ? -1 : odd ? (u + 1) % n : n - 1 - u; };
  TreeVertex t = btree(n, odd ? (v - 1 + n) % n : n - 1 - v);
  t.parent = to(t.parent);
  t.child = {to(t.child[0]), to(t.child[1])};
  return t;
}

class Tree final : public CollectiveAlgorithm {
 public:
  Tree(GroupLayout& g, const ProtocolParams& p) : n_(g.size()), step_(std::max<int64_t>(64, p.slice.count() / 2)) {
    const size_t channels = 2 * static_cast<size_t>(p.channels);
    const int servers = static_cast<int>(g.servers.size());
    size_t per_server = 0;
    for (const auto& l : g.local) {
      per_server = std::max(per_server, l.size());
    }
    depth_ = static_cast<int64_t>(per_server) - 1 + std::bit_width(static_cast<unsigned>(servers)) - 1;
    const int64_t window = 2 * p.window;  // NCCL_STEPS slots of one step each
    ch_.resize(channels);
    for (size_t c = 0; c < channels; ++c) {
      Channel& ch = ch_[c];
      ch.up.assign(n_, kNoLink);
      ch.down.assign(n_, kNoLink);
      ch.children.assign(n_, {});
      const bool second = c >= channels / 2;
      const size_t base = c % (channels / 2);  // the chain: the same for both trees
      std::vector<uint32_t> head(g.servers.size());
      std::vector<uint32_t> parent(n_, kNoLink);
      for (size_t j = 0; j < g.servers.size(); ++j) {
        const std::vector<uint32_t>& local = g.local[j];
        const size_t k = local.size();
        head[j] = local[base % k];
        for (size_t i = 1; i < k; ++i) {
          parent[local[(base + i) % k]] = local[(base + i - 1) % k];
        }
      }
      for (int j = 0; j < servers; ++j) {
        const TreeVertex t = second ? second_tree(servers, j) : btree(servers, j);
        if (t.parent >= 0) {
          parent[head[static_cast<size_t>(j)]] = head[static_cast<size_t>(t.parent)];
        } else {
          ch.root = head[static_cast<size_t>(j)];
        }
      }
      for (uint32_t r = 0; r < n_; ++r) {
        if (parent[r] != kNoLink) {
          ch.up[r] = g.connect(r, parent[r], window);
          ch.down[r] = g.connect(parent[r], r, window);
          ch.children[parent[r]].push_back(r);
        }
      }
    }
  }

  std::vector<Runner> runners(uint32_t r, const CollectiveCall& call) const override {
    std::vector<Runner> out;
    if (n_ == 1) {
      return out;
    }
    const size_t channels = ch_.size();
    const std::vector<int64_t> per_channel = split_blocks(call.bytes.count(), channels, 4);
    const int64_t chunk = chunk_size(call.bytes.count(), static_cast<int64_t>(channels));
    for (size_t c = 0; c < channels; ++c) {
      const Channel& ch = ch_[c];
      Item up, down;
      for (size_t i = 0; i < ch.children[r].size(); ++i) {
        up.in[i] = ch.up[ch.children[r][i]];
        down.out[i] = ch.down[ch.children[r][i]];
      }
      up.reduce = !ch.children[r].empty();
      up.out[0] = ch.up[r];
      down.in[0] = ch.down[r];
      if (r == ch.root) {
        up.out = down.out;  // the root's sum goes straight back down
      }
      Runner ups, downs;
      for (int64_t b : slices_of(per_channel[c], chunk)) {
        up.bytes = down.bytes = b;
        ups.push_back(up);
        if (r != ch.root) {
          downs.push_back(down);
        }
      }
      out.push_back(std::move(ups));
      if (r != ch.root) {
        out.push_back(std::move(downs));
      }
    }
    return out;
  }

 private:
  struct Channel {
    uint32_t root = 0;
    std::vector<uint32_t> up, down;               // per rank: its links to and from its parent
    std::vector<std::vector<uint32_t>> children;  // per rank
  };
  // One step, halved while the channels would get fewer than depth x 8, x 4, x 1 chunks (src/enqueue.cc).
  int64_t chunk_size(int64_t bytes, int64_t channels) const {
    int64_t chunk = step_;
    for (const auto& [times, floor] : {std::pair<int64_t, int64_t>{8, 131072}, {4, 65536}, {1, 32768}}) {
      while (bytes / (channels * chunk) < depth_ * times && chunk > floor) {
        chunk /= 2;
      }
    }
    return chunk;
  }

  size_t n_;
  int64_t step_;
  int64_t depth_ = 0;
  std::vector<Channel> ch_;
};

}  // namespace

static AlgorithmEntry tree_algorithm() {
  return {"tree", "NCCL's double binary tree between servers, chains inside them (all-reduce)",
          [](GroupLayout& g, const ProtocolParams& p) -> std::unique_ptr<CollectiveAlgorithm> {
            return std::make_unique<Tree>(g, p);
          },
          nullptr};
}

namespace {
// Registered before main (core/registry.hpp).
const Registrar<AlgorithmFactory> tree_algorithm_registered(collective_algorithm_registry(), tree_algorithm());
}  // namespace

}  // namespace rocesim

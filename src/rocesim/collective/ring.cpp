// Rings, as NCCL runs them with the Simple protocol (NVIDIA/nccl src/device/all_reduce.h, all_gather.h,
// reduce_scatter.h, broadcast.h): per channel, the data goes round a ring of all ranks.
//
// Rings are rail-aligned: channel c starts at GPU c of the first server and snakes through the servers (GPU order
// c, c+1, .. on even servers, reversed on odd ones), so every hop between servers goes from GPU k to GPU k of the
// next server, NIC k to NIC k, on one rail; with an odd number of servers the hop that closes the ring crosses
// rails.
#include <algorithm>

#include "rocesim/collective/algorithm.hpp"

namespace rocesim {
namespace {

class Ring final : public CollectiveAlgorithm {
 public:
  Ring(GroupLayout& g, const ProtocolParams& p) : n_(g.size()), slice_(p.slice.count()), window_(p.window) {
    const size_t channels = static_cast<size_t>(p.channels);
    order_.resize(channels);
    pos_.assign(channels, std::vector<uint32_t>(n_, 0));
    out_.assign(channels, std::vector<uint32_t>(n_, 0));
    for (size_t c = 0; c < channels; ++c) {
      for (size_t j = 0; j < g.servers.size(); ++j) {
        const std::vector<uint32_t>& local = g.local[j];
        const size_t k = local.size();
        for (size_t i = 0; i < k; ++i) {
          order_[c].push_back(local[j % 2 == 0 ? (c + i) % k : (c + k - 1 - i) % k]);
        }
      }
      for (uint32_t q = 0; q < n_; ++q) {
        pos_[c][order_[c][q]] = q;
      }
      for (uint32_t q = 0; q < n_; ++q) {
        out_[c][order_[c][q]] = g.connect(order_[c][q], order_[c][(q + 1) % n_], p.window);
      }
    }
  }

  std::vector<Runner> runners(uint32_t r, const CollectiveCall& call) const override {
    std::vector<Runner> out;
    if (n_ == 1) {
      return out;
    }
    const int64_t unit = 4;  // bytes of one element (float)
    const size_t channels = order_.size();
    const std::vector<int64_t> per_channel = split_blocks(call.bytes.count(), channels, unit);
    // NCCL's loop: the channel's data goes round the ring a chunk (window / 2 slices) per rank at a time, every
    // step of the algorithm on one chunk before the next; a chunk never needs more than half the slots, so
    // neighbours waiting on each other always find one free.
    const int64_t chunk = std::max<int64_t>(1, window_ / 2) * slice_;
    for (size_t c = 0; c < channels; ++c) {
      Runner run;
      const uint32_t pos = pos_[c][r];
      const uint32_t in = out_[c][order_[c][(pos + n_ - 1) % n_]];
      const uint32_t to = out_[c][r];
      // `times` steps of this loop on blocks of `block` bytes: the chunk of each, in slices.
      const auto add = [&](int64_t block, int64_t loop, bool recv, bool reduce, bool send, size_t times) {
        const int64_t bytes = std::clamp<int64_t>(block - loop * chunk, 0, chunk);
        run.push_slices(Item::pass(bytes, recv ? in : kNoLink, send ? to : kNoLink, reduce), slice_, times);
      };
      if (call.op == CollOp::kBroadcast) {
        const size_t p = (pos + n_ - pos_[c][call.root]) % n_;  // distance from the root
        const int64_t loops = std::max<int64_t>(1, (per_channel[c] + chunk - 1) / chunk);
        for (int64_t loop = 0; loop < loops; ++loop) {
          add(per_channel[c], loop, p > 0, false, p + 1 < n_, 1);
        }
      } else {
        const BlockSplit blocks(per_channel[c], n_, unit);
        const int64_t largest = std::max(blocks[0], blocks[n_ - 1]);  // the first has a unit more, the last the rest
        const int64_t loops = std::max<int64_t>(1, (largest + chunk - 1) / chunk);
        // All-reduce: n - 1 reduce-scatter steps, then n - 1 all-gather steps (2n - 1 items, the first only
        // sending, the last only receiving); reduce-scatter and all-gather: the first n of them. Step t works on
        // block pos - t (mod n): the steps go in stretches of equal blocks and equal roles, each added at once.
        const size_t n_ops = call.op == CollOp::kAllReduce ? 2 * n_ - 1 : n_;
        for (int64_t loop = 0; loop < loops; ++loop) {
          for (size_t t = 0; t < n_ops;) {
            const size_t b = (pos + n_ * 2 - t) % n_;
            size_t end = n_ops;  // the roles change after the first step, before the last, and at step n
            for (const size_t edge : {size_t{1}, n_ops - 1, n_}) {
              end = edge > t ? std::min(end, edge) : end;
            }
            const size_t times = std::min(end - t, blocks.equal_below(b));
            const bool recv = t > 0, send = t + 1 < n_ops;
            const bool reduce = call.op == CollOp::kAllReduce ? t <= n_ - 1 : call.op == CollOp::kReduceScatter;
            add(blocks[b], loop, recv, reduce, send, times);
            t += times;
          }
        }
      }
      out.push_back(std::move(run));
    }
    return out;
  }

 private:
  size_t n_;
  int64_t slice_, window_;
  std::vector<std::vector<uint32_t>> order_;  // per channel: ranks in ring order
  std::vector<std::vector<uint32_t>> pos_;    // per channel: rank -> position
  std::vector<std::vector<uint32_t>> out_;    // per channel: rank -> its link to the next rank
};

}  // namespace

std::unique_ptr<CollectiveAlgorithm> make_ring(GroupLayout& g, const ProtocolParams& p) {
  return std::make_unique<Ring>(g, p);
}

static AlgorithmEntry ring_algorithm() {
  return {"ring", "rail-aligned rings, one per channel (NCCL Ring)", make_ring, nullptr};
}

namespace {
// Registered before main (core/registry.hpp).
const Registrar<AlgorithmFactory> ring_algorithm_registered(collective_algorithm_registry(), ring_algorithm());
}  // namespace

}  // namespace rocesim

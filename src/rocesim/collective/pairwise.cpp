// All-to-all as NCCL runs it: a send and a receive per pair of ranks, grouped (ncclGroupStart/End around
// ncclSend/ncclRecv, as nccl-tests' alltoall_perf does), each peer's block in chunks (NCCL's p2p chunk sizes:
// 512 KiB over NVLink, 128 KiB over the network; NCCL_P2P_NVL_CHUNKSIZE, NCCL_P2P_NET_CHUNKSIZE).
#include <algorithm>

#include "rocesim/collective/algorithm.hpp"

namespace rocesim {
namespace {

class Pairwise final : public CollectiveAlgorithm {
 public:
  Pairwise(GroupLayout& g, const ProtocolParams& p) : n_(g.size()), link_(n_ * n_, kNoLink) {
    for (const RankPlace& p : g.ranks) {
      server_.push_back(p.server);
    }
    for (uint32_t a = 0; a < n_; ++a) {
      for (uint32_t b = 0; b < n_; ++b) {
        if (a != b) {
          link_[a * n_ + b] = g.connect(a, b, p.window);
        }
      }
    }
  }

  std::vector<Runner> runners(uint32_t r, const CollectiveCall& call) const override {
    std::vector<Runner> out;
    const int64_t block = call.bytes.count() / static_cast<int64_t>(n_);
    for (uint32_t p = 0; p < n_; ++p) {
      if (p == r) {
        continue;
      }
      Runner run;
      const bool nvl = server_[p] == server_[r];
      for (int64_t b : slices_of(block, nvl ? 512 * 1024 : 128 * 1024)) {
        run.push_back(Item::pass(b, kNoLink, link_[r * n_ + p], false));
        run.push_back(Item::pass(b, link_[p * n_ + r], kNoLink, false));
      }
      out.push_back(std::move(run));
    }
    return out;
  }

 private:
  size_t n_;
  std::vector<uint32_t> server_;  // per rank
  std::vector<uint32_t> link_;    // from x n + to -> link
};

}  // namespace

std::unique_ptr<CollectiveAlgorithm> make_pairwise(GroupLayout& g, const ProtocolParams& p) {
  return std::make_unique<Pairwise>(g, p);
}

}  // namespace rocesim

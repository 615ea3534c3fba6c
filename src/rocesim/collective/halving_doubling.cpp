// Halving-doubling all-reduce (Rabenseifner, "Optimization of collective reduction operations", ICCS 2004;
// Thakur, Rabenseifner and Gropp, "Optimization of collective communication operations in MPICH", IJHPCA 2005):
// a reduce-scatter by recursive halving, then an all-gather by recursive doubling. In step k of the
// reduce-scatter each rank exchanges half of the data it still holds with the rank whose index differs in bit k,
// keeps the half it is responsible for and reduces the partner's copy of it into its own; the all-gather undoes
// the steps in reverse order, doubling the data. log2(n) steps each way, and every rank sends (n - 1) / n of the
// buffer each way, as in a ring.
//
// Partners are nearest first: with ranks numbered server-major, the first steps (with the most data) stay inside
// a server on NVLink and the later ones pair GPU k with GPU k of another server, on rail k. A group whose size is
// not a power of two first folds its first 2r ranks in pairs (r ranks beyond the largest power of two): the even
// one of each pair sends its whole buffer to the odd one, which reduces it and, at the end, sends it the result.
//
// Each rank runs two runners: one receives (and reduces), the other sends; a step's sends wait for the previous
// step's receives, whose result they carry. Slices and slots as the rings' (`slice`, `window`).
#include <algorithm>
#include <bit>
#include <numeric>

#include "rocesim/collective/algorithm.hpp"

namespace rocesim {
namespace {

class HalvingDoubling final : public CollectiveAlgorithm {
 public:
  HalvingDoubling(GroupLayout& g, const ProtocolParams& p)
      : n_(static_cast<uint32_t>(g.size())),
        pow2_(std::bit_floor(n_)),
        rem_(n_ - pow2_),
        steps_(static_cast<uint32_t>(std::countr_zero(pow2_))),
        slice_(p.slice.count()) {
    fold_.assign(n_, kNoLink);
    result_.assign(n_, kNoLink);
    for (uint32_t e = 0; e < 2 * rem_; e += 2) {
      fold_[e] = g.connect(e, e + 1, p.window);
      result_[e] = g.connect(e + 1, e, p.window);
    }
    link_.assign(steps_, std::vector<uint32_t>(pow2_, kNoLink));
    for (uint32_t k = 0; k < steps_; ++k) {
      for (uint32_t v = 0; v < pow2_; ++v) {
        link_[k][v] = g.connect(rank_of(v), rank_of(v ^ (1u << k)), p.window);
      }
    }
  }

  std::vector<Runner> runners(uint32_t r, const CollectiveCall& call) const override {
    if (n_ == 1) {
      return {};
    }
    const int64_t total = call.bytes.count();
    Runner recv, send;
    const auto add = [&](Runner& run, int64_t bytes, uint32_t in, uint32_t out, bool reduce, size_t after) {
      bool first = true;
      for (int64_t b : slices_of(bytes, slice_)) {
        Item it = Item::pass(b, in, out, reduce);
        if (first && after > 0) {  // the sends wait for the receives whose data they carry
          it.after_runner = 0;
          it.after_items = static_cast<uint32_t>(after);
        }
        first = false;
        run.push_back(it);
      }
    };
    if (r < 2 * rem_ && r % 2 == 0) {  // folded: hand the buffer over, get the result back
      add(send, total, kNoLink, fold_[r], false, 0);
      add(recv, total, result_[r], kNoLink, false, 0);
      return {std::move(recv), std::move(send)};
    }
    const uint32_t v = r < 2 * rem_ ? r / 2 : r - rem_;
    if (v < rem_) {
      add(recv, total, fold_[2 * v], kNoLink, true, 0);
    }
    const std::vector<int64_t> blocks = split_blocks(total, pow2_, 4);
    const auto sum = [&](uint32_t lo, uint32_t hi) {
      return std::accumulate(blocks.begin() + lo, blocks.begin() + hi, int64_t{0});
    };
    // Reduce-scatter: in step k keep the half of [lo, hi) that bit k of v picks.
    std::vector<std::pair<uint32_t, uint32_t>> kept;  // per step: the blocks kept
    uint32_t lo = 0, hi = pow2_;
    for (uint32_t k = 0; k < steps_; ++k) {
      const uint32_t mid = lo + (hi - lo) / 2;
      const bool upper = (v >> k) & 1;
      const uint32_t partner = v ^ (1u << k);
      const size_t ready = recv.size();
      add(send, upper ? sum(lo, mid) : sum(mid, hi), kNoLink, link_[k][v], false, ready);
      (upper ? lo : hi) = mid;
      add(recv, sum(lo, hi), link_[k][partner], kNoLink, true, 0);
      kept.emplace_back(lo, hi);
    }
    // All-gather: the steps in reverse, each sending what the rank has and receiving the partner's half.
    for (uint32_t k = steps_; k-- > 0;) {
      const uint32_t partner = v ^ (1u << k);
      const auto [klo, khi] = kept[k];
      const uint32_t width = khi - klo;
      const bool upper = (v >> k) & 1;
      const size_t ready = recv.size();
      add(send, sum(klo, khi), kNoLink, link_[k][v], false, ready);
      add(recv, upper ? sum(klo - width, klo) : sum(khi, khi + width), link_[k][partner], kNoLink, false, 0);
    }
    if (v < rem_) {
      add(send, total, kNoLink, result_[2 * v], false, recv.size());
    }
    return {std::move(recv), std::move(send)};
  }

 private:
  uint32_t rank_of(uint32_t v) const { return v < rem_ ? 2 * v + 1 : v + rem_; }

  uint32_t n_, pow2_, rem_, steps_;
  int64_t slice_;
  std::vector<uint32_t> fold_, result_;      // per folded (even) rank: its links to and from its partner
  std::vector<std::vector<uint32_t>> link_;  // per step, per index among the power of two: link to the partner
};

}  // namespace

static AlgorithmEntry halving_doubling_algorithm() {
  return {"halving_doubling",
          "recursive halving reduce-scatter then recursive doubling all-gather, nearest partners first (all-reduce)",
          [](GroupLayout& g, const ProtocolParams& p) -> std::unique_ptr<CollectiveAlgorithm> {
            return std::make_unique<HalvingDoubling>(g, p);
          },
          nullptr};
}

namespace {
// Registered before main (core/registry.hpp).
const Registrar<AlgorithmFactory> halving_doubling_algorithm_registered(collective_algorithm_registry(),
                                                                        halving_doubling_algorithm());
}  // namespace

}  // namespace rocesim

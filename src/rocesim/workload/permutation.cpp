// Permutation: every host writes `size` bytes to one other host, and no two hosts to the same one. The
// destinations are a random cyclic permutation (Sattolo's algorithm), so no host sends to itself. Start
// times are spread uniformly over [start, start + spread).
#include "rocesim/workload/workload.hpp"

namespace rocesim {
namespace {
struct PermutationParams {
  Bytes size;
  int64_t priority = 0;
  Time start, spread;
  static const Schema<PermutationParams>& schema() {
    static const Schema<PermutationParams> s = [] {
      Schema<PermutationParams> sc("permutation workload", "every host to one other");
      sc.reserved("type", "permutation")
          .reserved("transport", kTransportDoc)
          .add(&PermutationParams::size, "size", "2MB", "bytes each host writes", at_least(Bytes(1)))
          .add(&PermutationParams::priority, "priority", "3", "priority of the flows", in_range<int64_t>(0, 7),
               "priority")
          .add(&PermutationParams::start, "start", "0ns", "earliest start")
          .add(&PermutationParams::spread, "spread", "0ns", "start times are uniform over [start, start + spread)");
      return sc;
    }();
    return s;
  }
};
}  // namespace

// A uniformly random cyclic permutation: a derangement of 0..n-1 (n >= 2).
std::vector<uint32_t> random_cycle(uint32_t n, Rng& rng) {
  std::vector<uint32_t> d(n);
  for (uint32_t i = 0; i < n; ++i) {
    d[i] = i;
  }
  for (uint32_t i = n - 1; i > 0; --i) {
    std::swap(d[i], d[rng.below(i)]);  // j < i: Sattolo
  }
  return d;
}

namespace {
WorkloadFlows generate_permutation(const YAML::Node& n, const ParseCtx& ctx, const std::string& path,
                                   const WorkloadContext& wc, Rng& rng) {
  const PermutationParams p = PermutationParams::schema().parse(n, ctx, path);
  const auto dst = random_cycle(wc.hosts, rng);
  WorkloadFlows out;
  for (uint32_t h = 0; h < wc.hosts; ++h) {
    FlowSpec f;
    f.src = h;
    f.dst = dst[h];
    f.size = p.size;
    f.priority = static_cast<int>(p.priority);
    f.start = p.start;
    if (p.spread > Time()) {
      f.start += Time::ps(static_cast<int64_t>(rng.below(static_cast<uint64_t>(p.spread.ps()))));
    }
    out.flows.push_back(f);
  }
  out.resolved = PermutationParams::schema().dump(p);
  return out;
}

}  // namespace

static WorkloadEntry permutation_workload() {
  return {"permutation", "each host sends to one other, a random cycle", generate_permutation,
          describe_schema<PermutationParams>()};
}

namespace {
// Registered before main (core/registry.hpp).
const Registrar<WorkloadGenerator> permutation_workload_registered(workload_registry(), permutation_workload());
}  // namespace

}  // namespace rocesim

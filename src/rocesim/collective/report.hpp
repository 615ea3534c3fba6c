// What the collective workloads report: collectives.csv (one row per collective instance), nccl-tests.txt (the
// table of nccl-tests' *_perf programs, for the `collective` workload), servers.csv (CPU, host memory, NVLink and
// PCIe use of each server in the group), and their summary.json part.
#pragma once

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rocesim/cluster/output.hpp"
#include "rocesim/collective/engine.hpp"

namespace rocesim {

class CollectiveReport final : public Output {
 public:
  // `sizes`: for an nccl-tests table, the calls of each size are `warmup` instances, then `iterations` out of
  // place, then `iterations` in place (each group only if its placement runs), in order.
  struct Layout {
    CollOp op = CollOp::kAllReduce;
    std::vector<Bytes> sizes;
    int64_t warmup = 0, iterations = 1;
    int64_t step_factor = 1;  // the sweep's (nccl-tests -f, -i), for its header
    Bytes step_bytes;
    bool out_of_place = true, in_place = true;
    uint32_t root = 0;
    std::string algorithm;  // all-reduce's
  };
  // A training loop: `iterations` steps, each `calls_per_step` instances and `compute` of GPU work (`beside` of
  // it next to the collectives), the first from `start`.
  struct Steps {
    size_t iterations = 0, calls_per_step = 0;
    Time compute, beside, start;
  };
  CollectiveReport(std::string workload, std::shared_ptr<const CollectiveGroup> g, std::vector<CollectiveCall> calls,
                   const Network& net, std::optional<Layout> table, std::optional<Steps> steps = std::nullopt);
  OutputFiles files(const OutputContext&) override;
  nlohmann::json summary(const RunInfo&) const override;

  // One placement's timed iterations: their mean time, algbw and busbw (GB/s).
  struct Timing {
    double time_us = 0, algbw = 0, busbw = 0;
    bool complete = false;
  };
  struct SizeRow {
    Bytes bytes;
    std::optional<Timing> out_of_place, in_place;  // each if it ran
    // The first placement that ran (out of place, unless only in place): what summary.json reports.
    const Timing& first() const { return out_of_place ? *out_of_place : *in_place; }
  };
  // The nccl-tests table's rows (computed after the run).
  std::vector<SizeRow> size_rows() const;
  // A training step: from the previous step's end (the last rank's; `Steps::start` for the first) to the last
  // rank's end of this one. Communication: from its first collective's start (the earliest rank's, but not before
  // the last rank could start it: the step's start plus the compute before the collectives) to its last one's end
  // (the latest rank's); exposed: the step's time beyond its compute, the communication no compute hid.
  struct StepRow {
    Time start, end, compute, communication;
    bool complete = false;
    Time time() const { return end - start; }
    Time exposed() const { return std::max(Time(), time() - compute); }
    // The share of the communication that ran beside compute.
    double hidden() const;
  };
  std::vector<StepRow> step_rows() const;
  const CollectiveGroup* group() const { return g_.get(); }

 private:
  nlohmann::json training_summary() const;
  // nccl-tests.txt.
  std::string nccl_tests_text() const;

  std::string workload_;
  std::shared_ptr<const CollectiveGroup> g_;
  std::vector<CollectiveCall> calls_;
  const Network& net_;
  std::optional<Layout> table_;
  std::optional<Steps> steps_;
  size_t ranks_ = 0;
};

// nccl-tests' time column (v2.17.2 src/common.cu, BenchTime): 7 wide, 2 decimals below 100 us, 1 below 10 ms,
// none above.
std::string nccl_tests_time(double us);

// Checks a collective's size against what its operation needs (1 B to 1 TiB, whole 4-byte elements, one equal
// block per rank where the operation splits its buffer); errors name `key`.
void check_collective_size(CollOp op, Bytes b, size_t ranks, const YAML::Node& at, const ParseCtx& ctx,
                           const std::string& key);

}  // namespace rocesim

#include "rocesim/collective/report.hpp"

#include <fmt/format.h>

#include "rocesim/cluster/network.hpp"
#include "rocesim/core/text.hpp"

namespace rocesim {

CollectiveReport::CollectiveReport(std::string workload, std::shared_ptr<const CollectiveGroup> g,
                                   std::vector<CollectiveCall> calls, const Network& net, std::optional<Layout> table)
    : workload_(std::move(workload)),
      g_(std::move(g)),
      calls_(std::move(calls)),
      net_(net),
      table_(std::move(table)),
      ranks_(group_size(*g_)) {}

std::vector<CollectiveReport::SizeRow> CollectiveReport::size_rows() const {
  std::vector<SizeRow> out;
  if (!table_) {
    return out;
  }
  const std::vector<InstanceTimes> t = instance_times(*g_);
  size_t i = 0;
  for (Bytes b : table_->sizes) {
    SizeRow row;
    row.bytes = b;
    const size_t first = i + static_cast<size_t>(table_->warmup);
    const size_t last = first + static_cast<size_t>(table_->iterations) - 1;
    i = last + 1;
    row.complete = last < t.size() && t[last].ranks_done == ranks_;
    if (row.complete) {
      // nccl-tests times its iterations back to back after the warm-up: from the end of the last warm-up
      // instance (or the first measured instance's start) to the end of the last.
      const Time from = table_->warmup > 0 ? t[first - 1].end : t[first].start;
      row.time_us = (t[last].end - from).sec_f() * 1e6 / static_cast<double>(table_->iterations);
      row.algbw = static_cast<double>(b.count()) / 1e3 / row.time_us;  // GB/s
      row.busbw = row.algbw * busbw_factor(table_->op, ranks_);
    }
    out.push_back(row);
  }
  return out;
}

OutputFiles CollectiveReport::files(const OutputContext&) {
  const std::vector<InstanceTimes> t = instance_times(*g_);
  std::string csv = "workload,instance,op,bytes,ranks,start_ns,end_ns,time_us,algbw_gbps,busbw_gbps\n";
  for (size_t i = 0; i < t.size() && i < calls_.size(); ++i) {
    const CollectiveCall& c = calls_[i];
    if (t[i].ranks_done != ranks_) {
      csv += fmt::format("{},{},{},{},{},{},,,,\n", workload_, i, to_string(c.op), c.bytes.count(), ranks_,
                         t[i].start == Time::max() ? std::string() : fmt::format("{:.3f}", t[i].start.ps() / 1e3));
      continue;
    }
    const double us = (t[i].end - t[i].start).sec_f() * 1e6;
    const double algbw = static_cast<double>(c.bytes.count()) / 1e3 / us;
    csv += fmt::format("{},{},{},{},{},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f}\n", csv_field(workload_), i, to_string(c.op),
                       c.bytes.count(), ranks_, t[i].start.ps() / 1e3, t[i].end.ps() / 1e3, us, algbw,
                       algbw * busbw_factor(c.op, ranks_));
  }
  std::string servers = "workload,server,cpu_busy_ns,host_memory_bytes,nvlink_bytes,pcie_gpu_bytes\n";
  for (const ServerUse& u : server_use(*g_, net_)) {
    servers += fmt::format("{},{},{:.3f},{:.0f},{:.0f},{:.0f}\n", csv_field(workload_),
                           csv_field(net_.server(u.server).name()), u.cpu.ps() / 1e3, u.host_memory_bytes,
                           u.nvlink_bytes, u.pcie_bytes);
  }
  std::vector<std::pair<std::string, std::string>> out = {{"collectives.csv", csv}, {"servers.csv", servers}};
  if (table_) {
    // NVIDIA/nccl-tests src/common.cu: the header and row layout of the *_perf programs.
    const bool reduces = table_->op == CollOp::kAllReduce || table_->op == CollOp::kReduceScatter;
    std::string txt = fmt::format("# rocesim nccl-tests: {}_perf, {} ranks{}, {} warm-up and {} timed iterations\n",
                                  to_string(table_->op), ranks_,
                                  table_->op == CollOp::kAllReduce ? ", algorithm " + table_->algorithm : "",
                                  table_->warmup, table_->iterations);
    txt +=
        "#\n"
        "#                                                              out-of-place                       in-place  "
        "        \n"
        "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   "
        "busbw #wrong\n"
        "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  "
        "(GB/s)       \n";
    double sum = 0;
    int rows = 0;
    for (const SizeRow& r : size_rows()) {
      const std::string measured =
          r.complete ? fmt::format("{:>8.2f} {:>7.2f} {:>7.2f} {:>6}", r.time_us, r.algbw, r.busbw, "N/A")
                     : fmt::format("{:>8} {:>7} {:>7} {:>6}", "-", "-", "-", "N/A");
      const std::string other = fmt::format("{:>8} {:>7} {:>7} {:>6}", "-", "-", "-", "-");
      txt +=
          fmt::format("{:>12} {:>13} {:>9} {:>7} {:>7} {} {}\n", r.bytes.count(), r.bytes.count() / 4, "float",
                      reduces ? "sum" : "none", table_->op == CollOp::kBroadcast ? static_cast<int>(table_->root) : -1,
                      table_->in_place ? other : measured, table_->in_place ? measured : other);
      if (r.complete) {
        sum += r.busbw;
        ++rows;
      }
    }
    txt += "# Out of bounds values : 0 OK\n";
    txt += fmt::format("# Avg bus bandwidth    : {:.4f} \n#\n", rows ? sum / rows : 0.0);
    out.push_back({"nccl-tests.txt", txt});
  }
  return out;
}

nlohmann::json CollectiveReport::summary(const RunInfo&) const {
  nlohmann::json rows = nlohmann::json::array();
  if (table_) {
    for (const SizeRow& r : size_rows()) {
      rows.push_back({{"workload", workload_},
                      {"op", to_string(table_->op)},
                      {"bytes", r.bytes.count()},
                      {"ranks", ranks_},
                      {"complete", r.complete},
                      {"time_us", r.time_us},
                      {"algbw_gbps", r.algbw},
                      {"busbw_gbps", r.busbw}});
    }
  } else {
    const std::vector<InstanceTimes> t = instance_times(*g_);
    for (size_t i = 0; i < t.size() && i < calls_.size(); ++i) {
      const bool done = t[i].ranks_done == ranks_;
      const double us = done ? (t[i].end - t[i].start).sec_f() * 1e6 : 0;
      rows.push_back({{"workload", workload_},
                      {"instance", i},
                      {"op", to_string(calls_[i].op)},
                      {"bytes", calls_[i].bytes.count()},
                      {"ranks", ranks_},
                      {"complete", done},
                      {"time_us", us}});
    }
  }
  return {{"collectives", rows}};
}

void check_collective_size(CollOp op, Bytes b, size_t ranks, const YAML::Node& at, const ParseCtx& ctx,
                           const std::string& key) {
  if (b.count() < 1 || b.count() > (int64_t{1} << 40)) {
    throw InputError(ctx.file, line_of(at), key, to_string(b) + " is not a collective size (1 B to 1 TiB)");
  }
  const int64_t unit = 4 * (splits_per_rank(op) ? static_cast<int64_t>(ranks) : 1);
  if (b.count() % unit != 0) {
    throw InputError(
        ctx.file, line_of(at), key,
        fmt::format("{} of {} bytes over {} ranks: must be a multiple of {} (4-byte floats{})", to_string(op),
                    b.count(), ranks, unit, splits_per_rank(op) ? ", one equal block per rank" : ""));
  }
}

}  // namespace rocesim

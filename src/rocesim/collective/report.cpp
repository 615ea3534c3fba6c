#include "rocesim/collective/report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "rocesim/cluster/network.hpp"
#include "rocesim/core/text.hpp"

namespace rocesim {
namespace {

// nccl-tests' algbw (bytes / time, in GB/s) and busbw (algbw times the operation's factor; its doc/PERFORMANCE.md).
struct Bandwidth {
  double algbw = 0, busbw = 0;
};
Bandwidth bandwidth(CollOp op, Bytes b, double time_us, size_t ranks) {
  const double algbw = static_cast<double>(b.count()) / 1e3 / time_us;
  return {algbw, algbw * busbw_factor(op, ranks)};
}

}  // namespace

CollectiveReport::CollectiveReport(std::string workload, std::shared_ptr<const CollectiveGroup> g,
                                   std::vector<CollectiveCall> calls, const Network& net, std::optional<Layout> table,
                                   std::optional<Steps> steps)
    : workload_(std::move(workload)),
      g_(std::move(g)),
      calls_(std::move(calls)),
      net_(net),
      table_(std::move(table)),
      steps_(steps),
      ranks_(group_size(*g_)) {}

double CollectiveReport::StepRow::hidden() const {
  if (communication <= Time()) {
    return 1.0;
  }
  return std::clamp(1.0 - exposed().sec_f() / communication.sec_f(), 0.0, 1.0);
}

std::vector<CollectiveReport::StepRow> CollectiveReport::step_rows() const {
  std::vector<StepRow> out;
  if (!steps_) {
    return out;
  }
  const std::vector<InstanceTimes> t = instance_times(*g_);
  const std::vector<PhaseEnd> ends = phase_ends(*g_, steps_->iterations);
  Time from = steps_->start;
  for (size_t i = 0; i < ends.size(); ++i) {
    StepRow row;
    row.complete = ends[i].ranks_done == ranks_;
    if (!row.complete) {
      out.push_back(row);
      break;  // the steps after it have not ended either
    }
    row.start = from;
    row.end = ends[i].last;
    row.compute = steps_->compute;
    const size_t first = i * steps_->calls_per_step, last = first + steps_->calls_per_step - 1;
    // Ranks that ended the previous step early start its collectives early; that wait is not communication.
    const Time from_here = std::max(t[first].start, row.start + steps_->compute - steps_->beside);
    row.communication = last < t.size() ? t[last].end - from_here : Time();
    from = row.end;
    out.push_back(row);
  }
  return out;
}

std::vector<CollectiveReport::SizeRow> CollectiveReport::size_rows() const {
  std::vector<SizeRow> out;
  if (!table_) {
    return out;
  }
  const std::vector<InstanceTimes> t = instance_times(*g_);
  const auto n = static_cast<size_t>(table_->iterations);
  // nccl-tests times a placement's iterations back to back: from the end of the instance before them (the last
  // warm-up, or the other placement's last; `after_one`) or else the first one's start, to the end of the last.
  const auto timing = [&](Bytes b, size_t first, bool after_one) {
    Timing m;
    const size_t last = first + n - 1;
    m.complete = last < t.size() && t[last].ranks_done == ranks_;
    if (m.complete) {
      const Time from = after_one ? t[first - 1].end : t[first].start;
      m.time_us = (t[last].end - from).sec_f() * 1e6 / static_cast<double>(n);
      const Bandwidth bw = bandwidth(table_->op, b, m.time_us, ranks_);
      m.algbw = bw.algbw;
      m.busbw = bw.busbw;
    }
    return m;
  };
  size_t at = 0;
  for (Bytes b : table_->sizes) {
    SizeRow row;
    row.bytes = b;
    at += static_cast<size_t>(table_->warmup);
    bool after_one = table_->warmup > 0;
    if (table_->out_of_place) {
      row.out_of_place = timing(b, at, after_one);
      at += n;
      after_one = true;
    }
    if (table_->in_place) {
      row.in_place = timing(b, at, after_one);
      at += n;
    }
    out.push_back(row);
  }
  return out;
}

OutputFiles CollectiveReport::files(const OutputContext&) {
  const std::vector<InstanceTimes> t = instance_times(*g_);
  std::string csv = "workload,instance,op,bytes,ranks,start_ns,end_ns,time_us,algbw_GBps,busbw_GBps\n";
  for (size_t i = 0; i < t.size() && i < calls_.size(); ++i) {
    const CollectiveCall& c = calls_[i];
    if (t[i].ranks_done != ranks_) {
      csv += fmt::format("{},{},{},{},{},{},,,,\n", workload_, i, to_string(c.op), c.bytes.count(), ranks_,
                         t[i].start == Time::max() ? std::string() : fmt::format("{:.3f}", t[i].start.ps() / 1e3));
      continue;
    }
    const double us = (t[i].end - t[i].start).sec_f() * 1e6;
    const Bandwidth bw = bandwidth(c.op, c.bytes, us, ranks_);
    csv += fmt::format("{},{},{},{},{},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f}\n", csv_field(workload_), i, to_string(c.op),
                       c.bytes.count(), ranks_, t[i].start.ps() / 1e3, t[i].end.ps() / 1e3, us, bw.algbw, bw.busbw);
  }
  std::string servers = "workload,server,cpu_busy_ns,host_memory_bytes,nvlink_bytes,pcie_gpu_bytes\n";
  for (const ServerUse& u : server_use(*g_, net_)) {
    servers += fmt::format("{},{},{:.3f},{:.0f},{:.0f},{:.0f}\n", csv_field(workload_),
                           csv_field(net_.server(u.server).name()), u.cpu.ps() / 1e3, u.host_memory_bytes,
                           u.nvlink_bytes, u.pcie_bytes);
  }
  std::vector<std::pair<std::string, std::string>> out = {{"collectives.csv", csv}, {"servers.csv", servers}};
  if (steps_) {
    std::string steps = "workload,step,start_ns,end_ns,time_us,compute_us,communication_us,exposed_us,hidden\n";
    const std::vector<StepRow> rows = step_rows();
    for (size_t i = 0; i < rows.size(); ++i) {
      const StepRow& r = rows[i];
      if (!r.complete) {
        steps += fmt::format("{},{},,,,,,,\n", csv_field(workload_), i);
        continue;
      }
      steps += fmt::format("{},{},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.4f}\n", csv_field(workload_), i,
                           r.start.ps() / 1e3, r.end.ps() / 1e3, r.time().sec_f() * 1e6, r.compute.sec_f() * 1e6,
                           r.communication.sec_f() * 1e6, r.exposed().sec_f() * 1e6, r.hidden());
    }
    out.push_back({"steps.csv", steps});
  }
  if (table_) {
    out.push_back({"nccl-tests.txt", nccl_tests_text()});
  }
  return out;
}

std::string nccl_tests_time(double us) {
  const int decimals = us >= 10000.0 ? 0 : us >= 100.0 ? 1 : 2;
  return fmt::format("{:7.{}f}", us, decimals);
}

namespace {

// One placement's columns: time, algbw, busbw, #wrong (0: nothing is checked, and a simulation moves no values
// that could be wrong), or dashes where it did not run or finish.
std::string nccl_columns(const std::optional<CollectiveReport::Timing>& m) {
  if (!m || !m->complete) {
    return fmt::format("  {:>7}  {:>6}  {:>6}  {:>5}", "-", "-", "-", "-");
  }
  return fmt::format("  {}  {:6.2f}  {:6.2f}  {:5}", nccl_tests_time(m->time_us), m->algbw, m->busbw, 0);
}

}  // namespace

std::string CollectiveReport::nccl_tests_text() const {
  // The layout and format strings of nccl-tests' *_perf programs (NVIDIA/nccl-tests v2.17.2, src/common.cu: run(),
  // TimeTest(), BenchTime()), as one process per GPU (mpirun -np <ranks>) prints them.
  const Layout& l = *table_;
  const std::vector<SizeRow> rows = size_rows();
  const std::string program = std::string(to_string(l.op)) + "_perf";
  std::string t = fmt::format("# Collective test starting: {}\n", program);
  t += fmt::format(
      "# nThread 1 nGpus 1 minBytes {} maxBytes {} step: {}({}) warmup iters: {} iters: {} agg iters: 1 validation: 1 "
      "graph: 0\n#\n",
      std::ranges::min(l.sizes).count(), std::ranges::max(l.sizes).count(),
      l.step_factor > 1 ? l.step_factor : l.step_bytes.count(), l.step_factor > 1 ? "factor" : "bytes", l.warmup,
      l.iterations);
  t += "# Using devices\n";
  const std::vector<RankPlace>& ranks = group_ranks(*g_);
  for (size_t r = 0; r < ranks.size(); ++r) {
    // No process runs a rank here: its Pid is its number plus one, its device the GPU's index on the server.
    t += fmt::format("#  Rank {:2} Group  0 Pid {:6} on {:>10} device {:2} [0000:00:00] rocesim GPU\n", r, r + 1,
                     net_.server(ranks[r].server).name(), ranks[r].gpu);
  }
  const std::string algorithm = algorithm_of(l.op, group_protocol(*g_));
  t += fmt::format("#\n# rocesim: simulated, {} ranks, algorithm {}, protocol {}\n", ranks_, algorithm, kNcclProtocol);
  t += "#\n";
  t += "#                                                              out-of-place                       in-place  "
       "        \n";
  t += "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw "
       "#wrong\n";
  t += "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s) "
       "      \n";
  const bool reduces = l.op == CollOp::kAllReduce || l.op == CollOp::kReduceScatter;
  // The count is a rank's elements where the operation splits its buffer (nccl-tests' *GetCollByteCount).
  const int64_t per = splits_per_rank(l.op) ? static_cast<int64_t>(ranks_) : 1;
  double sum = 0;
  int measured = 0;
  for (const SizeRow& r : rows) {
    t += fmt::format("{:12}  {:12}  {:>8}  {:>6}  {:6}", r.bytes.count(), r.bytes.count() / 4 / per, "float",
                     reduces ? "sum" : "none", l.op == CollOp::kBroadcast ? static_cast<int>(l.root) : -1);
    t += nccl_columns(r.out_of_place) + nccl_columns(r.in_place) + "\n";
    for (const auto& m : {r.out_of_place, r.in_place}) {
      if (m && m->complete) {
        sum += m->busbw;
        ++measured;
      }
    }
  }
  t += "# Out of bounds values : 0 OK\n";
  t += fmt::format("# Avg bus bandwidth    : {:g} \n#\n", measured ? sum / measured : 0.0);
  t += fmt::format("# Collective test concluded: {}\n", program);
  return t;
}

nlohmann::json CollectiveReport::summary(const RunInfo&) const {
  // Per operation: the calls that completed and their mean time and bandwidths (over an nccl-tests table's sizes
  // and placements, as its "Avg bus bandwidth"; else over the instances).
  struct Mean {
    size_t calls = 0;
    double time_us = 0, algbw = 0, busbw = 0;
  };
  std::map<CollOp, Mean> by_op;
  const auto row_of = [&](CollOp op, Bytes bytes, bool done, double us) {
    const Bandwidth bw = done ? bandwidth(op, bytes, us, ranks_) : Bandwidth{};
    if (done) {
      Mean& m = by_op[op];
      ++m.calls;
      m.time_us += us;
      m.algbw += bw.algbw;
      m.busbw += bw.busbw;
    }
    return nlohmann::json{
        {"workload", workload_},     {"op", to_string(op)},    {"algorithm", algorithm_of(op, group_protocol(*g_))},
        {"protocol", kNcclProtocol}, {"bytes", bytes.count()}, {"ranks", ranks_},
        {"complete", done},          {"time_us", us},          {"algbw_GBps", bw.algbw},
        {"busbw_GBps", bw.busbw}};
  };
  nlohmann::json rows = nlohmann::json::array();
  if (table_) {
    for (const SizeRow& r : size_rows()) {
      const Timing& m = r.first();
      rows.push_back(row_of(table_->op, r.bytes, m.complete, m.time_us));
      if (r.out_of_place && r.in_place && r.in_place->complete) {  // both placements in the means, as nccl-tests
        row_of(table_->op, r.bytes, true, r.in_place->time_us);
      }
    }
  } else {
    const std::vector<InstanceTimes> t = instance_times(*g_);
    for (size_t i = 0; i < t.size() && i < calls_.size(); ++i) {
      const CollectiveCall& c = calls_[i];
      const bool done = t[i].ranks_done == ranks_;
      const double us = done ? (t[i].end - t[i].start).sec_f() * 1e6 : 0;
      rows.push_back(row_of(c.op, c.bytes, done, us));
      rows.back()["instance"] = i;
    }
  }
  nlohmann::json means = nlohmann::json::array();
  for (const auto& [op, m] : by_op) {
    const double n = static_cast<double>(m.calls);
    means.push_back({{"workload", workload_},
                     {"op", to_string(op)},
                     {"algorithm", algorithm_of(op, group_protocol(*g_))},
                     {"protocol", kNcclProtocol},
                     {"calls", m.calls},
                     {"time_us", m.time_us / n},
                     {"algbw_GBps", m.algbw / n},
                     {"busbw_GBps", m.busbw / n}});
  }
  nlohmann::json out = {{"collectives", rows}, {"collectives_by_op", means}};
  if (steps_) {
    out["training"] = nlohmann::json::array({training_summary()});
  }
  return out;
}

nlohmann::json CollectiveReport::training_summary() const {
  nlohmann::json steps = nlohmann::json::array();
  StepRow sum;  // the steps done, added up
  int64_t done = 0;
  for (const StepRow& r : step_rows()) {
    if (!r.complete) {
      break;
    }
    steps.push_back({{"time_us", r.time().sec_f() * 1e6},
                     {"compute_us", r.compute.sec_f() * 1e6},
                     {"communication_us", r.communication.sec_f() * 1e6},
                     {"exposed_us", r.exposed().sec_f() * 1e6},
                     {"hidden", r.hidden()}});
    sum.end += r.time();
    sum.compute += r.compute;
    sum.communication += r.communication;
    ++done;
  }
  const double n = static_cast<double>(std::max<int64_t>(done, 1));
  return {{"workload", workload_},
          {"ranks", ranks_},
          {"iterations", steps_->iterations},
          {"steps_done", done},
          {"mean_time_us", sum.time().sec_f() * 1e6 / n},
          {"compute_us", steps_->compute.sec_f() * 1e6},
          {"mean_communication_us", sum.communication.sec_f() * 1e6 / n},
          {"mean_exposed_us", sum.exposed().sec_f() * 1e6 / n},
          {"hidden", done > 0 ? sum.hidden() : 0.0},
          {"steps", steps}};
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

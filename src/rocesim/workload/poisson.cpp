// Poisson traffic (the HPCC simulator's traffic generator, alibaba-edu/High-Precision-Congestion-Control
// traffic_gen/traffic_gen.py): every host starts flows to random other hosts with exponential inter-arrival
// times of mean  mean_size x 8 / (host rate x load), sizes drawn from a flow-size CDF by linear interpolation,
// until `until` (or the scenario's stop, if earlier).
#include <algorithm>
#include <cmath>

#include "rocesim/workload/cdf.hpp"
#include "rocesim/workload/workload.hpp"

namespace rocesim {
namespace {
struct PoissonParams {
  std::string cdf;
  double load = 0;
  std::vector<int64_t> hosts;
  int64_t priority = 0;
  std::string operation;
  Time start, until;
  static const Schema<PoissonParams>& schema() {
    static const Schema<PoissonParams> s = [] {
      Schema<PoissonParams> sc("poisson workload", "Poisson arrivals, sizes from a flow-size distribution");
      sc.reserved("type", "poisson")
          .reserved("transport", kTransportDoc)
          .add(&PoissonParams::cdf, "cdf", "websearch",
               "websearch, fb_hadoop, alistorage2019, googlerpc2008, or a file of 'size_bytes cdf_percent' lines")
          .add(&PoissonParams::load, "load", "0.5", "offered load per host, as a fraction of its link rate",
               in_range(0.000001, 1.0), "0..1")
          .add(&PoissonParams::hosts, "hosts", "[]", "hosts that send and receive (all if empty)", {}, "host")
          .add(&PoissonParams::priority, "priority", "3", "priority of the flows", in_range<int64_t>(0, 7), "priority")
          .add(&PoissonParams::operation, "operation", "write", "write, send or read",
               one_of({"write", "send", "read"}))
          .add(&PoissonParams::start, "start", "0ns", "first arrivals after this time")
          .add(&PoissonParams::until, "until", "1000s", "no new flows after this time (nor after the scenario's stop)");
      return sc;
    }();
    return s;
  }
};
}  // namespace

namespace {
WorkloadFlows generate_poisson(const YAML::Node& n, const ParseCtx& ctx, const std::string& path,
                               const WorkloadContext& wc, Rng& rng) {
  const PoissonParams p = PoissonParams::schema().parse(n, ctx, path);
  FlowSizeCdf cdf({{0, 0}, {1, 100}});
  try {
    cdf = FlowSizeCdf::load(p.cdf, wc.base_dir, ctx);
  } catch (const UnitError& e) {
    throw InputError(ctx.file, line_of(n["cdf"]), path + ".cdf", e.message);
  }
  const std::vector<uint32_t> hosts = select_hosts(p.hosts, n, ctx, path, wc);
  RdmaOp op = RdmaOp::kWrite;
  parse_op(p.operation, op);
  const Time until = std::min(p.until, wc.stop);
  // The flows it would make, expected: at each host load x rate x the time / the mean size.
  double expected = 0;
  for (uint32_t h : hosts) {
    expected +=
        p.load * static_cast<double>(wc.host_rate[h].bps()) / 8 * std::max(0.0, (until - p.start).sec_f()) / cdf.mean();
  }
  check_flow_count(expected, n["load"], ctx, path + ".load", "lower the load, or end it sooner with until or stop");
  WorkloadFlows out;
  for (uint32_t h : hosts) {
    const double mean_gap_s = cdf.mean() * 8 / (static_cast<double>(wc.host_rate[h].bps()) * p.load);
    Time t = p.start;
    for (;;) {
      // Exponential gap by inversion; 1 - u is in (0, 1], so the log is finite.
      t += Time::ps(static_cast<int64_t>(-std::log(1 - rng.uniform()) * mean_gap_s * 1e12));
      if (t >= until) {
        break;
      }
      FlowSpec f;
      f.src = h;
      do {
        f.dst = hosts[rng.below(hosts.size())];
      } while (f.dst == h);
      f.size = Bytes(cdf.sample(rng));
      f.start = t;
      f.priority = static_cast<int>(p.priority);
      f.op = op;
      out.flows.push_back(f);
    }
  }
  std::stable_sort(out.flows.begin(), out.flows.end(),
                   [](const FlowSpec& a, const FlowSpec& b) { return a.start < b.start; });
  out.resolved = PoissonParams::schema().dump(p);
  out.resolved["mean_size_bytes"] = cdf.mean();
  return out;
}

}  // namespace

static WorkloadEntry poisson_workload() {
  return {"poisson", "open-loop arrivals at a load, sizes from a CDF", generate_poisson,
          describe_schema<PoissonParams>()};
}

namespace {
// Registered before main (core/registry.hpp).
const Registrar<WorkloadGenerator> poisson_workload_registered(workload_registry(), poisson_workload());
}  // namespace

}  // namespace rocesim

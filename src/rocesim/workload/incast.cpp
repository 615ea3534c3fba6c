// N-to-1 incast: `senders` hosts each write `size` bytes to `receiver` at `start`, repeated `repeat` times every
// `interval`. Senders are drawn at random (without replacement) from the other hosts, once per scenario seed.
#include <algorithm>

#include "rocesim/workload/workload.hpp"

namespace rocesim {
namespace {
struct IncastParams {
  int64_t receiver = 0, senders = 0, priority = 0, repeat = 0;
  Bytes size;
  Time start, interval;
  static const Schema<IncastParams>& schema() {
    static const Schema<IncastParams> s = [] {
      Schema<IncastParams> sc("incast workload", "N senders to one receiver");
      sc.reserved("type", "incast")
          .add(&IncastParams::receiver, "receiver", "0", "receiving host", at_least<int64_t>(0), "host")
          .add(&IncastParams::senders, "senders", "8", "number of sending hosts", at_least<int64_t>(1), "hosts")
          .add(&IncastParams::size, "size", "1MB", "bytes each sender writes", at_least(Bytes(1)))
          .add(&IncastParams::priority, "priority", "3", "priority of the flows (3: lossless RoCE)",
               in_range<int64_t>(0, 7), "priority")
          .add(&IncastParams::start, "start", "0ns", "when the first round starts")
          .add(&IncastParams::repeat, "repeat", "1", "number of rounds", at_least<int64_t>(1))
          .add(&IncastParams::interval, "interval", "1ms", "time between the starts of rounds");
      return sc;
    }();
    return s;
  }
};
}  // namespace

namespace {
WorkloadFlows generate_incast(const YAML::Node& n, const ParseCtx& ctx, const std::string& path,
                              const WorkloadContext& wc, Rng& rng) {
  const IncastParams p = IncastParams::schema().parse(n, ctx, path);
  if (p.receiver >= wc.hosts) {
    throw InputError(ctx.file, line_of(n["receiver"]), path + ".receiver",
                     "host " + std::to_string(p.receiver) + " does not exist (the topology has " +
                         std::to_string(wc.hosts) + " hosts: 0.." + std::to_string(wc.hosts - 1) + ")");
  }
  if (p.senders > wc.hosts - 1) {
    throw InputError(ctx.file, line_of(n["senders"]), path + ".senders",
                     std::to_string(p.senders) + " senders need " + std::to_string(p.senders + 1) +
                         " hosts; the topology has " + std::to_string(wc.hosts));
  }
  std::vector<uint32_t> others;
  for (uint32_t h = 0; h < wc.hosts; ++h) {
    if (h != p.receiver) {
      others.push_back(h);
    }
  }
  for (size_t i = 0; i + 1 < others.size(); ++i) {  // Fisher-Yates shuffle; the first `senders` are taken
    std::swap(others[i], others[i + rng.below(others.size() - i)]);
  }
  others.resize(static_cast<size_t>(p.senders));
  std::sort(others.begin(), others.end());
  WorkloadFlows out;
  for (int64_t r = 0; r < p.repeat; ++r) {
    for (uint32_t s : others) {
      FlowSpec f;
      f.src = s;
      f.dst = static_cast<uint32_t>(p.receiver);
      f.size = p.size;
      f.start = p.start + p.interval * r;
      f.priority = static_cast<int>(p.priority);
      out.flows.push_back(f);
    }
  }
  out.resolved = IncastParams::schema().dump(p);
  return out;
}

}  // namespace

WorkloadEntry incast_workload() {
  return {"incast", "N senders to one receiver", generate_incast, describe_schema<IncastParams>()};
}

}  // namespace rocesim

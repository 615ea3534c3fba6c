// N-to-1 incast: `senders` hosts each write `size` bytes to `receiver` at `start`, repeated `repeat` times every
// `interval`. `senders` is a number, drawn at random (without replacement, once per scenario seed) from the
// other hosts, or from the NICs on the receiver's rail with `same_rail` (the receiver's NIC index on the other
// servers: on a rail-optimised fabric, the NICs that share its rail switches); or it is the list of senders.
#include <algorithm>

#include "rocesim/workload/workload.hpp"

namespace rocesim {
namespace {
struct IncastParams {
  int64_t receiver = 0, priority = 0, repeat = 0;
  CountOrList senders;
  bool same_rail = false;
  Bytes size;
  Time start, interval;
  static const Schema<IncastParams>& schema() {
    static const Schema<IncastParams> s = [] {
      Schema<IncastParams> sc("incast workload", "N senders to one receiver");
      sc.reserved("type", "incast")
          .reserved("transport", kTransportDoc)
          .add(&IncastParams::receiver, "receiver", "0", "receiving host", at_least<int64_t>(0), "host")
          .add(&IncastParams::senders, "senders", "8",
               "number of sending hosts (drawn at random), or the list of them (endpoint indices)", nullptr, "hosts")
          .add(&IncastParams::same_rail, "same_rail", "false",
               "draw the senders from the receiver's rail: its NIC index on every other server")
          .add(&IncastParams::size, "size", "1MB", "bytes each sender writes", at_least(Bytes(1)))
          .add(&IncastParams::priority, "priority", "3", "priority of the flows (3: lossless RoCE)",
               in_range<int64_t>(0, 7), "priority")
          .add(&IncastParams::start, "start", "0ns", "when the first round starts")
          .add(&IncastParams::repeat, "repeat", "1",
               "number of rounds (those that would start after stop are left out)", at_least<int64_t>(1))
          .add(&IncastParams::interval, "interval", "1ms", "time between the starts of rounds");
      return sc;
    }();
    return s;
  }
};
}  // namespace

namespace {
// The hosts a random draw takes senders from: every other host, or the receiver's rail.
std::vector<uint32_t> candidates(const IncastParams& p, const YAML::Node& n, const ParseCtx& ctx,
                                 const std::string& path, const WorkloadContext& wc) {
  std::vector<uint32_t> out;
  const auto receiver = static_cast<uint32_t>(p.receiver);
  if (!p.same_rail) {
    for (uint32_t h = 0; h < wc.hosts; ++h) {
      if (h != receiver) {
        out.push_back(h);
      }
    }
    return out;
  }
  size_t home = 0, index = 0;  // the receiver's server and its NIC index there
  bool several = false;
  for (size_t s = 0; s < wc.server_nics.size(); ++s) {
    several |= wc.server_nics[s].size() > 1;
    for (size_t k = 0; k < wc.server_nics[s].size(); ++k) {
      if (wc.server_nics[s][k] == receiver) {
        home = s, index = k;
      }
    }
  }
  if (!several) {
    throw InputError(ctx.file, line_of(n["same_rail"]), path + ".same_rail",
                     "no server has several NICs, so there are no rails (topology.nics_per_host)");
  }
  for (size_t s = 0; s < wc.server_nics.size(); ++s) {
    if (s != home && index < wc.server_nics[s].size()) {
      out.push_back(wc.server_nics[s][index]);
    }
  }
  return out;
}

std::vector<uint32_t> choose_senders(const IncastParams& p, const YAML::Node& n, const ParseCtx& ctx,
                                     const std::string& path, const WorkloadContext& wc, Rng& rng) {
  const std::string key = path + ".senders";
  if (p.senders.is_list()) {
    if (p.same_rail) {
      throw InputError(ctx.file, line_of(n["same_rail"]), path + ".same_rail",
                       "a list of senders names them; same_rail only chooses a number of them");
    }
    std::vector<uint32_t> out;
    for (int64_t h : p.senders.list) {
      std::string why;
      if (h < 0 || h >= wc.hosts) {
        why = "host " + std::to_string(h) + " does not exist (0.." + std::to_string(wc.hosts - 1) + ")";
      } else if (h == p.receiver) {
        why = "host " + std::to_string(h) + " is the receiver";
      } else if (std::find(out.begin(), out.end(), static_cast<uint32_t>(h)) != out.end()) {
        why = "host " + std::to_string(h) + " is listed twice";
      }
      if (!why.empty()) {
        throw InputError(ctx.file, line_of(n["senders"]), key, why);
      }
      out.push_back(static_cast<uint32_t>(h));
    }
    return out;
  }
  std::vector<uint32_t> from = candidates(p, n, ctx, path, wc);
  if (p.senders.count < 1 || static_cast<size_t>(p.senders.count) > from.size()) {
    throw InputError(ctx.file, line_of(n["senders"]), key,
                     p.senders.count < 1
                         ? "must be at least 1"
                         : std::to_string(p.senders.count) + " senders, but only " + std::to_string(from.size()) +
                               (p.same_rail ? " other NICs are on the receiver's rail" : " other hosts exist"));
  }
  for (size_t i = 0; i + 1 < from.size(); ++i) {  // Fisher-Yates shuffle; the first `senders` are taken
    std::swap(from[i], from[i + rng.below(from.size() - i)]);
  }
  from.resize(static_cast<size_t>(p.senders.count));
  std::sort(from.begin(), from.end());
  return from;
}

WorkloadFlows generate_incast(const YAML::Node& n, const ParseCtx& ctx, const std::string& path,
                              const WorkloadContext& wc, Rng& rng) {
  const IncastParams p = IncastParams::schema().parse(n, ctx, path);
  if (p.receiver >= wc.hosts) {
    throw InputError(ctx.file, line_of(n["receiver"]), path + ".receiver",
                     "host " + std::to_string(p.receiver) + " does not exist (the topology has " +
                         std::to_string(wc.hosts) + " hosts: 0.." + std::to_string(wc.hosts - 1) + ")");
  }
  const std::vector<uint32_t> senders = choose_senders(p, n, ctx, path, wc, rng);
  // Rounds that would start after `stop` never run: only those up to it are made (the first always).
  int64_t rounds = p.repeat;
  if (p.interval > Time() && wc.stop > p.start) {
    rounds = std::min<int64_t>(rounds, (wc.stop - p.start).ps() / p.interval.ps() + 1);
  } else if (p.interval > Time()) {
    rounds = 1;
  }
  check_flow_count(static_cast<double>(rounds) * static_cast<double>(senders.size()), n["repeat"], ctx,
                   path + ".repeat");
  WorkloadFlows out;
  for (int64_t r = 0; r < rounds; ++r) {
    const std::optional<Time> start = add_times(p.start, p.interval, r);
    if (!start) {
      throw InputError(ctx.file, line_of(n["interval"]), path + ".interval",
                       "round " + std::to_string(r) + " would start beyond the largest time rocesim holds");
    }
    for (uint32_t s : senders) {
      FlowSpec f;
      f.src = s;
      f.dst = static_cast<uint32_t>(p.receiver);
      f.size = p.size;
      f.start = *start;
      f.priority = static_cast<int>(p.priority);
      out.flows.push_back(f);
    }
  }
  out.resolved = IncastParams::schema().dump(p);
  return out;
}

}  // namespace

static WorkloadEntry incast_workload() {
  return {"incast", "N senders to one receiver", generate_incast, describe_schema<IncastParams>()};
}

namespace {
// Registered before main (core/registry.hpp).
const Registrar<WorkloadGenerator> incast_workload_registered(workload_registry(), incast_workload());
}  // namespace

}  // namespace rocesim

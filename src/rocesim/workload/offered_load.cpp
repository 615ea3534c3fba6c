#include "rocesim/workload/offered_load.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "rocesim/core/text.hpp"

namespace rocesim {

std::vector<std::string> overload_warnings(const Network& net, Time stop, size_t shown) {
  struct Offer {
    uint32_t host = 0;
    double bytes = 0;
    Time first = Time::max();
    std::set<uint16_t> workloads;
    double load = 0;  // offered payload rate / link rate
  };
  std::vector<Offer> offer(net.num_hosts());
  for (const FlowRecord& f : net.flows()) {
    const uint32_t rx = f.spec.op == RdmaOp::kRead ? f.spec.src : f.spec.dst;
    Offer& o = offer[rx];
    o.host = rx;
    o.bytes += static_cast<double>(f.spec.size.count());
    o.first = std::min(o.first, f.spec.start);
    o.workloads.insert(f.spec.workload);
  }
  // The run's traffic starts with its first flow; a receiver whose first flow comes late is still measured over
  // the whole run (a flow just before the stop is not an overload).
  Time begin = Time::max();
  for (const Offer& o : offer) {
    begin = std::min(begin, o.first);
  }
  std::vector<Offer> over;
  for (Offer& o : offer) {
    if (o.bytes == 0 || begin >= stop) {
      continue;
    }
    const double capacity = net.nics()[o.host]->link().rate.gbps_f() * 1e9 / 8 * (stop - begin).sec_f();
    o.load = o.bytes / capacity;
    if (o.load > 1.0) {
      over.push_back(o);
    }
  }
  std::stable_sort(over.begin(), over.end(), [](const Offer& a, const Offer& b) { return a.load > b.load; });
  std::vector<std::string> out;
  for (size_t i = 0; i < over.size() && i < shown; ++i) {
    const Offer& o = over[i];
    std::string from;
    for (uint16_t w : o.workloads) {
      if (!from.empty()) {
        from += ", ";
      }
      from += "workload." + std::to_string(w);
    }
    out.push_back(fmt::format(
        "{} {} {} (endpoint {}) {:.0f} % of its {} link: {} from {} to the stop at {}; its flows cannot all "
        "finish (lower the load or move the stop)",
        from, o.workloads.size() == 1 ? "offers" : "offer", net.nics()[o.host]->name(), o.host, 100 * o.load,
        to_string(net.nics()[o.host]->link().rate), size_text(o.bytes),
        time_text(static_cast<double>(begin.ps()) / 1000), time_text(static_cast<double>(stop.ps()) / 1000)));
  }
  if (over.size() > shown) {
    out.push_back(fmt::format("{} more receivers are offered more than their link rate", over.size() - shown));
  }
  return out;
}

}  // namespace rocesim

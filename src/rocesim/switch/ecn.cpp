#include "rocesim/switch/ecn.hpp"

#include <sstream>

namespace rocesim {

const Schema<EcnParams>& EcnParams::schema() {
  static const Schema<EcnParams> s = [] {
    Schema<EcnParams> sc("ecn", "ECN marking at switch egress queues");
    sc.add(&EcnParams::type, "type", "red", registry_doc(ecn_registry()), one_of(ecn_registry().names()))
        .add(&EcnParams::kmin, "kmin", "150KB", "queue depth where marking starts (NVIDIA Onyx/Cumulus RoCE default)")
        .add(&EcnParams::kmax, "kmax", "1500KB",
             "queue depth where the probability reaches pmax; above it every packet is marked")
        .add(&EcnParams::pmax, "pmax", "0.2", "marking probability at kmax (HPCC-paper DCQCN setting)",
             in_range(0.0, 1.0), "0..1")
        .add(&EcnParams::at, "at", "enqueue",
             "mark when a packet joins the queue (enqueue) or leaves it (dequeue, \"Fast ECN\")",
             one_of({"enqueue", "dequeue"}))
        .add(&EcnParams::by_rate, "by_rate", "",
             "thresholds per port rate, overriding kmin/kmax/pmax on ports of that rate (the HPCC simulator's "
             "KMIN_MAP/KMAX_MAP/PMAX_MAP)",
             parses(parse_ecn_by_rate), "rate kmin kmax pmax; ...")
        .validate([](const EcnParams& p) -> std::optional<std::pair<std::string, std::string>> {
          if (p.kmin > p.kmax) {
            return std::make_pair("kmin",
                                  "kmin (" + to_string(p.kmin) + ") must not exceed kmax (" + to_string(p.kmax) + ")");
          }
          return std::nullopt;
        });
    return sc;
  }();
  return s;
}

std::vector<EcnRateEntry> parse_ecn_by_rate(const std::string& s) {
  std::vector<EcnRateEntry> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ';')) {
    std::istringstream is(item);
    std::string rate, kmin, kmax, pmax, extra;
    if (!(is >> rate)) {
      continue;
    }
    if (!(is >> kmin >> kmax >> pmax) || (is >> extra)) {
      throw UnitError{"bad entry '" + item + "' (expected 'RATE KMIN KMAX PMAX', e.g. '100Gbps 400KB 1600KB 0.2')"};
    }
    EcnRateEntry e{parse_rate(rate), parse_bytes(kmin), parse_bytes(kmax), ParamTraits<double>::parse(pmax)};
    if (e.kmin > e.kmax || e.pmax < 0 || e.pmax > 1) {
      throw UnitError{"bad entry '" + item + "': need kmin <= kmax and pmax in 0..1"};
    }
    out.push_back(e);
  }
  return out;
}

EcnParams EcnParams::for_rate(Rate r) const {
  EcnParams p = *this;
  for (const auto& e : parse_ecn_by_rate(by_rate)) {
    if (e.rate == r) {
      p.kmin = e.kmin;
      p.kmax = e.kmax;
      p.pmax = e.pmax;
    }
  }
  return p;
}

Registry<EcnFactory>& ecn_registry() {
  static Registry<EcnFactory> r("switch.ecn", "red");
  return r;
}

std::unique_ptr<EcnMarker> make_ecn_marker(const EcnParams& p) { return ecn_registry().find(p.type)->make(p); }

}  // namespace rocesim

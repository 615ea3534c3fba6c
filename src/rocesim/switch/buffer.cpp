#include "rocesim/switch/buffer.hpp"

#include <sstream>

namespace rocesim {

namespace {

// "400Gbps 0.5; 200Gbps 0.25" -> (rate, alpha) pairs; throws UnitError.
std::vector<std::pair<Rate, double>> parse_alpha_by_rate(const std::string& s) {
  std::vector<std::pair<Rate, double>> out;
  std::stringstream all(s);
  for (std::string entry; std::getline(all, entry, ';');) {
    std::istringstream e(entry);
    std::string rate, alpha, extra;
    if (!(e >> rate)) {
      continue;
    }
    if (!(e >> alpha) || (e >> extra)) {
      throw UnitError{"expected 'RATE ALPHA; ...', e.g. '400Gbps 0.5'"};
    }
    double a = 0;
    try {
      size_t used = 0;
      a = std::stod(alpha, &used);
      if (used != alpha.size() || !(a >= 1.0 / 1024 && a <= 64)) {
        throw std::invalid_argument("range");
      }
    } catch (const std::exception&) {
      throw UnitError{"alpha '" + alpha + "' must be a number from 1/1024 to 64"};
    }
    out.emplace_back(parse_rate(rate), a);
  }
  return out;
}

}  // namespace

double BufferParams::alpha_for(Rate r) const {
  for (const auto& [rate, a] : parse_alpha_by_rate(alpha_by_rate)) {
    if (rate == r) {
      return a;
    }
  }
  return alpha;
}

Registry<AdmissionFactory>& buffer_admission_registry() {
  static Registry<AdmissionFactory> r("switch.admission", "dynamic");
  return r;
}

const Schema<BufferParams>& BufferParams::schema() {
  static const Schema<BufferParams> s = [] {
    Schema<BufferParams> sc("admission", "shared-buffer admission per ingress priority group");
    sc.add(&BufferParams::type, "type", "dynamic", registry_doc(buffer_admission_registry()),
           one_of(buffer_admission_registry().names()))
        .add(&BufferParams::alpha, "alpha", "0.125",
             "dynamic threshold factor, 2^dynamic_th in SONiC terms (SONiC lossless PG profile: dynamic_th -3)",
             in_range(1.0 / 1024, 64.0), "factor")
        .add(&BufferParams::static_limit, "static_limit", "1MB", "shared bytes a priority group may hold (type static)")
        .add(&BufferParams::reserved, "reserved", "1248B",
             "guaranteed bytes per ingress port and priority group (SONiC lossless PG profile 'size')")
        .add(&BufferParams::alpha_by_rate, "alpha_by_rate", "",
             "alpha on ports of a given rate, overriding alpha there (type dynamic; the HPCC simulator's PFC "
             "threshold shift: 1/8 at the NIC rate, doubled per doubling of the port rate)",
             parses(parse_alpha_by_rate), "rate alpha; ...")
        .validate([](const BufferParams& p) -> std::optional<std::pair<std::string, std::string>> {
          if (!p.alpha_by_rate.empty() && p.type != "dynamic") {
            return std::make_pair("alpha_by_rate", "applies to type dynamic only");
          }
          return std::nullopt;
        });
    return sc;
  }();
  return s;
}

std::unique_ptr<BufferAdmission> make_buffer_admission(const BufferParams& p) {
  return buffer_admission_registry().find(p.type)->make(p);
}

}  // namespace rocesim

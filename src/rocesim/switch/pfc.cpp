#include "rocesim/switch/pfc.hpp"

#include <algorithm>

#include "rocesim/switch/switch.hpp"

namespace rocesim {

const Schema<DeadlockParams>& DeadlockParams::schema() {
  static const Schema<DeadlockParams> s = [] {
    Schema<DeadlockParams> sc("deadlock", "PFC deadlock detection during the run");
    sc.add(&DeadlockParams::detect_after, "detect_after", "0ns",
           "report a cycle of lossless queues, each paused by the next, once none has sent for this long (0: off; "
           "checked every detect_after / 4; at least 4ns, so that the check's period moves the clock)",
           [](const Time& v) -> std::optional<std::string> {
             if (v != Time() && v < Time::ns(4)) {
               return "must be 0 (off) or at least 4ns (it is checked every detect_after / 4)";
             }
             return v < Time() ? std::optional<std::string>("must not be negative") : std::nullopt;
           })
        .add(&DeadlockParams::action, "action", "stop", "on a deadlock: stop the run there, or continue",
             one_of({"stop", "continue"}));
    return sc;
  }();
  return s;
}

const Schema<PfcParams>& PfcParams::schema() {
  static const Schema<PfcParams> s = [] {
    Schema<PfcParams> sc("pfc", "priority flow control (IEEE 802.1Qbb)");
    sc.add(&PfcParams::priorities, "priorities", "[3]", "lossless priorities (RoCE convention: 3)", {}, "priority")
        .add(&PfcParams::headroom, "headroom", "auto",
             "headroom per ingress port and lossless priority: auto (from rate, delay, frame size), hpcc-ns3 (3 x "
             "rate x delay, the HPCC simulator's third.cc) or a size",
             parses(parse_bytes, {"auto", "hpcc-ns3"}, "a size"), "auto | size")
        .add(&PfcParams::xon_offset, "xon_offset", "3KB",
             "resume (XON) once shared use is this far below the pause threshold (HPCC simulator: 3 KB)")
        .add(&PfcParams::quanta, "quanta", "65535", "pause time carried by an XOFF frame, in 512-bit-time quanta",
             in_range<int64_t>(1, 65535), "quanta")
        .add(&PfcParams::response_time, "response_time", "0ns",
             "time a paused port keeps sending after the PFC frame arrived (on top of the frame on the wire)")
        .sub(&PfcParams::deadlock, "deadlock", DeadlockParams::schema())
        .sub(&PfcParams::watchdog, "watchdog", WatchdogParams::schema())
        .sub(&PfcParams::tagger, "tagger", TaggerParams::schema())
        .validate([](const PfcParams& p) -> std::optional<std::pair<std::string, std::string>> {
          for (int64_t c : p.priorities) {
            if (c < 0 || c > 7) {
              return std::make_pair("priorities", "priority " + std::to_string(c) + " is not in 0..7");
            }
            if (std::count(p.priorities.begin(), p.priorities.end(), c) > 1) {
              return std::make_pair("priorities", "priority " + std::to_string(c) + " is listed twice");
            }
          }
          const auto lossless = [&](int64_t c) {
            return std::find(p.priorities.begin(), p.priorities.end(), c) != p.priorities.end();
          };
          for (int64_t c : p.tagger.priorities) {
            if (!lossless(c)) {
              return std::make_pair("tagger.priorities",
                                    "priority " + std::to_string(c) + " is not lossless (pfc.priorities)");
            }
          }
          if (!p.tagger.priorities.empty() && lossless(p.tagger.lossy)) {
            return std::make_pair("tagger.lossy", "priority " + std::to_string(p.tagger.lossy) +
                                                      " is lossless (pfc.priorities): packets past the ladder must "
                                                      "go to a lossy one");
          }
          return std::nullopt;
        });
    return sc;
  }();
  return s;
}

uint8_t PfcParams::lossless() const {
  uint8_t m = 0;
  for (int64_t c : priorities) {
    m |= static_cast<uint8_t>(1u << c);
  }
  return m;
}

Bytes pfc_headroom(Rate rate, Time delay, Bytes max_frame, Time response_time) {
  const Bytes in_flight = rate.bytes_in(delay * 2 + response_time) + Bytes(1);  // round up
  return max_frame * 2 + Bytes(wire::on_wire(wire::kPfcFrame)) + in_flight;
}

Bytes port_headroom(const PfcParams& p, Rate rate, Time delay, Bytes max_frame) {
  if (p.headroom == "auto") {
    return pfc_headroom(rate, delay, max_frame, p.response_time);
  }
  if (p.headroom == "hpcc-ns3") {  // its integer arithmetic: rate (b/s) x delay (ns) / 8 / 10^9, times 3
    return Bytes(rate.bps() * (delay.ps() / 1000) / 8 / 1000000000 * 3);
  }
  return parse_bytes(p.headroom);
}

PfcControl::PfcControl(const FlowControlHost& host)
    : mmu_(host.params.buffer.count(), host.params.admission.reserved.count(), host.params.pfc.xon_offset.count(),
           host.max_frame, make_buffer_admission(host.params.admission)),
      lossless_(host.params.pfc.lossless()),
      host_(host),
      quanta_(host.params.pfc.quanta),
      response_time_(host.params.pfc.response_time) {}

void PfcControl::finalize(const std::vector<LinkEnd>& links, const std::string& switch_name,
                          const std::string& scenario_file) {
  const SwitchParams& p = host_.params;
  in_.resize(links.size());
  ports_.resize(links.size());
  int64_t aside = 0;
  const Bytes frame(host_.max_frame - wire::kPreambleIfg);
  for (size_t i = 0; i < links.size(); ++i) {
    const LinkEnd& link = links[i];
    Port& port = ports_[i];
    port.headroom = port_headroom(p.pfc, link.rate, link.delay, frame).count();
    const auto scale = static_cast<float>(p.admission.alpha_for(link.rate) / p.admission.alpha);
    for (auto& g : in_[i]) {
      g.fc.limit_scale = scale;
    }
    aside += port_set_aside(p, Bytes(port.headroom)).count();
    const Bytes need = pfc_headroom(link.rate, link.delay, frame, p.pfc.response_time);
    if (lossless_ && p.pfc.headroom != "auto" && link.peer && Bytes(port.headroom) < need) {
      if (short_headroom_.ports++ == 0 || need > short_headroom_.need) {
        short_headroom_.need = need;
        short_headroom_.example = static_cast<uint16_t>(i);
      }
    }
  }
  mmu_.set_shared_pool(p.buffer.count() - aside);
  if (mmu_.shared_pool() <= 0) {
    throw InputError(scenario_file, 0, "switch.buffer",
                     to_string(p.buffer) + " is too small for switch '" + switch_name + "': reserved space and PFC " +
                         "headroom (" + to_string(Bytes(aside)) + ") leave no shared pool");
  }
}

void PfcControl::count(uint16_t port, int prio, PortPrioCounters& c) const {
  const IngressLine<MmuGroup>& g = in_[port][prio];
  c.rx_bytes += g.count.rx_bytes;
  for (int i = 0; i < kAdmissionDrops; ++i) {
    c.drops[static_cast<size_t>(i)] += g.count.drops[static_cast<size_t>(i)];
  }
  const Class& k = ports_[port].cls[prio];
  c.xoff_sent += k.xoff_sent;
  c.xon_sent += k.xon_sent;
  c.max_headroom = std::max(c.max_headroom, k.max_headroom);
}

// One PFC frame for every priority whose state changed: XOFF with the configured quanta, or XON (quanta 0).
// While a priority stays paused its XOFF is refreshed at half the pause's lifetime.
Packet* PfcControl::frame(uint16_t out, const LinkEnd& link, uint8_t& owed, bool link_down) {
  if (link_down) {  // nothing reaches the peer; the link's return signals again (resignal)
    owed = 0;
    return nullptr;
  }
  Port& port = ports_[out];
  Packet* f = host_.pool.acquire(PacketKind::kPfc);
  f->frame = wire::kPfcFrame;
  PacketExt& fx = host_.pool.ext(f);
  fx.pfc_enable = owed;
  for (int c = 0; c < 8; ++c) {
    if (!(owed & (1u << c))) {
      continue;
    }
    if (port.xoff & (1u << c)) {
      fx.pfc_quanta[c] = static_cast<uint16_t>(quanta_);
      ++port.cls[c].xoff_sent;
      host_.sim.after(pause_time(static_cast<int>(quanta_), link.rate) / 2, &host_.node, kEvFlowControl,
                      RefreshArg{++port.cls[c].refresh_gen, out, static_cast<uint8_t>(c)}.encode());
    } else {
      ++port.cls[c].xon_sent;
    }
  }
  ++(owed & port.xoff ? port.pause_frames : port.resume_frames);
  owed = 0;
  return f;
}

// Only the latest XOFF's refresh counts; an XOFF sent since then has its own.
LinkSignal PfcControl::on_timer(uint64_t arg) const {
  const auto [gen, port, c] = RefreshArg::decode(arg);
  if ((ports_[port].xoff & (1u << c)) && gen == ports_[port].cls[c].refresh_gen) {
    return {port, static_cast<uint8_t>(1u << c)};
  }
  return {};
}

}  // namespace rocesim

#include "rocesim/io/capture.hpp"

#include <algorithm>
#include <sstream>

#include "rocesim/io/output.hpp"

namespace rocesim {

const Schema<CaptureParams>& CaptureParams::schema() {
  static const Schema<CaptureParams> s = [] {
    Schema<CaptureParams> sc("capture", "packet capture to a pcap file");
    sc.add(&CaptureParams::file, "file", "",
           "file name in the output folder (empty: capture.pcap or capture.pcapng, by format)")
        .add(&CaptureParams::format, "format", "auto",
             "pcap, pcapng (one named interface per captured link direction), or auto: pcapng when more than "
             "one link direction is captured",
             one_of({"auto", "pcap", "pcapng"}))
        .add(&CaptureParams::hosts, "hosts", "[]", "capture the links of these hosts", {}, "host")
        .add(&CaptureParams::ports, "ports", "", "and of these switch ports, as switch:port, comma-separated", {},
             "name:port, ...")
        .add(&CaptureParams::direction, "direction", "both",
             "frames sent by the named host or port (tx), received by it (rx), or both", one_of({"tx", "rx", "both"}))
        .add(&CaptureParams::start, "start", "0ns", "capture frames from this time")
        .add(&CaptureParams::stop, "stop", "1000s", "until this time")
        .add(&CaptureParams::snaplen, "snaplen", "0",
             "bytes kept of each frame, the true length recorded; 0 (the default) keeps whole frames, which "
             "Wireshark decodes cleanly (cut RoCE frames show as malformed there); 128 keeps every header",
             in_range<int64_t>(0, 65535), "bytes")
        .validate([](const CaptureParams& p) -> std::optional<std::pair<std::string, std::string>> {
          if (p.hosts.empty() && p.ports.empty()) {
            return std::make_pair("hosts", "name at least one host or switch port to capture");
          }
          if (p.stop <= p.start) {
            return std::make_pair("stop", "must be after start");
          }
          if (p.file.empty()) {
            return std::nullopt;
          }
          if (const auto bad = result_name_error(p.file)) {
            return std::make_pair("file", *bad);
          }
          return std::nullopt;
        });
    return sc;
  }();
  return s;
}

// A tap on one sending port. Frames it sees are stamped with the start of transmission (tx) or with the arrival
// of their last bit at the other end (rx: start + serialisation + propagation).
class Capture::Tap final : public FrameTap {
 public:
  Tap(Capture& c, size_t part, uint32_t node, uint32_t iface, bool rx, Rate rate, Time delay)
      : c_(c), part_(part), node_(node), iface_(iface), rx_(rx), rate_(rate), delay_(delay) {}
  void on_frame(Time start, const Packet& p) override {
    const Time ts = rx_ ? start + rate_.tx_time(Bytes(p.wire_bytes())) + delay_ : start;
    if (ts < c_.p_.start || ts >= c_.p_.stop) {
      return;
    }
    c_.seen_.add(part_, Seen{ts, node_, iface_, p, p.ext ? std::optional<PacketExt>(*p.ext) : std::nullopt});
  }

 private:
  Capture& c_;
  size_t part_;  // the sending node's partition
  uint32_t node_, iface_;
  bool rx_;
  Rate rate_;
  Time delay_;
};

Capture::Capture(const CaptureParams& p, Network& net, Engine& engine, const std::string& file)
    : p_(p), net_(net), seen_(engine) {
  const bool tx = p.direction != "rx", rx = p.direction != "tx";
  auto switch_index = [&](const Node* n) -> uint32_t {
    for (size_t i = 0; i < net.switches().size(); ++i) {
      if (net.switches()[i].get() == n) {
        return static_cast<uint32_t>(i);
      }
    }
    return 0xFFFF;  // a NIC: it never sends PFC frames, so its id is never used
  };
  auto attach = [&](Node* node, uint16_t port, bool as_rx, const LinkEnd& link) {
    for (const auto& [n, pt] : attached_) {
      if (n == node && pt == port) {
        return;  // this link direction is already captured
      }
    }
    const auto end = [](const Node* n, uint16_t pt) {
      return n->kind() == NodeKind::kSwitch ? n->name() + ":" + std::to_string(pt) : n->name();
    };
    ifaces_.push_back(end(node, port) + " -> " + end(link.peer, link.peer_port));
    taps_.push_back(std::make_unique<Tap>(*this, engine.partition_of(node->graph_id()), switch_index(node),
                                          static_cast<uint32_t>(ifaces_.size() - 1), as_rx, link.rate, link.delay));
    node->add_tap(port, taps_.back().get());
    attached_.push_back({node, port});
  };
  // A link direction is captured at the port that sends on it: `rx` of a named port means its peer's tx.
  auto capture_port = [&](Node* node, uint16_t port, const LinkEnd& out) {
    if (tx) {
      attach(node, port, false, out);
    }
    if (rx) {
      const LinkEnd back{node, port, out.rate, out.delay};
      attach(out.peer, out.peer_port, true, back);
    }
  };
  for (int64_t h : p.hosts) {
    if (h < 0 || static_cast<size_t>(h) >= net.num_hosts()) {
      throw InputError(
          file, 0, "capture.hosts",
          "host " + std::to_string(h) + " does not exist (0.." + std::to_string(net.num_hosts() - 1) + ")");
    }
    Nic& nic = net.nic(static_cast<uint32_t>(h));
    capture_port(&nic, 0, nic.link());
  }
  for (auto [sw, port] : net.parse_ports(p.ports, file, "capture.ports")) {
    capture_port(sw, port, sw->link(port));
  }
}

Capture::~Capture() {
  for (size_t i = 0; i < attached_.size(); ++i) {  // taps_[i] watches attached_[i]
    attached_[i].first->remove_tap(attached_[i].second, taps_[i].get());
  }
}

void Capture::record(Time ts, const Packet& p, uint32_t node, uint32_t iface) {
  frame::Context ctx;
  if (p.kind == PacketKind::kTcp && (p.flags & Packet::kFlagIwarp)) {
    open_iwarp(ts, p, iface);
    map_iwarp(p, ctx);
  }
  ctx.node = node;
  ctx.port = p.in_port;
  ctx.roce_v1 = net_.fabric() == wire::Fabric::kRoceV1;
  if (wire::has_reth(p.opcode)) {
    ctx.dma_length = p.dma_length();
  }
  add(ts, iface, p, frame::build(p, ctx));
}

// The simulated connection is open from its start (as RoCE's queue pairs are); the capture shows the MPA
// exchange that opened it, stamped with its first captured segment, so that Wireshark decodes the FPDUs after it
// (its MPA dissector starts from a Request and a Reply on the TCP connection).
void Capture::open_iwarp(Time ts, const Packet& p, uint32_t iface) {
  const bool data = p.payload > 0;
  if (!iwarp_seq_.try_emplace({data ? p.src : p.dst, data ? p.dst : p.src, p.sport}).second) {
    return;
  }
  add(ts, iface, p, frame::build_mpa_start(p, false));
  add(ts, iface, p, frame::build_mpa_start(p, true));
}

// A data segment says where it starts in both counts (Packet::tcp_wire_seq); an ACK's numbers are ends of
// segments the capture has seen (or, where it has not, offset from the nearest one below).
void Capture::map_iwarp(const Packet& p, frame::Context& ctx) {
  const bool data = p.payload > 0;
  auto& m = iwarp_seq_[{data ? p.src : p.dst, data ? p.dst : p.src, p.sport}];
  if (data) {
    ctx.tcp_seq = p.tcp_wire_seq();
    m[p.psn] = ctx.tcp_seq;
    m[p.psn + p.payload] = ctx.tcp_seq + static_cast<uint32_t>(p.frame - wire::tcp_frame(0));
    return;
  }
  const auto wire_of = [&](uint32_t seq) {
    auto it = m.upper_bound(seq);
    return it == m.begin() ? seq : std::prev(it)->second + (seq - std::prev(it)->first);
  };
  ctx.tcp_seq = wire_of(p.psn);
  for (int k = 0; p.ext && k < 2 * p.ext->sack_blocks; ++k) {
    ctx.tcp_sack[k] = wire_of(p.ext->sack[k]);
  }
}

void Capture::add(Time ts, uint32_t iface, const Packet& p, std::vector<uint8_t> bytes) {
  CapturedFrame f;
  f.ts = ts;
  f.iface = iface;
  f.bytes = std::move(bytes);
  f.orig_len = static_cast<uint32_t>(f.bytes.size());
  if (p_.snaplen > 0 && f.bytes.size() > static_cast<size_t>(p_.snaplen)) {
    f.bytes.resize(static_cast<size_t>(p_.snaplen));
  }
  f.kind = p.kind;
  f.opcode = p.opcode;
  f.ecn = p.ecn;
  f.qpn = frame::wire_qpn(p.qpn);
  f.psn = p.psn;
  if (p.ext) {
    f.pfc_enable = p.ext->pfc_enable;
    std::copy(std::begin(p.ext->pfc_quanta), std::end(p.ext->pfc_quanta), f.pfc_quanta.begin());
  }
  if (!frames_.empty() && ts < frames_.back().ts) {
    sorted_ = false;
  }
  frames_.push_back(std::move(f));
}

void Capture::collect() {
  seen_.drain([&](Seen&& s) {
    s.packet.ext = s.ext ? &*s.ext : nullptr;
    record(s.ts, s.packet, s.node, s.iface);
  });
}

const std::vector<CapturedFrame>& Capture::frames() {
  if (!sorted_) {
    std::stable_sort(frames_.begin(), frames_.end(),
                     [](const CapturedFrame& a, const CapturedFrame& b) { return a.ts < b.ts; });
    sorted_ = true;
  }
  return frames_;
}

std::string Capture::format() const {
  if (p_.format != "auto") {
    return p_.format;
  }
  return ifaces_.size() > 1 ? "pcapng" : "pcap";
}

std::string Capture::file_name() const { return p_.file.empty() ? "capture." + format() : p_.file; }

std::string Capture::pcapng() {
  std::string out;
  auto put32 = [&](uint32_t v) {
    for (int k = 0; k < 4; ++k) {
      out.push_back(static_cast<char>(v >> (8 * k)));  // little-endian, as the byte-order magic says
    }
  };
  auto put16 = [&](uint16_t v) {
    out.push_back(static_cast<char>(v));
    out.push_back(static_cast<char>(v >> 8));
  };
  auto pad = [&] {
    while (out.size() % 4) {
      out.push_back(0);
    }
  };
  // A block: type, total length, body, total length again; the length is patched once the body is written.
  auto block = [&](uint32_t type, auto&& body) {
    const size_t start = out.size();
    put32(type);
    put32(0);
    body();
    pad();
    const auto len = static_cast<uint32_t>(out.size() - start + 4);
    put32(len);
    for (int k = 0; k < 4; ++k) {
      out[start + 4 + k] = static_cast<char>(len >> (8 * k));
    }
  };
  auto option = [&](uint16_t code, const std::string& value) {
    put16(code);
    put16(static_cast<uint16_t>(value.size()));
    out += value;
    pad();
  };
  block(0x0A0D0D0A, [&] {  // section header block
    put32(0x1A2B3C4D);
    put16(1);
    put16(0);
    put32(0xFFFFFFFF);  // section length: not given
    put32(0xFFFFFFFF);
    option(4, "rocesim " ROCESIM_VERSION);  // shb_userappl
    put32(0);                               // opt_endofopt
  });
  for (const std::string& name : ifaces_) {
    block(1, [&] {  // interface description block
      put16(1);     // LINKTYPE_ETHERNET
      put16(0);
      put32(p_.snaplen > 0 ? static_cast<uint32_t>(p_.snaplen) : 0);  // 0: no limit
      option(2, name);                                                // if_name
      option(9, std::string(1, '\x09'));                              // if_tsresol: 10^-9 s
      put32(0);
    });
  }
  for (const auto& f : frames()) {
    block(6, [&] {  // enhanced packet block
      const auto ns = static_cast<uint64_t>(f.ts.ps() / 1000);
      put32(f.iface);
      put32(static_cast<uint32_t>(ns >> 32));
      put32(static_cast<uint32_t>(ns));
      put32(static_cast<uint32_t>(f.bytes.size()));
      put32(f.orig_len);
      out.append(reinterpret_cast<const char*>(f.bytes.data()), f.bytes.size());
    });
  }
  return out;
}

std::string Capture::pcap() {
  std::string out;
  auto put32 = [&](uint32_t v) {
    for (int k = 0; k < 4; ++k) {
      out.push_back(static_cast<char>(v >> (8 * k)));  // little-endian file
    }
  };
  auto put16 = [&](uint16_t v) {
    out.push_back(static_cast<char>(v));
    out.push_back(static_cast<char>(v >> 8));
  };
  put32(0xA1B23C4D);  // nanosecond-resolution pcap
  put16(2);
  put16(4);
  put32(0);
  put32(0);
  put32(p_.snaplen > 0 ? static_cast<uint32_t>(p_.snaplen) : 65535);
  put32(1);  // LINKTYPE_ETHERNET
  for (const auto& f : frames()) {
    const int64_t ns = f.ts.ps() / 1000;
    put32(static_cast<uint32_t>(ns / 1000'000'000));
    put32(static_cast<uint32_t>(ns % 1000'000'000));
    put32(static_cast<uint32_t>(f.bytes.size()));
    put32(f.orig_len);
    out.append(reinterpret_cast<const char*>(f.bytes.data()), f.bytes.size());
  }
  return out;
}

}  // namespace rocesim

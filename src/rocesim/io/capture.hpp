// Packet capture: the frames that cross chosen links, as byte-exact RoCEv2/CNP/PFC frames in a nanosecond pcap
// file, or a pcapng file with one named interface per captured link direction, that Wireshark and tshark read.
// Configured by the scenario's `capture` section.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "rocesim/cluster/network.hpp"
#include "rocesim/cluster/output.hpp"
#include "rocesim/core/params.hpp"
#include "rocesim/engine/journal.hpp"
#include "rocesim/net/frame.hpp"

namespace rocesim {

struct CaptureParams {
  std::string file;            // empty: capture.pcap or capture.pcapng, by format
  std::string format;          // pcap, pcapng, or auto: pcapng when more than one link direction is captured
  std::vector<int64_t> hosts;  // capture the links of these hosts
  std::string ports;           // and of these switch ports: "leaf0:0, spine1:2"
  std::string direction;       // tx, rx or both, as seen from the named host or port
  Time start, stop;
  int64_t snaplen = 0;  // bytes kept per frame; 0 keeps whole frames
  static const Schema<CaptureParams>& schema();
};

// One captured frame, with the simulator's own account of it (for checking a dissector against it).
struct CapturedFrame {
  Time ts;
  uint32_t iface = 0;  // the link direction it was seen on: an index into Capture::interfaces()
  uint32_t orig_len = 0;
  std::vector<uint8_t> bytes;  // the first snaplen bytes
  PacketKind kind = PacketKind::kData;
  uint8_t opcode = 0, ecn = 0, pfc_enable = 0;
  uint32_t qpn = 0, psn = 0;
  std::array<uint16_t, 8> pfc_quanta{};
};

// Contract: an output (its pcap or pcapng file).
class Capture final : public Output {
 public:
  // Attaches taps to the network's ports; throws InputError for unknown hosts or ports.
  Capture(const CaptureParams& p, Network& net, Engine& engine, const std::string& scenario_file);
  ~Capture();
  Capture(const Capture&) = delete;
  Capture& operator=(const Capture&) = delete;
  // After the run: builds the frames the taps saw, in the order of a run of one partition.
  void collect() override;
  OutputFiles files(const OutputContext&) override { return {{file_name(), contents()}}; }
  // Captured frames in time order.
  const std::vector<CapturedFrame>& frames();
  // The link directions captured, each named "sender -> receiver" (a switch port as switch:port).
  const std::vector<std::string>& interfaces() const { return ifaces_; }
  // The capture as a pcap file (magic 0xA1B23C4D: nanosecond timestamps; LINKTYPE_ETHERNET).
  std::string pcap();
  // The capture as a pcapng file: a section header, one interface description block per link direction (its
  // name, nanosecond timestamps) and an enhanced packet block per frame (draft-ietf-opsawg-pcapng).
  std::string pcapng();
  // "pcap" or "pcapng", as capture.format resolves; the output file's name; and its contents.
  std::string format() const;
  std::string file_name() const;
  std::string contents() { return format() == "pcapng" ? pcapng() : pcap(); }
  const CaptureParams& params() const { return p_; }

 private:
  class Tap;
  // A frame as a tap saw it, kept until collect() builds it: what it builds depends on the frames before it
  // (iWARP's sequence numbers), so frames are built in the order of a run of one partition.
  struct Seen {
    Time ts;
    uint32_t node, iface;
    Packet packet;
    std::optional<PacketExt> ext;
  };
  void record(Time ts, const Packet& p, uint32_t node, uint32_t iface);
  void add(Time ts, uint32_t iface, const Packet& p, std::vector<uint8_t> bytes);
  // An iWARP connection's first captured segment: its MPA Request and Reply go in first.
  void open_iwarp(Time ts, const Packet& p, uint32_t iface);
  CaptureParams p_;
  Network& net_;
  Journal<Seen> seen_;
  std::vector<std::unique_ptr<Tap>> taps_;
  std::vector<std::pair<Node*, uint16_t>> attached_;
  std::vector<CapturedFrame> frames_;
  std::vector<std::string> ifaces_;
  bool sorted_ = true;
  // iWARP connections, by (data sender, receiver, sender's port): their payload counts -> the bytes TCP carries,
  // at the starts and ends of the segments seen.
  using IwarpKey = std::tuple<uint32_t, uint32_t, uint16_t>;
  std::map<IwarpKey, std::map<uint32_t, uint32_t>> iwarp_seq_;
  // An iWARP segment's numbers as TCP carries them, into `ctx`.
  void map_iwarp(const Packet& p, frame::Context& ctx);
};

}  // namespace rocesim

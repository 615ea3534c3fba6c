// Packet capture: tshark decodes every frame, and what it decodes equals the simulator's own record.
#include "rocesim/io/capture.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include "../test_util.hpp"
#include "rocesim/analysis/results.hpp"

namespace rocesim {
namespace {

// Four hosts on one switch with a small buffer: hosts 1 and 2 write 1 MB each to host 0 (ECN marks, CNPs, PFC
// pauses towards host 1), host 0 reads 100 KB from host 3, host 3 sends 50 KB to host 0 before the receive is
// posted (receiver-not-ready), and one packet of host 1's write is lost (a NAK and go-back-N).
const char* kScenario = R"(seed: 1
stop: 10ms
topology: {type: star, hosts: 4}
switch: {buffer: 2MB}
nic: {cc: dcqcn, mtu: 1024, rnr_timer: 10us}
capture: {hosts: [0, 1]}
)";

std::unique_ptr<Simulation> run(const std::vector<std::string>& sets = {}) {
  auto s = test::make_sim(kScenario, sets);
  Network& net = s->net();
  const auto add = [&](uint32_t src, uint32_t dst, int64_t size, RdmaOp op, Time start, Time posted = Time()) {
    FlowSpec f;
    f.src = src;
    f.dst = dst;
    f.size = Bytes(size);
    f.op = op;
    f.start = start;
    f.recv_posted = posted;
    return net.add_flow(f);
  };
  const uint32_t w1 = add(1, 0, 1'000'000, RdmaOp::kWrite, Time());
  add(2, 0, 1'000'000, RdmaOp::kWrite, Time());
  add(0, 3, 100'000, RdmaOp::kRead, Time::us(5));
  add(3, 0, 50'000, RdmaOp::kSend, Time::us(5), Time::us(200));
  net.nic(1).inject_drop(net.flow_path(w1).send_qpn, 300);
  s->run();
  return s;
}

std::string sh(const std::string& cmd) {
  FILE* p = popen((cmd + " 2>/dev/null").c_str(), "r");
  std::string out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p)) {
    out.append(buf, n);
  }
  pclose(p);
  return out;
}

}  // namespace

TEST(Capture, TsharkDecodesEveryFrameAsTheSimulatorRecordedIt) {
  ASSERT_NE(sh("command -v tshark"), "") << "tshark is needed (scripts/install-deps --test)";
  auto s = run();
  Capture& cap = *s->output<Capture>();
  const std::string file = "/tmp/rocesim_capture_" + std::to_string(getpid()) + ".pcap";
  std::ofstream(file, std::ios::binary) << cap.pcap();
  const auto& frames = cap.frames();
  // Every kind of frame the issue lists is in the capture.
  std::set<int> opcodes;
  int pfc = 0, naks = 0, rnr = 0, ce = 0;
  for (const auto& f : frames) {
    if (f.kind == PacketKind::kPfc) {
      ++pfc;
    } else {
      opcodes.insert(f.opcode);
    }
    naks += f.kind == PacketKind::kNak;
    ce += f.ecn == wire::kCe;
  }
  for (int op : std::initializer_list<int>{wire::kWriteFirst, wire::kWriteMiddle, wire::kWriteLast, wire::kReadRequest,
                                           wire::kReadRespFirst, wire::kReadRespMiddle, wire::kReadRespLast,
                                           wire::kSendFirst, wire::kSendLast, wire::kAcknowledge, int{wire::kCnp}}) {
    EXPECT_TRUE(opcodes.count(op)) << "no frame with opcode " << op;
  }
  EXPECT_GT(pfc, 0);
  EXPECT_GT(naks, 0);
  EXPECT_GT(ce, 0);
  // No frame is malformed, with the default capture settings: neither by the expert flag nor in tshark's summary
  // lines (a user's first look).
  EXPECT_EQ(sh("tshark -r " + file + " -Y _ws.malformed -T fields -e frame.number"), "");
  EXPECT_EQ(sh("tshark -r " + file + " | grep -c Malformed"), "0\n");
  // Field by field, tshark's decoding equals the record.
  const std::string out = sh("tshark -r " + file +
                             " -T fields -E separator=, -e frame.time_epoch -e infiniband.bth.opcode"
                             " -e infiniband.bth.destqp -e infiniband.bth.psn -e ip.dsfield.ecn -e macc.cbfc.enbv"
                             " -e macc.cbfc.pause_time.c3 -e infiniband.aeth.syndrome");
  std::istringstream in(out);
  std::string line;
  size_t i = 0;
  while (std::getline(in, line)) {
    ASSERT_LT(i, frames.size());
    const CapturedFrame& f = frames[i];
    std::vector<std::string> c;
    std::stringstream ls(line);
    std::string x;
    while (std::getline(ls, x, ',')) {
      c.push_back(x);
    }
    c.resize(8);
    char ts[32];
    std::snprintf(ts, sizeof ts, "0.%09lld", static_cast<long long>(f.ts.ps() / 1000));
    EXPECT_EQ(c[0], ts) << "frame " << i + 1;
    if (f.kind == PacketKind::kPfc) {
      char enbv[16];
      std::snprintf(enbv, sizeof enbv, "0x%04x", f.pfc_enable);
      EXPECT_EQ(c[5], enbv) << "frame " << i + 1;
      EXPECT_EQ(c[6], std::to_string(f.pfc_quanta[3])) << "frame " << i + 1;
    } else {
      char qp[16];
      std::snprintf(qp, sizeof qp, "0x%06x", f.qpn);
      EXPECT_EQ(c[1], std::to_string(f.opcode)) << "frame " << i + 1;
      EXPECT_EQ(c[2], qp) << "frame " << i + 1;
      EXPECT_EQ(c[3], std::to_string(f.psn)) << "frame " << i + 1;
      EXPECT_EQ(c[4], std::to_string(f.ecn)) << "frame " << i + 1;
      if (f.kind == PacketKind::kNak) {
        rnr += c[7] == "44";  // 0x2C: RNR NAK
        EXPECT_TRUE(c[7] == "96" || c[7] == "44") << "frame " << i + 1 << ": NAK syndrome " << c[7];
      }
    }
    ++i;
  }
  EXPECT_EQ(i, frames.size());
  EXPECT_GT(rnr, 0);
  std::remove(file.c_str());
}

TEST(Capture, CapturingDoesNotChangeResults) {
  const auto with = run();
  const auto without = run({"capture=null"});
  EXPECT_EQ(without->output<Capture>(), nullptr);
  EXPECT_EQ(flows_csv(with->net()), flows_csv(without->net()));
  EXPECT_EQ(ports_csv(with->net(), with->sim().now()), ports_csv(without->net(), without->sim().now()));
}

TEST(Capture, SnapLengthKeepsHeadersAndTheTrueLength) {
  auto s = run({"capture.snaplen=64", "capture.direction=tx", "capture.hosts=[1]"});
  const auto& frames = s->output<Capture>()->frames();
  ASSERT_FALSE(frames.empty());
  for (const auto& f : frames) {
    EXPECT_LE(f.bytes.size(), 64u);
    EXPECT_GE(f.orig_len, f.bytes.size());
  }
  // Host 1 sends its write (1024-byte payloads: 1082-byte frames without FCS for middles) and nothing else
  // but ACK-free control: every frame it sends is data from host 1.
  EXPECT_EQ(frames[1].orig_len, 1024u + 62 - 4);
  const std::string pcap = s->output<Capture>()->pcap();
  EXPECT_EQ(static_cast<uint8_t>(pcap[0]), 0x4D);  // 0xA1B23C4D little-endian: nanosecond timestamps
  EXPECT_EQ(static_cast<uint8_t>(pcap[3]), 0xA1);
}

TEST(Capture, PcapngNamesTheLinkDirectionEachFrameWasSeenOn) {
  ASSERT_NE(sh("command -v tshark"), "") << "tshark is needed (scripts/install-deps --test)";
  auto s = run();
  Capture& cap = *s->output<Capture>();
  // Hosts 0 and 1, both directions: four link directions, so auto chooses pcapng.
  EXPECT_EQ(cap.format(), "pcapng");
  EXPECT_EQ(cap.file_name(), "capture.pcapng");
  EXPECT_EQ(cap.interfaces(), (std::vector<std::string>{"host0 -> switch0:0", "switch0:0 -> host0",
                                                        "host1 -> switch0:1", "switch0:1 -> host1"}));
  const std::string file = "/tmp/rocesim_capture_" + std::to_string(getpid()) + ".pcapng";
  std::ofstream(file, std::ios::binary) << cap.contents();
  const std::string out =
      sh("tshark -r " + file + " -T fields -E separator=, -e frame.interface_name -e frame.time_epoch");
  std::istringstream in(out);
  std::string line;
  size_t i = 0;
  std::set<std::string> seen;
  while (std::getline(in, line)) {
    ASSERT_LT(i, cap.frames().size());
    const CapturedFrame& f = cap.frames()[i];
    char ts[32];
    std::snprintf(ts, sizeof ts, "0.%09lld", static_cast<long long>(f.ts.ps() / 1000));
    EXPECT_EQ(line, cap.interfaces()[f.iface] + "," + ts) << "frame " << i + 1;
    seen.insert(line.substr(0, line.find(',')));
    ++i;
  }
  EXPECT_EQ(i, cap.frames().size());
  EXPECT_EQ(seen.size(), 4u);  // every direction carried frames
  std::remove(file.c_str());
  // One link direction: a plain pcap, unless pcapng is asked for.
  EXPECT_EQ(run({"capture.direction=tx", "capture.hosts=[1]"})->output<Capture>()->format(), "pcap");
  EXPECT_EQ(run({"capture.direction=tx", "capture.hosts=[1]", "capture.format=pcapng"})->output<Capture>()->format(),
            "pcapng");
}

TEST(Capture, UnknownHostsAndPortsAreInputErrors) {
  EXPECT_THROW(run({"capture.hosts=[9]"}), InputError);
  EXPECT_THROW(run({"capture.hosts=[]", "capture.ports=switch0:99"}), InputError);
  EXPECT_THROW(run({"capture.hosts=[]", "capture.ports=nosuch:1"}), InputError);
  EXPECT_THROW(run({"capture.hosts=[]"}), InputError);  // nothing to capture
}

}  // namespace rocesim

// Kernel TCP and iWARP beside RoCEv2: the host cost bounds a kernel connection at the rate its cycles imply, RDMA
// reaches line rate with next to no CPU, a TCP incast on a lossy priority drops and recovers where RoCE with PFC
// does not drop, DCTCP keeps that incast lossless, iWARP runs at line rate less its framing, and captures decode.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "../test_util.hpp"
#include "rocesim/analysis/results.hpp"
#include "rocesim/cc/tcp_cc.hpp"
#include "rocesim/io/capture.hpp"
#include "rocesim/run/summary.hpp"

namespace rocesim {
namespace {

const char* kPair = "seed: 1\nstop: 100ms\ntopology: {type: star, hosts: 2, host_link: {rate: 100Gbps, delay: 1us}}\n";

FlowSpec flow(uint32_t src, uint32_t dst, int64_t size, Transport t, int prio = 0) {
  FlowSpec f = test::write_flow(src, dst, Bytes(size), Time(), prio);
  f.transport = t;
  return f;
}

double gbps(const FlowRecord& f) {
  return static_cast<double>(f.spec.size.count()) * 8 / (f.end - f.posted).sec_f() / 1e9;
}

TEST(TcpHostCost, OneConnectionOnOneCoreIsBoundAtTheRateItsCyclesImply) {
  auto s = test::make_sim(kPair);
  s->net().add_flow(flow(0, 1, 20'000'000, Transport::kTcp));
  s->run();
  const FlowRecord& f = s->net().flows()[0];
  ASSERT_TRUE(f.done);
  // The receiving core spends 0.37 cycles per byte and 1785 per 1448-byte segment, at 3 GHz: 14.98 Gb/s.
  const double bound = 3e9 / (0.37 + 1785.0 / 1448) * 8 / 1e9;
  EXPECT_NEAR(gbps(f), bound, 0.02 * bound);
  EXPECT_LT(gbps(f), 20);
  // The ideal is the segments at line rate (1448 of 1538 wire bytes): the slowdown is what the core costs.
  const double slowdown = (f.end - f.posted).sec_f() / f.ideal_fct.sec_f();
  EXPECT_NEAR(slowdown, 100.0 * 1448 / 1538 / bound, 0.03 * slowdown);
  // That core was busy for nearly the whole transfer; the sender's for 0.34 / 1.60 of it (plus its calls).
  const double fct = (f.end - f.posted).sec_f();
  EXPECT_NEAR(s->net().nic(1).cpu_time().sec_f() / fct, 1.0, 0.03);
  EXPECT_NEAR(s->net().nic(0).cpu_time().sec_f() / fct, 0.34 / (0.37 + 1785.0 / 1448), 0.02);
}

TEST(TcpHostCost, JumboFramesRaiseTheBoundToCaiEtAlsFortyTwoGbps) {
  auto s = test::make_sim(kPair, {"tcp.mss=8948"});
  s->net().add_flow(flow(0, 1, 40'000'000, Transport::kTcp));
  s->run();
  const FlowRecord& f = s->net().flows()[0];
  ASSERT_TRUE(f.done);
  const double bound = 3e9 / (0.37 + 1785.0 / 8948) * 8 / 1e9;  // 42.2 Gb/s: one receiving core
  EXPECT_NEAR(gbps(f), bound, 0.02 * bound);
}

TEST(RdmaHostCost, AWriteOnTheSamePathReachesLineRateWithNextToNoCpu) {
  auto s = test::make_sim(kPair);
  s->net().add_flow(flow(0, 1, 20'000'000, Transport::kRdma, 3));
  s->run();
  const FlowRecord& f = s->net().flows()[0];
  ASSERT_TRUE(f.done);
  EXPECT_LE((f.end - f.posted).sec_f() / f.ideal_fct.sec_f(), 1.01);
  EXPECT_EQ(s->net().nic(0).cpu_time(), Time::ns(100));  // one post (nic.post_cpu)
  EXPECT_EQ(s->net().nic(1).cpu_time(), Time());
}

TEST(Iwarp, RunsAtLineRateLessItsFramingWithNoHostCpu) {
  auto s = test::make_sim(kPair);
  s->net().add_flow(flow(0, 1, 20'000'000, Transport::kIwarp));
  s->run();
  const FlowRecord& f = s->net().flows()[0];
  ASSERT_TRUE(f.done);
  // 1428 payload bytes per 1538 on the wire (1448 of TCP payload carrying MPA, DDP/RDMAP and CRC; 70 of
  // Ethernet, IPv4, TCP and timestamps; 20 of preamble and gap).
  const double goodput = 100.0 * 1428 / 1538;
  EXPECT_LE(gbps(f), goodput);
  EXPECT_GT(gbps(f), 0.97 * goodput);
  // Its ideal counts the same framing.
  EXPECT_GE((f.end - f.posted).sec_f() / f.ideal_fct.sec_f(), 1.0);
  EXPECT_LE((f.end - f.posted).sec_f() / f.ideal_fct.sec_f(), 1.03);
  EXPECT_EQ(s->net().nic(0).cpu_time() + s->net().nic(1).cpu_time(), Time());
}

TEST(HostCpuOutputs, NicsCsvAndSummaryReportTheCoreSecondsEachTransportUsed) {
  // One kernel TCP flow 0 -> 1 and one RDMA WRITE 2 -> 3, 20 MB each: TCP's receiver is busy for the whole
  // transfer, RDMA's sender for one post.
  auto s = test::make_sim(
      "seed: 1\nstop: 100ms\ntopology: {type: star, hosts: 4, host_link: {rate: 100Gbps, delay: 1us}}\n");
  s->net().add_flow(flow(0, 1, 20'000'000, Transport::kTcp));
  s->net().add_flow(flow(2, 3, 20'000'000, Transport::kRdma, 3));
  s->run();
  const auto rows = test::csv_rows(nics_csv(s->net(), s->sim().now()));
  ASSERT_EQ(rows.size(), 4u);
  const FlowRecord& tcp = s->net().flows()[0];
  EXPECT_NEAR(std::stod(rows[1].at("cpu_s")), (tcp.end - tcp.posted).sec_f(), 0.03 * (tcp.end - tcp.posted).sec_f());
  EXPECT_DOUBLE_EQ(std::stod(rows[2].at("cpu_s")), 100e-9);
  EXPECT_DOUBLE_EQ(std::stod(rows[3].at("cpu_s")), 0);
  double sum = 0;
  for (const auto& r : rows) {
    sum += std::stod(r.at("cpu_s"));
  }
  const nlohmann::json j = summary_json(*s, RunInfo{});
  EXPECT_NEAR(j["cpu"]["core_seconds"].get<double>(), sum, 1e-9);
  EXPECT_EQ(j["cpu"]["max_server"], "host1");
  EXPECT_NEAR(j["cpu"]["max_server_core_seconds"].get<double>(), std::stod(rows[1].at("cpu_s")), 1e-9);
}

TEST(TransportInput, KernelTcpOnALosslessPriorityWarnsUnlessSaidToBeMeant) {
  const std::string yaml = std::string(kPair) + "workload:\n  - {type: permutation, size: 10KB, transport: tcp}\n";
  const auto warned = [](const Simulation& s) {
    for (const std::string& w : s.warnings()) {
      if (w.find("workload.0.transport: kernel TCP on priority 3") != std::string::npos) {
        return true;
      }
    }
    return false;
  };
  EXPECT_TRUE(warned(*test::make_sim(yaml)));
  EXPECT_FALSE(warned(*test::make_sim(yaml, {"tcp.lossless_ok=true"})));
  EXPECT_FALSE(warned(*test::make_sim(yaml, {"workload.0.priority=0"})));
  EXPECT_FALSE(warned(*test::make_sim(yaml, {"workload.0.transport=iwarp"})));
}

const char* kIncast = R"(seed: 1
stop: 2s
topology: {type: star, hosts: 9, host_link: {rate: 100Gbps, delay: 1us}}
switch: {buffer: 1MB, pfc: {priorities: [3]}, ecn: {kmin: 100KB, kmax: 100KB, pmax: 1}}
)";

struct IncastResult {
  int64_t drops = 0, retransmits = 0, timeouts = 0, done = 0;
};
IncastResult incast(Transport t, int prio, const std::vector<std::string>& sets = {}) {
  auto s = test::make_sim(kIncast, sets);
  for (uint32_t h = 1; h <= 8; ++h) {
    s->net().add_flow(flow(h, 0, 2'000'000, t, prio));
  }
  s->run();
  IncastResult r;
  r.drops = test::sum_ports(s->net(), [](const PortPrioCounters& c) {
    int64_t n = 0;
    for (int64_t d : c.drops) {
      n += d;
    }
    return n;
  });
  for (const FlowRecord& f : s->net().flows()) {
    r.retransmits += f.retransmits;
    r.timeouts += f.timeouts;
    r.done += f.done;
  }
  return r;
}

TEST(TcpIncast, OnALossyPriorityDropsAndRecoversWhereRoceWithPfcDoesNotDrop) {
  const IncastResult tcp = incast(Transport::kTcp, 0);
  EXPECT_EQ(tcp.done, 8);
  EXPECT_GT(tcp.drops, 0);
  EXPECT_EQ(tcp.retransmits, tcp.drops);  // every segment dropped was sent again, none needlessly
  const IncastResult roce = incast(Transport::kRdma, 3);
  EXPECT_EQ(roce.done, 8);
  EXPECT_EQ(roce.drops, 0);
  EXPECT_EQ(roce.retransmits, 0);
}

TEST(TcpIncast, DctcpOnEcnMarksKeepsItLosslessWhereCubicDrops) {
  const IncastResult dctcp = incast(Transport::kTcp, 0, {"tcp.cc=dctcp"});
  EXPECT_EQ(dctcp.done, 8);
  EXPECT_EQ(dctcp.drops, 0);
  EXPECT_GT(incast(Transport::kTcp, 0, {"tcp.cc=cubic"}).drops, 0);
}

// Loss recovery without enough segments after the loss for three duplicate SACKs (RFC 8985).
struct LossResult {
  Time fct;
  int64_t retransmits = 0, timeouts = 0;
};
// A 10-segment message (14,480 B, the initial window) on the two-host star; the first transmission of each
// segment in `lost` (0-9) is dropped.
LossResult lose_segments(const std::vector<int>& lost, const std::vector<std::string>& sets = {}) {
  auto s = test::make_sim(kPair, sets);
  const uint32_t id = s->net().add_flow(flow(0, 1, 10 * 1448, Transport::kTcp));
  for (int k : lost) {
    s->net().nic(0).inject_drop(s->net().flow_path(id).send_qpn, static_cast<uint32_t>(k * 1448));
  }
  s->run();
  const FlowRecord& f = s->net().flows()[id];
  EXPECT_TRUE(f.done);
  return {f.end - f.posted, f.retransmits, f.timeouts};
}

TEST(TcpLossRecovery, ALostLastSegmentIsProbedForAfterTwoSrttAndPtoExtraNotTheTimeout) {
  // Nothing follows the last segment to reveal its loss. The probe goes 2 x SRTT + 2 ms (pto_extra) after the last
  // ACK, a SRTT of some microseconds: about 2 ms, not the 200 ms of rto_min.
  const LossResult tlp = lose_segments({9});
  EXPECT_GT(tlp.fct, Time::ms(2));
  EXPECT_LT(tlp.fct, Time::ms(2) + Time::us(50));
  EXPECT_EQ(tlp.retransmits, 1);
  EXPECT_EQ(tlp.timeouts, 0);
  const LossResult later = lose_segments({9}, {"tcp.pto_extra=5ms"});
  EXPECT_GT(later.fct, Time::ms(5));
  EXPECT_LT(later.fct, Time::ms(5) + Time::us(50));
  // Without probes the retransmission timeout recovers it: rto_min after the last ACK, which acknowledges segment
  // 8 alone after the receiver's delayed-ACK timer (40 ms; it acknowledges every second segment).
  const LossResult rto = lose_segments({9}, {"tcp.tlp=false", "stop=1s"});
  EXPECT_GT(rto.fct, Time::ms(240));
  EXPECT_LT(rto.fct, Time::ms(240) + Time::us(50));
  EXPECT_EQ(rto.timeouts, 1);
}

TEST(TcpLossRecovery, TwoLostLastSegmentsAreRevealedByOneProbe) {
  // Segments 8 and 9 lost: the probe resends 9, its SACK shows 8 missing, RACK marks 8 lost and recovery resends
  // it at once. About 2 ms, two retransmissions, no timeout.
  const LossResult r = lose_segments({8, 9});
  EXPECT_GT(r.fct, Time::ms(2));
  EXPECT_LT(r.fct, Time::ms(2) + Time::us(50));
  EXPECT_EQ(r.retransmits, 2);
  EXPECT_EQ(r.timeouts, 0);
}

TEST(TcpLossRecovery, ALoneLostSegmentIsProbedForWhenTheTimeoutWouldComeNotTimedOut) {
  // Two segments, a window of one: the first one's ACK gives an RTT, then the second goes alone and is lost. With
  // one segment in flight the probe waits 2 x SRTT + rto_min (the peer may hold a lone segment's ACK), so the
  // timeout, rto_min after the send, comes first: the probe goes then, in the timeout's place (RFC 8985 7.2),
  // and the window is not reset.
  auto s = test::make_sim(kPair, {"stop=1s", "tcp.init_cwnd=1", "tcp.ack_every=1"});
  const uint32_t id = s->net().add_flow(flow(0, 1, 2 * 1448, Transport::kTcp));
  s->net().nic(0).inject_drop(s->net().flow_path(id).send_qpn, 1448);
  s->run();
  const FlowRecord& f = s->net().flows()[id];
  ASSERT_TRUE(f.done);
  EXPECT_GT(f.end - f.posted, Time::ms(200));
  EXPECT_LT(f.end - f.posted, Time::ms(200) + Time::us(50));
  EXPECT_EQ(f.retransmits, 1);
  EXPECT_EQ(f.timeouts, 0);
}

TEST(TcpLossRecovery, RackFindsALossWithOneSegmentAfterItWithinTheReorderingWindow) {
  // Segment 8 lost, only segment 9 SACKed above it: three duplicate SACKs never come. RACK marks it lost a quarter
  // of the least RTT after the later segment's delivery showed the gap: recovered within a few round trips
  // (each some microseconds), with one retransmission, no probe and no timeout.
  const LossResult r = lose_segments({8});
  EXPECT_LT(r.fct, Time::us(30));
  EXPECT_EQ(r.retransmits, 1);
  EXPECT_EQ(r.timeouts, 0);
  // The same flow without a loss, for the scale: the recovery costs about one round trip more.
  auto s = test::make_sim(kPair);
  s->net().add_flow(flow(0, 1, 10 * 1448, Transport::kTcp));
  s->run();
  const Time clean = s->net().flows()[0].end - s->net().flows()[0].posted;
  EXPECT_GT(r.fct, clean);
  EXPECT_LT(r.fct, clean + Time::us(15));
}

// Window laws against hand-computed values.
TcpWindow window(double cwnd_segs, double ssthresh_segs) {
  return TcpWindow{cwnd_segs * 1000, ssthresh_segs * 1000, 1000};
}
std::unique_ptr<TcpCongestion> make(const std::string& yaml) {
  return parse_tcp_cc(YAML::Load(yaml), ParseCtx{"t"}, "tcp.cc")->make();
}
TcpAck ack(double bytes, Time now = Time(), double ece = 0) {
  return TcpAck{bytes, ece, 0, 0, now, Time::us(10), true};
}

TEST(TcpCc, RenoSlowStartsThenGrowsOneMssPerWindowAndHalvesOnLoss) {
  auto cc = make("reno");
  TcpWindow w = window(10, 20);
  cc->on_ack(w, ack(1000));
  EXPECT_DOUBLE_EQ(w.cwnd, 11000);  // slow start: one MSS per MSS acknowledged
  w = window(20, 10);
  for (int i = 0; i < 20; ++i) {
    cc->on_ack(w, ack(1000));
  }
  EXPECT_NEAR(w.cwnd, 21000, 30);  // a window's worth of ACKs: one MSS
  cc->on_congestion(w, 21000, Time());
  EXPECT_DOUBLE_EQ(w.cwnd, 10500);
  EXPECT_DOUBLE_EQ(w.ssthresh, 10500);
  cc->on_rto(w, 10000, Time());
  EXPECT_DOUBLE_EQ(w.cwnd, 1000);
  EXPECT_DOUBLE_EQ(w.ssthresh, 5000);
}

TEST(TcpCc, CubicKeepsBetaOnLossAndRegainsWmaxAfterK) {
  auto cc = make("cubic");
  TcpWindow w = window(100, 50);
  cc->on_congestion(w, 100000, Time());
  EXPECT_DOUBLE_EQ(w.cwnd, 70000);  // beta 0.7
  // K = cbrt(100 x 0.3 / 0.4) = 4.217 s; the window is back at W_max = 100 segments K after the loss (the target
  // is read one RTT ahead).
  const double k = std::cbrt(100 * 0.3 / 0.4);
  cc->on_ack(w, ack(1000, Time()));
  const Time at_k = Time::ps(static_cast<int64_t>(k * 1e12)) - Time::us(10);
  for (int i = 0; i < 2000; ++i) {  // many ACKs at time K: cwnd climbs to the target
    cc->on_ack(w, ack(1000, at_k));
  }
  EXPECT_NEAR(w.cwnd / 1000, 100, 1.0);
}

TEST(TcpCc, DctcpCutsByHalfAlphaOncePerEcnEcho) {
  auto cc = make("{type: dctcp, g: 0.5, initial_alpha: 0}");
  TcpWindow w = window(100, 50);
  // A window of data, half of it echoed CE: alpha = 0.5 x 0 + 0.5 x 0.5 = 0.25.
  TcpAck a = ack(50000, Time(), 25000);
  a.una = 50000;
  a.nxt = 100000;
  cc->on_ack(w, a);
  const double before = w.cwnd;
  cc->on_ece(w, 100000, Time());
  EXPECT_NEAR(w.cwnd, before * (1 - 0.25 / 2), 1e-6);
}

TEST(TcpCapture, TsharkDecodesSegmentsAndSackBlocksWithValidChecksums) {
  ASSERT_EQ(test::shell("command -v tshark").status, 0) << "tshark is needed (scripts/install-deps --test)";
  auto s = test::make_sim(std::string(kIncast) + "capture: {hosts: [0]}\n");
  for (uint32_t h = 1; h <= 8; ++h) {
    s->net().add_flow(flow(h, 0, 300'000, h % 2 ? Transport::kTcp : Transport::kIwarp));
  }
  s->run();
  const std::string file = "/tmp/rocesim_tcpcap_" + std::to_string(getpid()) + ".pcap";
  std::ofstream(file, std::ios::binary) << s->output<Capture>()->pcap();
  const auto count = [&](const std::string& filter, const std::string& options = "") {
    return test::shell("tshark -r " + file + " -o tcp.check_checksum:TRUE " + options + " -Y '" + filter +
                       "' 2>/dev/null | wc -l")
        .out;
  };
  EXPECT_EQ(count("_ws.malformed || tcp.checksum.status == 0 || ip.checksum.status == 0"), "0\n");
  EXPECT_NE(count("tcp.options.sack_le"), "0\n");
  EXPECT_NE(count("tcp.analysis.retransmission || tcp.analysis.fast_retransmission"), "0\n");
  // Every frame is TCP, and tshark counts as many as the simulator recorded.
  EXPECT_EQ(count("tcp"), std::to_string(s->output<Capture>()->frames().size()) + "\n");
  // The four iWARP connections open with an MPA Request and Reply; every iWARP data segment after them decodes
  // as one FPDU (RFC 5044) carrying an RDMAP WRITE (RFC 5040) in a tagged DDP segment (RFC 5041), its CRC32c good.
  int64_t iwarp_data = 0;
  for (const CapturedFrame& f : s->output<Capture>()->frames()) {
    // data segments go to the iWARP port (Ethernet 14 and IPv4 20 bytes before the TCP ports); MPA frames are 86 B
    iwarp_data += f.bytes.size() > 100 && (f.bytes[36] << 8 | f.bytes[37]) == frame::kIwarpPort;
  }
  EXPECT_EQ(count("iwarp_mpa.req"), "4\n");
  EXPECT_EQ(count("iwarp_mpa.rep"), "4\n");
  // (Wireshark leaves the segments its TCP analysis flags, out of order after a loss or retransmitted, to TCP:
  // tcp.no_subdissector_on_error. Without that analysis it decodes them all.)
  EXPECT_EQ(count("iwarp_mpa.fpdu && iwarp_ddp.tagged_flag == 1 && iwarp_rdma.opcode == 0",
                  "-o tcp.analyze_sequence_numbers:FALSE"),
            std::to_string(iwarp_data) + "\n");
  EXPECT_EQ(count("tcp.dstport == " + std::to_string(frame::kIwarpPort) +
                  " && tcp.len > 100 && !iwarp_mpa.fpdu && !tcp.analysis.flags"),
            "0\n");
  EXPECT_GT(iwarp_data, 100);
  const auto crcs = [&](const std::string& verdict) {
    return test::shell("tshark -r " + file + " -o tcp.analyze_sequence_numbers:FALSE -V 2>/dev/null | grep -c 'CRC " +
                       "check: .*(" + verdict + " CRC32)'")
        .out;
  };
  EXPECT_EQ(crcs("Good"), std::to_string(iwarp_data) + "\n");
  EXPECT_EQ(crcs("Bad"), "0\n");
  std::remove(file.c_str());
}

// The message a scenario's load gives ("" if it loads).
std::string error_of(const std::string& yaml) {
  try {
    Simulation s(parse_scenario(yaml, "t.yaml", ".", {}));
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(TransportInput, UnknownTransportsApplicationWorkloadsAndReadsAreErrorsNamingTheKey) {
  const std::string base = std::string(kPair) + "workload:\n  - type: poisson\n    transport: ";
  EXPECT_NE(error_of(base + "tpc\n").find("t.yaml:6: workload.0.transport: unknown transport 'tpc'"), std::string::npos)
      << error_of(base + "tpc\n");
  EXPECT_NE(
      error_of(base + "tcp\n    operation: read\n    load: 0.1\n").find("workload.0.transport: a READ flow needs RDMA"),
      std::string::npos);
  EXPECT_NE(error_of(std::string(kPair) + "workload:\n  - {type: perftest, transport: tcp}\n").find("transport"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(kPair) + "tcp: {cc: bbr}\n").find("tcp.cc.type"), std::string::npos);
}

TEST(TransportInput, BuffersBelowOneSegmentAreRefusedNamingTheKey) {
  // One segment is tcp.mss payload bytes (1448 by default): a receive window below it never admits a full
  // segment, and the connection stalls.
  EXPECT_EQ(error_of(std::string(kPair) + "tcp: {rcvbuf: 1447B}\n"),
            "t.yaml:4: tcp.rcvbuf: 1447 bytes is below one segment (tcp.mss: 1448 payload bytes): a full segment would "
            "never fit it");
  EXPECT_EQ(error_of(std::string(kPair) + "tcp: {sndbuf: 1KB}\n").rfind("t.yaml:4: tcp.sndbuf: 1000 bytes is below", 0),
            0u)
      << error_of(std::string(kPair) + "tcp: {sndbuf: 1KB}\n");
  EXPECT_EQ(error_of(std::string(kPair) + "tcp: {mss: 8948, rcvbuf: 8KB}\n")
                .rfind("t.yaml:4: tcp.rcvbuf: 8000 bytes is below one segment (tcp.mss: 8948 payload bytes)", 0),
            0u)
      << error_of(std::string(kPair) + "tcp: {mss: 8948, rcvbuf: 8KB}\n");
  // One segment each is enough: three flows of 10 segments finish, one segment in flight at a time, each
  // acknowledged at once (ack_every 1; with 2 each would wait for the 40 ms delayed ACK): 30 segments, 30 ACKs.
  auto s = test::make_sim(std::string(kPair) + "tcp: {rcvbuf: 1448B, sndbuf: 1448B, ack_every: 1}\n");
  for (uint32_t i = 0; i < 3; ++i) {
    s->net().add_flow(flow(0, 1, 14'480, Transport::kTcp));
  }
  s->run();
  EXPECT_EQ(test::unfinished(s->net()), 0);
  EXPECT_EQ(s->net().conservation().sent, 60);
}

}  // namespace
}  // namespace rocesim

// The server model: PCIe bandwidth, paths inside a server, fair sharing of its links, and a NIC whose PCIe path is
// slower than its link.
#include <gtest/gtest.h>

#include "../test_util.hpp"
#include "rocesim/server/interconnect.hpp"
#include "rocesim/server/pcie.hpp"

namespace rocesim {
namespace {
using namespace test;

TEST(Pcie, PayloadBandwidthIsTheEncodedRateLessTlpFraming) {
  // Gen4 x16: 16 GT/s x 16 lanes / 8 x 128/130 = 31.508 GB/s on the lanes; 256 B payloads in 280 B TLPs.
  EXPECT_NEAR(pcie_payload_bytes_per_s(4, 16, 256), 16e9 * 16 / 8 * 128 / 130 * 256 / 280, 1);
  EXPECT_NEAR(pcie_payload_bytes_per_s(4, 16, 256) / 1e9, 28.81, 0.01);
  EXPECT_NEAR(pcie_payload_bytes_per_s(5, 16, 256) / 1e9, 57.61, 0.01);
  EXPECT_NEAR(pcie_payload_bytes_per_s(3, 16, 256) / 1e9, 14.40, 0.01);
  // Gen6 FLIT mode: 236 of 256 bytes, 16 B header per TLP.
  EXPECT_NEAR(pcie_payload_bytes_per_s(6, 16, 256), 64e9 * 16 / 8 * 236 / 256 * 256 / 272, 1);
}

ServerParams dgx_like() {
  ServerParams p = ServerParams::schema().parse(YAML::Load("{gpus: 8, gpus_per_switch: 2, nvswitch: true}"),
                                                ParseCtx{"t"}, "server");
  return p;
}

TEST(ServerModel, GpuAndNicUnderOneSwitchStayBelowTheRootComplex) {
  const ServerModel m(dgx_like(), 8);
  // GPU 0 and NIC 0 share switch 0: up GPU 0's link, down NIC 0's.
  EXPECT_EQ(m.path(Place::gpu(0), Place::nic(0)).size(), 2u);
  // GPU 0 to NIC 2 (switch 1): up, switch 0 uplink, root complex, switch 1 uplink down, down.
  const auto far = m.path(Place::gpu(0), Place::nic(2));
  EXPECT_EQ(far.size(), 5u);
  // GPU to host memory: up, uplink, memory.
  EXPECT_EQ(m.path(Place::gpu(3), Place::host()).size(), 3u);
  // GPU to GPU over NVLink: out of one, into the other.
  const auto nvl = m.path(Place::gpu(0), Place::gpu(5));
  ASSERT_EQ(nvl.size(), 2u);
  EXPECT_TRUE(m.is_nvlink(nvl[0]) && m.is_nvlink(nvl[1]));
}

TEST(ServerModel, RootComplexPeerToPeerShareLimitsCrossSwitchPaths) {
  ServerParams p = dgx_like();
  p.root_p2p = 0.25;
  const ServerModel m(p, 8);
  EXPECT_NEAR(m.path_rate(Place::gpu(0), Place::nic(2)), 0.25 * pcie_payload_bytes_per_s(5, 16, 256), 1);
  EXPECT_NEAR(m.path_rate(Place::gpu(0), Place::nic(0)), pcie_payload_bytes_per_s(5, 16, 256), 1);
}

struct Recorder : TransferSink {
  std::vector<std::pair<uint64_t, Time>> done;
  Simulator* sim = nullptr;
  void transfer_done(uint32_t, uint64_t cookie) override { done.push_back({cookie, sim->now()}); }
};

TEST(Interconnect, TwoCopiesBehindOneSwitchShareItsUplinkFairly) {
  Simulator sim(1);
  const ServerModel m(dgx_like(), 8);
  Recorder rec;
  rec.sim = &sim;
  Interconnect ic(sim, m, rec);
  const double link = pcie_payload_bytes_per_s(5, 16, 256);
  // GPUs 0 and 1 sit under switch 0: copies of 8 MB each to host memory share its uplink; one of 4 MB leaves first.
  ic.start(m.path(Place::gpu(0), Place::host()), Bytes(8'000'000), Time(), 0, 1);
  ic.start(m.path(Place::gpu(1), Place::host()), Bytes(4'000'000), Time(), 0, 2);
  sim.run(Time::ps(int64_t{1} << 50));
  ASSERT_EQ(rec.done.size(), 2u);
  // 4 MB each at half the link, then the rest of the 8 MB alone at the full link.
  const double t_small = 4e6 / (link / 2), t_big = t_small + 4e6 / link;
  EXPECT_EQ(rec.done[0].first, 2u);
  EXPECT_NEAR(rec.done[0].second.sec_f(), t_small, 1e-9);
  EXPECT_NEAR(rec.done[1].second.sec_f(), t_big, 1e-9);
  // Every byte crossed the uplink once.
  double uplink = 0;
  for (size_t r = 0; r < m.resources(); ++r) {
    if (m.resource_name(r) == "pcie_switch0.uplink.up") {
      uplink = ic.carried()[r];
    }
  }
  EXPECT_NEAR(uplink, 12e6, 1);
}

TEST(Interconnect, LatencyIsAddedAfterTheLastByte) {
  Simulator sim(1);
  const ServerModel m(dgx_like(), 8);
  Recorder rec;
  rec.sim = &sim;
  Interconnect ic(sim, m, rec);
  ic.start(m.path(Place::gpu(0), Place::gpu(1)), Bytes(1'000'000), Time::ps(3'400'000), 0, 7);
  sim.run(Time::ps(int64_t{1} << 50));
  ASSERT_EQ(rec.done.size(), 1u);
  EXPECT_NEAR(rec.done[0].second.sec_f(), 1e6 / 380e9 + 3.4e-6, 1e-11);  // dgx_like's default nvlink 380 GB/s
}

// A 400G NIC on PCIe Gen4 x16 (28.8 GB/s = 230.5 Gb/s of payload): two senders write to it at once.
constexpr const char* kPcieBound = R"(
stop: 3ms
topology: {type: leaf-spine, leaves: 1, spines: 1, servers_per_leaf: 3,
           host_link: {rate: 400Gbps, delay: 1us}, fabric_link: {rate: 400Gbps, delay: 1us}}
server: {gpus: 1, pcie_gen: 5, nic_pcie_gen: 4}
switch: {buffer: 32MB, pfc: {priorities: [3]}}
nic: {cc: none, mtu: 4096, rx_buffer: 512KB}
workload:
  - {type: incast, receiver: 2, senders: [0, 1], size: 4MB, priority: 3}
)";

TEST(PcieBoundNic, ReceivesAtThePcieRateAndPausesTheFabric) {
  auto sim = run_sim(kPcieBound);
  Network& net = sim->net();
  ASSERT_EQ(unfinished(net), 0);
  Time last;
  for (const FlowRecord& f : net.flows()) {
    last = std::max(last, f.end);
  }
  // 8 MB of payload through 230.5 Gb/s of PCIe: at least 277.7 us, and not much more (start-up and the tail).
  const double pcie_gbps = pcie_payload_bytes_per_s(4, 16, 256) * 8 / 1e9;
  const double ideal = 8e6 * 8 / (pcie_gbps * 1e9);
  EXPECT_GE(last.sec_f(), ideal);
  EXPECT_LE(last.sec_f(), ideal * 1.05);
  EXPECT_GT(net.nic(2).counters().pause_sent, 0);
  EXPECT_EQ(net.nic(2).counters().rx_dropped, 0);
  EXPECT_EQ(all_drops(net), 0);
}

TEST(PcieBoundNic, AReceiveBufferTooSmallForItsPfcIsAnError) {
  try {
    make_sim(kPcieBound, {"nic.rx_buffer=131KB"});
    FAIL() << "expected an error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "nic.rx_buffer");
  }
}

TEST(PcieBoundNic, OnInfinibandAdvertisesItsReceiveBufferAsCreditsAndNeverDrops) {
  // No PFC on InfiniBand: the switch port into the NIC sends within the credits of nic.rx_buffer, whatever its size
  // (131KB is too small for PFC on Ethernet), and the receive rate is still PCIe's.
  const double pcie_gbps = pcie_payload_bytes_per_s(4, 16, 256) * 8 / 1e9;
  for (const char* buffer : {"16KB", "131KB", "1MB"}) {
    auto sim = run_sim(kPcieBound, {"fabric=infiniband", std::string("nic.rx_buffer=") + buffer});
    Network& net = sim->net();
    ASSERT_EQ(unfinished(net), 0) << buffer;
    EXPECT_EQ(net.nic(2).counters().rx_dropped, 0) << buffer;
    EXPECT_EQ(all_drops(net), 0) << buffer;
    EXPECT_EQ(net.nic(2).counters().pause_sent, 0) << buffer;
    EXPECT_GT(net.nic(2).counters().rx_buffer_max, 0) << buffer;
    EXPECT_LE(net.nic(2).counters().rx_buffer_max, parse_bytes(buffer).count()) << buffer;
    if (parse_bytes(buffer) >= Bytes(131'000)) {  // a credit round trip of PCIe's rate fits: PCIe never idles
      Time last;
      for (const FlowRecord& f : net.flows()) {
        last = std::max(last, f.end);
      }
      EXPECT_LE(last.sec_f(), 8e6 * 8 / (pcie_gbps * 1e9) * 1.05) << buffer;
    }
  }
}

TEST(ServerParamsInput, BadValuesNameTheirKey) {
  for (const auto& [set, key] :
       std::vector<std::pair<std::string, std::string>>{{"server.pcie_gen=7", "server.pcie_gen"},
                                                        {"server.pcie_lanes=3", "server.pcie_lanes"},
                                                        {"server.preset=dgx-z", "server.preset"},
                                                        {"server.gpus=-1", "server.gpus"}}) {
    try {
      make_sim(kPcieBound, {set});
      FAIL() << set;
    } catch (const InputError& e) {
      EXPECT_EQ(e.key(), key) << set;
    }
  }
}

}  // namespace
}  // namespace rocesim

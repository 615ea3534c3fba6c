#include "rocesim/nic/nic_params.hpp"

#include <sstream>

namespace rocesim {

const Schema<NicParams>& NicParams::schema() {
  static const Schema<NicParams> s = [] {
    Schema<NicParams> sc("nic", "every host's RDMA NIC");
    sc.add(&NicParams::mtu, "mtu", "4096", "payload bytes per packet (RoCE MTU: 256, 512, 1024, 2048 or 4096)",
           in_range<int64_t>(256, 4096), "bytes")
        .add(&NicParams::ack_interval, "ack_interval", "16",
             "the receiver acknowledges every this many packets, and always the last packet of a message",
             in_range<int64_t>(1, 1 << 20), "packets")
        .add(&NicParams::retransmit_timeout, "retransmit_timeout", "67108.864us",
             "go back to the first unacknowledged packet when no ACK advances for this long (IBTA local ACK "
             "timeout 4.096 us x 2^14, the rdma-core default exponent)",
             at_least(Time::ns(1)))
        .add(&NicParams::ack_priority, "ack_priority", "3", "priority of ACK and NAK packets", in_range<int64_t>(0, 7),
             "priority")
        .add(&NicParams::cnp_priority, "cnp_priority", "6", "priority of CNPs (NVIDIA cnp_802p_prio)",
             in_range<int64_t>(0, 7), "priority")
        .add(&NicParams::rnr_timer, "rnr_timer", "640us",
             "wait after a receiver-not-ready NAK before resending (IBTA RNR timer code 12, the rdma-core default)",
             at_least(Time::ns(1)))
        .add(&NicParams::tx_pipeline, "tx_pipeline", "0ns",
             "latency of each packet from the send engine to the wire (0: an ideal NIC, as the HPCC simulator and "
             "htsim model it; docs/model.md composes ConnectX figures)")
        .add(&NicParams::rx_pipeline, "rx_pipeline", "0ns",
             "latency of each packet from the wire to host memory and the receive engine (0: an ideal NIC)")
        .add(&NicParams::wqe_fetch, "wqe_fetch", "0ns",
             "from posting a work request (doorbell) to the NIC holding it: MMIO write and DMA read of the WQE")
        .add(&NicParams::wqe_gap, "wqe_gap", "0ns",
             "send-engine time per work request; the NIC's message rate is 1 / wqe_gap (ConnectX-6: 215 M "
             "messages/s, about 4.65 ns; NVIDIA ConnectX-6 EN user manual, Introduction)")
        .add(&NicParams::max_rd_atomic, "max_rd_atomic", "16",
             "READs outstanding per QP: further READs wait at the requester, and the responder keeps that many "
             "for re-requests (IBTA max_rd_atomic / max_dest_rd_atomic; ConnectX reports max_qp_rd_atom 16)",
             in_range<int64_t>(1, 256), "messages")
        .add(&NicParams::retry_count, "retry_count", "7",
             "retransmission timeouts in a row a requester retries before its QP goes to the error state and its "
             "requests fail (IBTA retry_cnt, 3 bits; 7 is the rdma-core and perftest default)",
             in_range<int64_t>(0, 7), "retries")
        .add(&NicParams::dscp_map, "dscp_map", "auto",
             "DSCP the NIC writes per priority, \"prio:dscp, ...\" (NVIDIA: mlnx_qos --trust dscp with the QP's "
             "traffic class); auto, and any priority not listed: the smallest DSCP that switch.dscp_map sends to it",
             parses(parse_prio_dscp_map, {"auto"}, "a prio:dscp map"), "auto | prio:dscp, ...")
        .add(&NicParams::rx_buffer, "rx_buffer", "130944B",
             "receive buffer for lossless traffic, which fills when the host drains it slower than the link (events: "
             "slow_receiver); default: one of the two buffers of a ConnectX port (262016 B, NVIDIA community "
             "'HowTo Tune Receive Buffers on Mellanox Adapter Cards')",
             at_least(Bytes(1)))
        .add(&NicParams::cable_length, "cable_length", "7",
             "cable length the receive buffer's PFC headroom allows for (the mlx5 driver's default: 7 m)",
             in_range<int64_t>(0, 100000), "m")
        .add(&NicParams::post_cpu, "post_cpu", "100ns",
             "host CPU time of posting one work request (writing the WQE, ringing the doorbell): an assumption of "
             "the order of an MMIO write; counted in nics.csv cpu_s")
        .add(&NicParams::ooo_placement, "ooo_placement", "false",
             "out-of-order data placement: a WRITE's packets that arrive ahead of a missing one are placed in memory "
             "and the message completes when the gap fills, instead of being dropped and answered with a NAK "
             "(go-back-N); ConnectX-5 and later, for RC QPs (NVIDIA MLNX_OFED documentation, 'Out-of-Order (OOO) "
             "Data Placement'). SEND packets and READ responses are still taken in order only")
        .add(&NicParams::loss_recovery, "loss_recovery", "go_back_n",
             "how RC queue pairs recover lost packets: go_back_n (IBTA vol 1, 9.7.5.1.1: the receiver drops what "
             "follows a gap, the sender resends from the missing packet) or irn (Mittal et al., 'Revisiting Network "
             "Support for RDMA', SIGCOMM 2018: the receiver keeps packets past a gap and NACKs each with the PSN "
             "it got, the sender resends only the missing ones, two timeouts, and in-flight packets capped at the "
             "path's bandwidth-delay product)",
             one_of({"go_back_n", "irn"}))
        .add(&NicParams::irn_rto_low, "irn_rto_low", "100us",
             "irn: the retransmission timeout while at most irn_rto_low_packets are in flight (IRN's RTO_low)",
             at_least(Time::ns(1)))
        .add(&NicParams::irn_rto_high, "irn_rto_high", "320us",
             "irn: the retransmission timeout otherwise (IRN's RTO_high, the paper's estimate of the largest round "
             "trip of its 40G fat-tree)",
             at_least(Time::ns(1)))
        .add(&NicParams::irn_rto_low_packets, "irn_rto_low_packets", "3",
             "irn: in-flight packets up to which irn_rto_low applies (IRN's N)", in_range<int64_t>(0, 1 << 20),
             "packets")
        .add(&NicParams::irn_bdp_cap, "irn_bdp_cap", "auto",
             "irn: packets a queue pair has in flight (sent, not cumulatively acknowledged) at most, IRN's BDP-FC: "
             "auto (the QP's line rate x its path's base round trip / mtu, rounded up), off, or a count; at most 8192, "
             "the packets a receiver keeps past a gap (beyond them it drops and NAKs, and the sender goes back)",
             parses(parse_bdp_cap, {"auto", "off"}, "auto, off or a packet count"), "auto | off | packets")
        .reserved("cc", "congestion control, see nic.cc.*")
        .reserved("preset", "connectx-6: a NIC model's latency terms and message rate as defaults (see docs/model.md)");
    return sc;
  }();
  return s;
}

const std::vector<Preset>& nic_presets() {
  // Only NIC models whose latency and message rate the vendor publishes: ConnectX-7's and BlueField-3's user
  // manuals give ports and PCIe, not these.
  static const std::vector<Preset> all = {
      {"connectx-6",
       "NVIDIA ConnectX-6 (100/200G): \"sub-600ns latency and 215 million messages per second\" (ConnectX-6 user "
       "manual, Introduction, docs.nvidia.com/networking/display/ConnectX6EN/Introduction). wqe_gap is 1 / 215 M; "
       "the 600 ns is split among WQE fetch (250 ns), transmit (150 ns) and receive (200 ns) pipelines by "
       "assumption, as the split is not published",
       R"(wqe_fetch: 250ns
tx_pipeline: 150ns
rx_pipeline: 200ns
wqe_gap: 4.65ns
)"},
  };
  return all;
}

int64_t parse_bdp_cap(const std::string& s) {
  if (s == "auto") {
    return -1;
  }
  if (s == "off") {
    return 0;
  }
  size_t used = 0;
  int64_t n = 0;
  try {
    n = std::stoll(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != s.size() || n < 1 || n > 8192) {
    throw UnitError{"bad packet count '" + s +
                    "' (expected auto, off or 1..8192: the receiver keeps at most 8,192 packets past a gap)"};
  }
  return n;
}

std::optional<PresetUse> apply_nic_preset(YAML::Node& nic, const ParseCtx& ctx) {
  return apply_preset(nic, "nic", nic_presets(), ctx);
}

std::array<int, 8> parse_prio_dscp_map(const std::string& s) {
  std::array<int, 8> m;
  m.fill(-1);
  if (s == "auto") {
    return m;
  }
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    int prio = -1, dscp = -1;
    char colon = 0, extra = 0;
    std::istringstream is(item);
    if (!(is >> prio >> colon >> dscp) || colon != ':' || (is >> extra) || prio < 0 || prio > 7 || dscp < 0 ||
        dscp > 63) {
      throw UnitError{"bad entry '" + item + "' (expected 'PRIORITY:DSCP', priority 0..7, DSCP 0..63)"};
    }
    m[static_cast<size_t>(prio)] = dscp;
  }
  return m;
}

}  // namespace rocesim

// Frame building and parsing (IEEE 802.1Qbb; IBTA RoCEv2 annex A17;
// Linux include/rdma/ib_pack.h), with known answers for the CRCs.
#include "rocesim/net/frame.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

namespace rocesim {
namespace {

Packet data_packet() {
  Packet p;
  p.kind = PacketKind::kData;
  p.src = 1;
  p.dst = 0;
  p.qpn = 5;
  p.psn = 1234;
  p.sport = 50000;
  p.payload = 1000;
  p.opcode = wire::kWriteFirst;
  p.frame = wire::roce_frame(1000, wire::kReth);
  p.dscp = 26;
  p.ecn = wire::kCe;
  p.flags = Packet::kFlagAckReq;
  return p;
}

std::string hex(const std::vector<uint8_t>& b) {
  std::string s;
  char buf[3];
  for (uint8_t x : b) {
    std::snprintf(buf, sizeof buf, "%02x", x);
    s += buf;
  }
  return s;
}

}  // namespace

TEST(Frame, Crc32MatchesTheStandardCheckValue) {
  const std::string s = "123456789";
  EXPECT_EQ(frame::crc32(reinterpret_cast<const uint8_t*>(s.data()), s.size()), 0xCBF43926u);
}

TEST(Frame, DataFrameHasTheModelsSizeAndParsesBack) {
  const Packet p = data_packet();
  const auto b = frame::build(p, frame::Context{100'000, 0, 0});
  EXPECT_EQ(b.size(), static_cast<size_t>(p.frame - wire::kFcs));  // 14+20+8+12+16+1000+4 = 1074
  EXPECT_EQ(b.size(), 1074u);
  const auto f = frame::parse(b);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->ethertype, 0x0800);
  EXPECT_EQ(f->dscp, 26);
  EXPECT_EQ(f->ecn, 3);
  EXPECT_EQ(f->dport, 4791);
  EXPECT_EQ(f->sport, 50000);
  EXPECT_EQ(f->opcode, wire::kWriteFirst);
  EXPECT_EQ(f->dest_qp, 7u);  // QP index 5 + 2
  EXPECT_EQ(f->psn, 1234u);
  EXPECT_TRUE(f->ack_req);
  EXPECT_EQ(f->reth_length, 100'000u);
  EXPECT_TRUE(f->ip_checksum_ok);
  EXPECT_TRUE(f->icrc_ok);
}

TEST(Frame, IcrcIgnoresTheFieldsSwitchesRewrite) {
  // DSCP/ECN and TTL are masked out of the ICRC, so marking CE in flight keeps it valid (IBTA RoCEv2 annex
  // A17, the ICRC invariant fields).
  Packet a = data_packet(), b = data_packet();
  a.ecn = wire::kEct0;
  b.ecn = wire::kCe;
  b.hops = 3;
  const auto fa = frame::build(a, {}), fb = frame::build(b, {});
  EXPECT_TRUE(std::equal(fa.end() - 4, fa.end(), fb.end() - 4));
  // The payload is not masked: a different PSN changes it.
  Packet c = data_packet();
  c.psn = 1235;
  const auto fc = frame::build(c, {});
  EXPECT_FALSE(std::equal(fa.end() - 4, fa.end(), fc.end() - 4));
}

TEST(Frame, CnpAckAndPfcFrames) {
  Packet cnp;
  cnp.kind = PacketKind::kCnp;
  cnp.opcode = wire::kCnp;
  cnp.frame = wire::kCnpFrame;
  cnp.dscp = 48;
  auto f = frame::parse(frame::build(cnp, {}));
  ASSERT_TRUE(f);
  EXPECT_EQ(f->opcode, 0x81);
  EXPECT_TRUE(f->becn);
  EXPECT_TRUE(f->icrc_ok);
  EXPECT_EQ(frame::build(cnp, {}).size(), 74u);  // 14+20+8+12+16+4

  Packet nak;
  nak.kind = PacketKind::kNak;
  nak.opcode = wire::kAcknowledge;
  nak.frame = wire::kAckFrame;
  nak.flags = Packet::kFlagRnr;
  f = frame::parse(frame::build(nak, {}));
  ASSERT_TRUE(f);
  EXPECT_EQ(f->aeth_syndrome, 0x2C);  // RNR NAK, timer code 12

  Packet pfc;
  pfc.kind = PacketKind::kPfc;
  pfc.frame = wire::kPfcFrame;
  PacketExt pfc_ext;
  pfc.ext = &pfc_ext;
  pfc_ext.pfc_enable = 1u << 3;
  pfc_ext.pfc_quanta[3] = 65535;
  const auto pb = frame::build(pfc, frame::Context{0, 4, 9});
  EXPECT_EQ(pb.size(), 60u);  // a 64-byte frame less its FCS
  EXPECT_EQ(pb[0], 0x01);
  EXPECT_EQ(pb[5], 0x01);  // 01-80-C2-00-00-01
  f = frame::parse(pb);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->ethertype, 0x8808);
  EXPECT_EQ(f->pfc_opcode, 0x0101);
  EXPECT_EQ(f->pfc_enable, 0x08);
  EXPECT_EQ(f->pfc_quanta[3], 65535);
}

TEST(Frame, IcrcAgreesWithScapy) {
  // An independent implementation: scapy's RoCE module recomputes the ICRC of our frames.
  std::vector<std::string> frames;
  Packet p = data_packet();
  frames.push_back(hex(frame::build(p, {100'000, 0, 0})));
  p.opcode = wire::kReadRespLast;
  p.payload = 13;  // odd length: BTH PadCnt 3
  p.frame = wire::roce_frame(13, wire::kAeth);
  frames.push_back(hex(frame::build(p, {})));
  Packet ack;
  ack.kind = PacketKind::kAck;
  ack.opcode = wire::kAcknowledge;
  ack.frame = wire::kAckFrame;
  ack.psn = 77;
  frames.push_back(hex(frame::build(ack, {})));
  const std::string script = "/tmp/rocesim_icrc_" + std::to_string(getpid()) + ".py";
  {
    std::ofstream py(script);
    py << "import sys\nfrom scapy.all import Ether, raw\nfrom scapy.contrib.roce import BTH\n"
          "for h in sys.argv[1:]:\n"
          "    b = bytes.fromhex(h)\n"
          "    p = Ether(b)\n"
          "    p[BTH].icrc = None\n"
          "    print('ok' if raw(p)[-4:] == b[-4:] else 'mismatch ' + raw(p)[-4:].hex() + ' ' + b[-4:].hex())\n";
  }
  std::string cmd = "/usr/bin/python3 " + script;
  for (const auto& h : frames) {
    cmd += " " + h;
  }
  FILE* pipe = popen((cmd + " 2>&1").c_str(), "r");
  std::string out;
  char buf[256];
  while (fgets(buf, sizeof buf, pipe)) {
    out += buf;
  }
  const int rc = pclose(pipe);
  std::remove(script.c_str());
  ASSERT_EQ(rc, 0) << "python3-scapy is needed (scripts/install-deps --test): " << out;
  EXPECT_EQ(out, "ok\nok\nok\n");
}

}  // namespace rocesim

// HPCC's in-band network telemetry (Li et al., SIGCOMM 2019, section 4) as an egress stage: each hop a data
// packet leaves appends the port's cumulative bytes sent, the time, its queue length (all classes) and its rate.
// Runs when the congestion control wants telemetry.
#include "rocesim/switch/egress_stage.hpp"

namespace rocesim {
namespace {

class IntStamp final : public EgressStage {
 public:
  IntStamp(Simulator& sim, PacketPool& pool, const std::vector<LinkEnd>& links) : sim_(sim), pool_(pool) {
    for (const LinkEnd& l : links) {
      ports_.push_back(Port{0, static_cast<uint32_t>(l.rate.bps() / 1000'000)});
    }
  }
  uint8_t hooks() const override { return kLeave; }
  void on_leave(Packet* p, uint16_t out, uint32_t port_queued, bool sent) override {
    Port& port = ports_[out];
    if (!sent) {
      return;
    }
    port.sent += p->frame;
    if (p->kind != PacketKind::kData || p->int_hops() >= kMaxIntHops) {
      return;
    }
    PacketExt& x = pool_.ext(p);
    IntHop& h = x.telemetry[x.int_hops++];
    h.tx_bytes = static_cast<uint64_t>(port.sent);
    h.ts = sim_.now();
    h.qlen = port_queued;
    h.rate_mbps = port.rate_mbps;
  }

 private:
  struct Port {
    int64_t sent = 0;  // frame bytes sent, all classes
    uint32_t rate_mbps = 0;
  };
  Simulator& sim_;
  PacketPool& pool_;
  std::vector<Port> ports_;
};

}  // namespace

static EgressStageEntry int_stamp() {
  return {"int",
          "stamp in-band telemetry on data packets as they leave (congestion controls that want it: HPCC)",
          [](const EgressStageContext& ctx) -> std::unique_ptr<EgressStage> {
            return ctx.telemetry ? std::make_unique<IntStamp>(ctx.sim, ctx.pool, ctx.links) : nullptr;
          },
          {}};
}

namespace {
// Registered before main (core/registry.hpp).
const Registrar<EgressStageFactory> int_stamp_registered(egress_stage_registry(), int_stamp());
}  // namespace

}  // namespace rocesim

#include "rocesim/nic/pfc_source.hpp"

#include <algorithm>

#include "rocesim/net/wire.hpp"

namespace rocesim {

void PfcSource::schedule_storm(Time from, Time until, int prio, Rate link) {
  link_ = link;
  storm_until_ = until;
  storm_prio_ = static_cast<uint8_t>(prio);
  sim_.at(from, &node_, kEvStorm);
}

void PfcSource::schedule_slow_receiver(Time from, Time until, Rate rate, uint8_t lossless, const RxBufferLimits& limits,
                                       Rate link) {
  link_ = link;
  rx_.configure(limits.size, limits.headroom, limits.xon_gap);
  lossless_ = lossless;
  sim_.at(from, &node_, kEvSlowRx, static_cast<uint64_t>(rate.bps()));
  if (until != Time::max()) {
    sim_.at(until, &node_, kEvSlowRx, 0);
  }
}

void PfcSource::set_dma_write(Rate write, uint8_t lossless, const RxBufferLimits& limits, Rate link) {
  dma_write_ = write;
  if (write.bps() > 0) {
    link_ = link;
    rx_.configure(limits.size, limits.headroom, limits.xon_gap);
    lossless_ = lossless;
  }
  update_buffering();
}

Time PfcSource::drain_time(const Packet& p) const {
  Time t = drain_.bps() > 0 ? drain_.tx_time(Bytes(p.frame)) : Time();
  if (dma_write_.bps() > 0) {
    t = std::max(t, dma_write_.tx_time(Bytes(p.payload)));
  }
  return t;
}

void PfcSource::take(Packet* p) {
  const bool was_empty = rx_.empty();
  const bool lossless = lossless_ >> p->priority & 1u;
  if (!rx_.push(p, lossless)) {
    ++cnt_.rx_dropped;
    cnt_.rx_dropped_lossless += lossless;
    pool_.release(p);
    return;
  }
  cnt_.rx_buffer_max = rx_.max_bytes();
  if (rx_.xoff() && refresh_gen_ % 2 == 0) {
    signal();
  }
  if (was_empty) {
    sim_.after(drain_time(*p), &node_, kEvRxDrain);
  }
}

void PfcSource::drain() {
  Packet* p = rx_.pop();
  host_.leaving(*p);
  if (!rx_.xoff() && refresh_gen_ % 2 == 1) {
    signal();
  }
  if (!rx_.empty()) {
    sim_.after(drain_time(*rx_.front()), &node_, kEvRxDrain);
  } else {
    update_buffering();
  }
  host_.drained(p);
}

void PfcSource::signal() {
  ++refresh_gen_;
  if (rx_.xoff()) {
    schedule_refresh();
  }
  host_.owe_pfc(lossless_);
}

void PfcSource::on_event(uint32_t kind, uint64_t arg) {
  switch (kind) {
    case kEvStorm:
      storming_ = sim_.now() < storm_until_;
      if (storming_) {
        host_.owe_pfc(static_cast<uint8_t>(1u << storm_prio_));
        sim_.after(pause_time(kQuanta, link_) / 2, &node_, kEvStorm);
      }
      break;
    case kEvSlowRx:
      drain_ = Rate::bps(static_cast<int64_t>(arg));
      update_buffering();
      break;
    case kEvRxDrain:
      drain();
      break;
    case kEvRxRefresh:
      if (rx_.xoff() && arg == refresh_gen_) {
        schedule_refresh();
        host_.owe_pfc(lossless_);
      }
      break;
    default:
      break;
  }
}

Packet* PfcSource::frame(uint8_t prios) {
  Packet* f = pool_.acquire(PacketKind::kPfc);
  f->frame = wire::kPfcFrame;
  PacketExt& fx = pool_.ext(f);
  fx.pfc_enable = prios;
  const uint8_t xoff = static_cast<uint8_t>((storming_ ? 1u << storm_prio_ : 0u) | (rx_.xoff() ? lossless_ : 0u));
  for (uint8_t m = prios; m; m &= static_cast<uint8_t>(m - 1)) {
    const int c = __builtin_ctz(m);
    fx.pfc_quanta[c] = xoff >> c & 1u ? kQuanta : 0;
  }
  ++(prios & xoff ? cnt_.pause_sent : cnt_.resume_sent);
  return f;
}

}  // namespace rocesim

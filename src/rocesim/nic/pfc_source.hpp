// The PFC frames a NIC originates (IEEE 802.1Qbb): a pause storm fault, which keeps its switch port paused on one
// priority, and the receive buffer, which pauses the switch on the lossless priorities while the host takes data
// frames more slowly than the link brings them (a slow receiver, or PCIe writing payload to memory).
#pragma once

#include <cstdint>

#include "rocesim/core/simulator.hpp"
#include "rocesim/net/node.hpp"
#include "rocesim/net/packet.hpp"
#include "rocesim/nic/rx_buffer.hpp"

namespace rocesim {

// The NIC's event kinds for its PFC source (arguments are the source's): the next XOFF of a pause storm (none);
// the receive buffer's drain rate from now, in bits per second (0: no limit); the buffer's head frame is in memory
// (none); a receive-buffer XOFF refresh (its XOFF's number). The NIC hands each back to PfcSource::on_event.
enum PfcSourceEvent : uint32_t {
  kEvStorm = kNodeEventBase + 6,
  kEvSlowRx,
  kEvRxDrain,
  kEvRxRefresh,
};

struct PfcSourceCounters {
  int64_t pause_sent = 0;     // PFC frames sent that pause a priority (a pause storm, or a full receive buffer)
  int64_t resume_sent = 0;    // PFC frames sent that only resume
  int64_t rx_buffer_max = 0;  // deepest receive buffer use seen, frame bytes (only a slow receiver buffers)
  int64_t rx_dropped = 0;     // frames the receive buffer had no room for
  // Of rx_dropped, those on priorities of switch.pfc.priorities.
  int64_t rx_dropped_lossless = 0;
};

// The calls the PFC source makes into its NIC.
// Contract: the NIC implements it; the source reaches the NIC only through this.
class PfcSourceHost {
 public:
  // A PFC frame must signal `prios` (each XOFF or XON as PfcSource::frame decides): send it ahead of everything
  // when the port is free.
  virtual void owe_pfc(uint8_t prios) = 0;
  // A frame leaves the receive buffer: the space it held is free (InfiniBand: its credits go back).
  virtual void leaving(const Packet& p) = 0;
  // The frame is in host memory: the NIC's receive engine takes it (and releases it).
  virtual void drained(Packet* p) = 0;

 protected:
  ~PfcSourceHost() = default;
};

// The receive buffer's thresholds (see nic/rx_buffer.hpp).
struct RxBufferLimits {
  Bytes size, headroom, xon_gap;
};

// Contract: setup calls before the run; during it the NIC passes every data frame through take() while
// buffering() (and takes it itself otherwise), hands the kinds of PfcSourceEvent to on_event, and builds the
// frame it owes with frame() once the port is free. XOFFs carry 65535 quanta and are refreshed every half of that
// pause lifetime while their cause lasts; a frame that signals only ends of pauses carries 0 quanta. The link's
// rate, given at setup, does not change during the run (it times the refreshes).
class PfcSource {
 public:
  static constexpr int kQuanta = 65535;

  PfcSource(Simulator& sim, PacketPool& pool, EventHandler& node, PfcSourceHost& host)
      : sim_(sim), pool_(pool), node_(node), host_(host) {}

  // From `from` to `until` keep priority `prio` paused on a link of `link` (a NIC whose receive pipeline is stuck).
  void schedule_storm(Time from, Time until, int prio, Rate link);
  // From `from` to `until` data frames reach memory at `rate` through a receive buffer of `limits`, lossless on
  // the priorities of `lossless`.
  void schedule_slow_receiver(Time from, Time until, Rate rate, uint8_t lossless, const RxBufferLimits& limits,
                              Rate link);
  // PCIe writes received payload to memory at `write` (0: no limit) through a receive buffer of `limits`.
  void set_dma_write(Rate write, uint8_t lossless, const RxBufferLimits& limits, Rate link);

  // Data frames go through the receive buffer (a slow receiver, PCIe writes, or frames still in it).
  bool buffering() const { return buffering_; }
  // A data frame arrives while buffering(): it waits in the buffer, or is dropped when the buffer has no room.
  void take(Packet* p);
  void on_event(uint32_t kind, uint64_t arg);
  // The PFC frame for `prios` (those the storm or the buffer pause get XOFF, the others XON), counted.
  Packet* frame(uint8_t prios);

  const PfcSourceCounters& counters() const { return cnt_; }
  const RxBuffer& buffer() const { return rx_; }

 private:
  // How long the buffer's head frame takes to reach memory.
  Time drain_time(const Packet& p) const;
  void drain();
  // XOFF or XON to the switch for the lossless priorities.
  void signal();
  void schedule_refresh() { sim_.after(pause_time(kQuanta, link_) / 2, &node_, kEvRxRefresh, refresh_gen_); }
  void update_buffering() { buffering_ = drain_.bps() > 0 || dma_write_.bps() > 0 || !rx_.empty(); }

  Simulator& sim_;
  PacketPool& pool_;
  EventHandler& node_;
  PfcSourceHost& host_;
  Rate link_;
  bool buffering_ = false;
  bool storming_ = false;
  uint8_t storm_prio_ = 0;
  uint8_t lossless_ = 0;  // the buffer's lossless priorities
  // Odd while the buffer has the switch paused: each XOFF and XON moves it on, so that a refresh scheduled by an
  // earlier XOFF finds another number and lapses.
  uint32_t refresh_gen_ = 0;
  Time storm_until_;
  RxBuffer rx_;
  Rate drain_;      // how fast frames leave the buffer (0: at once)
  Rate dma_write_;  // how fast PCIe writes received payload to memory (0: no limit)
  PfcSourceCounters cnt_;
};

}  // namespace rocesim

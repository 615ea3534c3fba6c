// Data moving inside one server (NVLink between GPUs, PCIe copies between GPU and host memory, a GPU's
// reductions) as fluid flows: each transfer holds every resource on its path, and the transfers holding a resource
// share it max-min fairly (progressive filling), recomputed whenever one starts or ends.
//
// Why fluid and not packets: NVLink and PCIe are credit-based and lossless, and their arbiters interleave
// transfers at the grain of 64-256 B flits and TLPs, so a transfer of kilobytes or more sees the fair share of
// its bottleneck from its first microsecond; nothing is dropped or marked, so packet-level dynamics (queues,
// ECN, PFC) do not exist there. One event per start and end instead of one per 256 B keeps a 1 MiB NVLink
// slice as cheap as one Ethernet packet. What it leaves out: per-flit latency jitter, and arbitration that is not
// fair (e.g. a PCIe switch that favours one port).
#pragma once

#include <cstdint>
#include <vector>

#include "rocesim/core/simulator.hpp"
#include "rocesim/core/slot_vector.hpp"
#include "rocesim/server/server.hpp"

namespace rocesim {

// Where a finished transfer is reported: the server that owns the interconnect.
// Contract: called from the interconnect's own event, once per transfer, `latency` after its last byte moved.
class TransferSink {
 public:
  virtual void transfer_done(uint32_t app, uint64_t cookie) = 0;
  // transfer_done(app, cookie) comes soon: start loading what it will touch (see EventHandler::prefetch).
  virtual void prefetch_transfer(uint32_t app, uint64_t cookie) const {}

 protected:
  ~TransferSink() = default;
};

class Interconnect final : public EventHandler {
 public:
  Interconnect(Simulator& sim, const ServerModel& model, TransferSink& sink);

  const ServerModel& model() const { return model_; }
  // Moves `bytes` along `path` (ServerModel::path); reports (app, cookie) to the sink `latency` after the last
  // byte. A transfer of 0 bytes only waits the latency.
  void start(const std::vector<uint16_t>& path, Bytes bytes, Time latency, uint32_t app, uint64_t cookie);
  // Bytes each resource has carried so far (complete transfers, and active ones up to the last reallocation).
  const std::vector<double>& carried() const { return carried_; }
  size_t active() const { return active_.size(); }

  void handle_event(uint32_t kind, uint64_t arg) override;
  void prefetch(uint32_t kind, uint64_t arg) const override;

 private:
  enum : uint32_t { kEvRealloc, kEvDone, kEvDeliver };
  struct Transfer {
    std::vector<uint16_t> path;
    double remaining = 0;  // bytes
    double rate = 0;       // bytes per second
    Time latency;
    uint32_t app = 0;
    uint64_t cookie = 0;
  };
  // Moves every active transfer on to now at its current rate.
  void advance();
  // Ends the transfers that have moved all their bytes, shares the resources anew, and schedules the next end.
  void reallocate();
  void deliver(uint32_t app, uint64_t cookie, Time latency);

  Simulator& sim_;
  const ServerModel& model_;
  TransferSink& sink_;
  SlotVector<Transfer> transfers_;
  std::vector<uint32_t> active_;
  std::vector<double> carried_;
  std::vector<double> left_;                      // scratch: capacity not yet given out
  std::vector<int> users_;                        // scratch: unfixed transfers per resource
  std::vector<char> fixed_;                       // scratch, per active transfer
  std::vector<uint32_t> first_user_, user_list_;  // scratch: per resource, its active transfers (CSR)
  std::vector<uint32_t> scratch_fill_;
  std::vector<uint16_t> scratch_used_;
  Time last_;               // when active transfers were last advanced
  uint64_t done_gen_ = 0;   // the kEvDone event whose argument equals this is the live one
  uint32_t first_end_ = 0;  // the live kEvDone's transfer (one of them if several end then)
  bool realloc_pending_ = false;
  SlotVector<std::pair<uint32_t, uint64_t>> deliveries_;  // (app, cookie) waiting out their latency
};

}  // namespace rocesim

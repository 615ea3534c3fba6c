// The collective engine: NCCL-like collectives between GPUs (ranks), run by one application per server.
//
// Every rank runs a program of phases: compute, then collectives one after the other (optionally beside more
// compute). A collective runs as NCCL's kernels do with the Simple protocol: the call's algorithm
// (algorithm.hpp) gives each rank runners, sequences of items (receive slices, reduce them, send a slice on),
// which the engine runs side by side, one item at a time per runner. A send waits for a free slot at its
// receiver (the link's window; a receiver frees a slot once it has used the slice, and says so over the network
// with a small write when the sender is in another server). Inside a server slices go over NVLink (or PCIe) as
// fluid transfers (server/interconnect.hpp); between servers each slice is an RDMA WRITE with immediate from the
// sending GPU's NIC to the receiving GPU's NIC, packet by packet through the fabric. With GPUDirect RDMA the
// NICs read and write GPU memory; without it each slice is copied to host memory before the send and from host
// memory after the receive (cudaMemcpy: fixed latency plus the PCIe path, CPU busy).
//
// Partitioning: the plan (ranks, algorithms, connections) is immutable and shared; each server's application
// holds only its own ranks' state and reaches other servers only through its NICs.
#pragma once

#include <memory>
#include <vector>

#include "rocesim/app/application.hpp"
#include "rocesim/collective/algorithm.hpp"
#include "rocesim/server/server.hpp"

namespace rocesim {

class Network;

// One phase of a rank's program: `compute` first, then the collectives in order while `beside` more compute runs
// next to them; the phase ends when both are done. Each collective call is one instance (numbered in order over
// the whole program, the same on every rank).
struct Phase {
  Time compute;
  Time beside;
  std::vector<CollectiveCall> calls;
};

// When each rank started and ended each instance.
struct InstanceTimes {
  Time start = Time::max();  // the earliest rank's start
  Time end;                  // the latest rank's end
  size_t ranks_done = 0;
};

// When the last rank ended a phase of the program, and how many ranks have.
struct PhaseEnd {
  Time last;
  size_t ranks_done = 0;
};

class CollectiveGroup;

// Installs the engine on `net` for the ranks in `ranks` (all of them run `program`), starting at `start`.
// Returns the group, which after the run gives each instance's times.
std::shared_ptr<const CollectiveGroup> install_collectives(Network& net, const std::vector<RankPlace>& ranks,
                                                           const ProtocolParams& proto,
                                                           const std::vector<Phase>& program, Time start,
                                                           uint16_t workload);

// What a group's program will post between servers, counted from its runners before the run: messages (slices
// and the credits that answer them), their bytes, and the records they would take grouped per call and queue pair.
// `hops[l]`: the links a packet of layout link l crosses between its servers; `mtu`: payload bytes per packet.
ExpectedTraffic expected_traffic(const CollectiveGroup& g, const std::vector<Phase>& program,
                                 const std::vector<uint32_t>& hops, int64_t mtu);

// Results read after the run.
std::vector<InstanceTimes> instance_times(const CollectiveGroup& g);
std::vector<PhaseEnd> phase_ends(const CollectiveGroup& g, size_t phases);
size_t group_size(const CollectiveGroup& g);
const ProtocolParams& group_protocol(const CollectiveGroup& g);
const std::vector<RankPlace>& group_ranks(const CollectiveGroup& g);
// Per server of the group: (server index, CPU time, bytes through host memory, bytes over NVLink, bytes over the
// GPUs' PCIe links: staging copies, and with GPUDirect RDMA what the NICs moved to and from GPU memory for the
// group's workload).
struct ServerUse {
  uint32_t server = 0;
  Time cpu;
  double host_memory_bytes = 0, nvlink_bytes = 0, pcie_bytes = 0;
};
std::vector<ServerUse> server_use(const CollectiveGroup& g, const Network& net);

}  // namespace rocesim

// Frames crossing from one partition of a partitioned run to another (engine/engine.hpp). A frame sent on a cut
// link is copied, with its extension, into its partition's outbox for the receiving partition, and the sender's
// packet goes back to the sender's pool; at the next window boundary the receiving partition takes a packet of
// its own pool, copies the frame into it and queues its arrival with the key the sender drew. Nothing else
// crosses: no pointer into the sender's memory survives the copy.
#pragma once

#include <cstdint>
#include <vector>

#include "rocesim/core/units.hpp"
#include "rocesim/net/packet.hpp"

namespace rocesim {

class Node;

struct Crossing {
  Time at;       // when the frame's last bit reaches the peer
  uint64_t key;  // the arrival event's tie-break key, drawn by the sender
  Node* peer;    // the receiving node (read only by the receiving partition)
  int32_t ext;   // index into Outbox::exts, or -1
  Packet frame;  // by value; its next and ext pointers are not used
};

// Frames from one partition to one other, in the order they were sent.
struct Outbox {
  std::vector<Crossing> frames;
  std::vector<PacketExt> exts;
  Time earliest = Time::max();
  void push(Time at, uint64_t key, Node* peer, const Packet& p) {
    int32_t ext = -1;
    if (p.ext) {
      ext = static_cast<int32_t>(exts.size());
      exts.push_back(*p.ext);
    }
    frames.push_back(Crossing{at, key, peer, ext, p});
    earliest = std::min(earliest, at);
  }
  void clear() {
    frames.clear();
    exts.clear();
    earliest = Time::max();
  }
};

// A partition's outboxes, one per receiving partition, twice: senders fill one set during a window while the
// receivers empty the other, filled in the window before (Outboxes::flip at each boundary).
class Outboxes {
 public:
  explicit Outboxes(size_t partitions) : boxes_{std::vector<Outbox>(partitions), std::vector<Outbox>(partitions)} {}
  Outbox& filling(size_t to) { return boxes_[parity_][to]; }
  Outbox& filled(size_t to) { return boxes_[parity_ ^ 1][to]; }
  // The earliest arrival among the frames sent in the window that just ended.
  Time earliest_filling() const {
    Time t = Time::max();
    for (const Outbox& b : boxes_[parity_]) {
      t = std::min(t, b.earliest);
    }
    return t;
  }
  void flip() { parity_ ^= 1; }

 private:
  std::vector<Outbox> boxes_[2];
  int parity_ = 0;
};

}  // namespace rocesim

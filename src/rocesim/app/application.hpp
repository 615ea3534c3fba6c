// Applications: programs that run on a server (Host), connect queue pairs to peers at setup, post work requests
// and react to their completions, as an RDMA program does with libibverbs.
#pragma once

#include <cstdint>

#include "rocesim/nic/flow.hpp"

namespace rocesim {

class Host;

// Contract: an application touches only its own state and its host; it reaches the network only by posting on
// its queue pairs (Host::post, Host::post_recv) and hears back only through on_completion and on_timer, which
// run inside the host's events. Queue pairs are connected before the run (Network::connect), as real programs
// exchange queue-pair numbers out of band before they post.
class Application {
 public:
  virtual ~Application() = default;
  // A completion on one of this application's queue pairs; `c.qp` is the handle Network::connect returned.
  virtual void on_completion(Host& host, const Completion& c) {}
  // A timer set with Host::after.
  virtual void on_timer(Host& host, uint64_t cookie) {}
  // A transfer inside the server (Host::transfer) has arrived.
  virtual void on_transfer(Host& host, uint64_t cookie) {}
  // A timer or transfer with `cookie` is about to end (see EventHandler::prefetch): the application may start
  // loading the state it will touch then. Contract: only prefetches; reads only its own state, changes nothing.
  virtual void prefetch(uint64_t cookie) const {}
};

}  // namespace rocesim
